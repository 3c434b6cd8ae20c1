"""Signing in with a staff token, and signing out."""

from __future__ import annotations

from flask import redirect, request, url_for
from werkzeug import Response

from api.web.pages.lookups import services
from api.web.pages.session import STAFF, forget_sign_in, keep_signed_in, safe_next
from api.web.pages.site import bp, render


@bp.route("/sign-in", methods=["GET", "POST"])
def sign_in() -> Response:
    target = safe_next(request.values.get("next"))
    if request.method == "GET":
        return render("sign_in.html", next=target,
                      signed_out=request.args.get("signed_out") == "1")
    token = request.form.get("token", "").strip()
    who = services().principal(token) if token and len(token) <= 500 else None
    if who is None:
        return render("sign_in.html", 401, next=target,
                      error="This token is not known to the ledger. Check it and try again.")
    if who.role not in STAFF:
        return render("error.html", 403, title="Player tokens cannot sign in here",
                      message="These pages are for the treasurer and operators. A player's "
                              "token only works with the API, for that player's own seat.")
    response = redirect(target, 303)
    keep_signed_in(response, token)
    return response


@bp.route("/sign-out", methods=["GET", "POST"])
def sign_out() -> Response:
    response = redirect(url_for(".sign_in", signed_out=1), 303)
    forget_sign_in(response)
    return response
