"""The treasurer's pages under /web: sign in with a staff token, read the ledger, resolve
disputes.

Reads come from the read models (projections/), as the API's do; commands go to the same
Ledger. A refused command is shown on the page it came from, naming the rule, never as JSON.

`site` holds the blueprint and its error pages, `session` who is signed in, `lookups` the
reads and names the pages share; each other module holds the pages about one thing.
"""

# Importing a module of pages is what adds its views to the blueprint.
from api.web.pages import (  # noqa: F401
    balances,
    days,
    deals,
    disputes,
    home,
    packs,
    players,
    reports,
    sign_in,
    tables,
    verifier,
)
from api.web.pages.site import bp

__all__ = ["bp"]
