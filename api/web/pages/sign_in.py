"""Signing in with a token (staff or a player's own), and signing out (a POST, with the
form token, so no link or other site can sign anyone out)."""

from __future__ import annotations

from flask import g, redirect, request, url_for
from werkzeug import Response

from api.web.pages.lookups import services
from api.web.pages.session import (
    csrf_token,
    forget_sign_in,
    form_token_matches,
    keep_sign_in_token,
    keep_signed_in,
    refused_form,
    safe_next,
    sign_in_token,
    signed_in,
)
from api.web.pages.site import bp, render


@bp.get("/sign-in")
def sign_in() -> Response:
    token, new = sign_in_token()
    response = render("sign_in.html", next=safe_next(request.args.get("next")),
                      form_token=token, signed_out=request.args.get("signed_out") == "1")
    if new:
        keep_sign_in_token(response, token)
    return response


@bp.post("/sign-in")
def sign_in_sent() -> Response:
    token, new = sign_in_token()
    if new or not form_token_matches(token):
        return refused_form()
    target = safe_next(request.form.get("next"))
    bearer = request.form.get("token", "").strip()
    who = services().principal(bearer) if bearer and len(bearer) <= 500 else None
    if who is None:
        return render("sign_in.html", 401, next=target, form_token=token,
                      error="This token is not known to the ledger. Check it and try again.")
    response = redirect(target, 303)
    keep_signed_in(response, bearer)
    return response


@bp.post("/sign-out")
def sign_out() -> Response:
    who = signed_in()
    if who is not None:
        g.web_who = who
        if not form_token_matches(csrf_token()):
            return refused_form()
    response = redirect(url_for(".sign_in", signed_out=1), 303)
    forget_sign_in(response)
    return response
