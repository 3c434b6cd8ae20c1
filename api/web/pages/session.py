"""Who is signed in: the token cookie, the form token derived from it, and `staff_page`.

The bearer token is kept in an HttpOnly, SameSite=Strict cookie scoped to /web, and every
form carries a token derived from it (a second guard against cross-site posts). The sign-in
form, sent before there is a token, carries a random token that must match a cookie of its
own (a site elsewhere can neither read nor set it), so no other site can sign a visitor in
with a token of its choosing (login CSRF).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from flask import g, redirect, request, url_for
from werkzeug import Response

from api.auth import Principal, article
from api.web.pages.lookups import services
from api.web.pages.site import bp, here, render

COOKIE = "pontoon_web_token"
SIGN_IN_COOKIE = "pontoon_web_sign_in"
COOKIE_AGE = 12 * 3600
STAFF = ("treasurer", "operator")
EVERYONE = ("treasurer", "operator", "player")


def signed_in() -> Principal | None:
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    who = services().principal(token)
    if who is None:
        # Answered with the sign-in page, not a 401, but a guess all the same (decision 31).
        g.authentication_failed = True
    return who


def keep_signed_in(response: Response, token: str) -> None:
    response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, path="/web", httponly=True,
                        samesite="Strict", secure=request.is_secure)


def forget_sign_in(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/web", httponly=True, samesite="Strict",
                           secure=request.is_secure)


def csrf_token() -> str:
    """Derived from the signed-in token, which a page elsewhere cannot read (HttpOnly)."""
    token = request.cookies.get(COOKIE, "")
    return hmac.new(b"pontoon-web-form", token.encode(), hashlib.sha256).hexdigest()


def sign_in_token() -> tuple[str, bool]:
    """The sign-in form's token: the one in its cookie, or a new one (True) to set."""
    token = request.cookies.get(SIGN_IN_COOKIE, "")
    if len(token) == 43:
        return token, False
    return secrets.token_urlsafe(32), True


def keep_sign_in_token(response: Response, token: str) -> None:
    response.set_cookie(SIGN_IN_COOKIE, token, max_age=COOKIE_AGE, path="/web",
                        httponly=True, samesite="Strict", secure=request.is_secure)


def form_token_matches(expected: str) -> bool:
    given = request.form.get("csrf", "")
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


def refused_form() -> Response:
    return render("error.html", 400, title="The form could not be accepted",
                  message="The form came from an old page or another site. "
                          "Reload the page and send it again.")


def not_for_this_token(message: str) -> Response:
    return render("error.html", 403, title="Not for this token", message=message)


def staff_page(*roles: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Sign-in required; the principal's role must be one of `roles` (default: staff;
    EVERYONE lets players in, and the view then shows them only what is theirs)."""
    allowed = roles or STAFF

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            who = signed_in()
            if who is None:
                return redirect(url_for(".sign_in", next=here()))
            g.web_who = who
            if who.role not in allowed:
                needs = " or ".join(allowed)
                return render("error.html", 403, title="Not for this token",
                              message=f"You are signed in with {article(who.role)} {who.role} "
                                      f"token; this page is for the {needs} only.")
            if request.method == "POST" and not form_token_matches(csrf_token()):
                return refused_form()
            return view(*args, **kwargs)
        return wrapped
    return decorate


def safe_next(target: str | None) -> str:
    """Only a page of this site under /web/ (never another host), written in printable
    characters: a line break would split the Location header (a 500, or a header of the
    sender's choosing)."""
    if target and target.isprintable() and target.startswith("/web/") \
            and not target.startswith("/web/sign-") and "//" not in target \
            and "\\" not in target and not urlsplit(target).netloc:
        return target
    return url_for(".home")


@bp.context_processor
def signed_in_as() -> dict[str, Any]:
    """What every page's header and forms need to know about who is signed in."""
    who = g.get("web_who")
    return {"who": who, "staff": who is not None and who.is_staff,
            "is_treasurer": who is not None and who.role == "treasurer",
            "is_player": who is not None and who.role == "player",
            "csrf": csrf_token() if who else ""}
