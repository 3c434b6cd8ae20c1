"""The treasurer's web pages: server-rendered HTML under /web (no JavaScript, no CDN).

A plain Flask blueprint, not a flask-smorest one, so these pages stay out of
/openapi.json. They read the same read models as the API (projections/) and send the
same commands to the same Ledger.
"""

from api.web.pages import bp

__all__ = ["bp"]
