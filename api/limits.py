"""Failed authentication is rate limited per client address (API.md, Tokens): after
`Settings.auth_failure_limit` answers of 401 from one address in a moving window (or pages
visited with a wrong sign-in cookie, sent to sign in rather than answered 401), its
requests are answered 429 with `Retry-After` until the window frees up.

Only failures count, so successful requests are never limited or slowed (a check against
in-memory counters), and requests with no credentials at all are not limited. A request
that carries a valid token is never refused (API.md Additions): one whose token this
worker has already seen valid goes through at once, and a token from a blocked address
that this worker has not seen yet is looked up in the store before any 429 (a club behind
one shared address must not be locked out by one client's guesses).
The counters are in each worker's memory (flask-limiter `memory://`): with N workers an
address gets up to N times the limit, and a restart forgets them. Behind a reverse proxy,
the proxy's address is the client's unless PONTOON_TRUSTED_PROXIES says how many
proxies' X-Forwarded-For to trust (api/__init__.py).
"""

from __future__ import annotations

import time

from flask import Flask, Response, g, request
from flask_limiter import Limiter
from flask_limiter.errors import RateLimitExceeded
from flask_limiter.util import get_remote_address

from api.errors import problem
from api.web.pages.session import COOKIE


def limit_failed_authentication(app: Flask, limit: str) -> Limiter:
    services = app.extensions["pontoon"]

    def exempt() -> bool:
        """Requests with no credentials cannot fail to authenticate (public pages, the
        health check, a redirect to sign in); a token this worker knows is valid passes."""
        token = _credentials()
        return not token or services.known_valid(token)

    limiter = Limiter(get_remote_address, app=app, storage_uri="memory://",
                      strategy="moving-window", application_limits=[limit],
                      application_limits_deduct_when=lambda response:
                      response.status_code == 401 or g.get("authentication_failed", False))
    limiter.request_filter(exempt)
    # The limiter asks its request filters only after resolving the request's limits, and
    # then evaluates the (empty) list of them anyway: 70 µs of every request, nearly all
    # of which it lets through. So its hook is asked only about requests it may limit.
    hooks = app.before_request_funcs[None]
    check = hooks.index(limiter._check_request_limit)

    def check_unless_exempt() -> None:
        if exempt():
            return
        try:
            limiter._check_request_limit()
        except RateLimitExceeded:
            if services.principal(_credentials()) is None:
                raise  # a guess, or a token revoked or expired: it waits

    hooks[check] = check_unless_exempt

    @app.errorhandler(RateLimitExceeded)
    def too_many(error: RateLimitExceeded) -> Response:
        current = limiter.current_limit
        wait = max(1, int(current.reset_at - time.time())) if current else 60
        return problem(429, f"too many failed authentications from this address "
                            f"({error.description}); try again in {wait} s",
                       headers={"Retry-After": str(wait)})

    return limiter


def _credentials() -> str:
    """The token a request authenticates with: the bearer header, the pages' sign-in
    cookie, or the token typed into the sign-in form."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    if request.endpoint == "web.sign_in_sent":
        return request.form.get("token", "").strip()
    return request.cookies.get(COOKIE, "")

