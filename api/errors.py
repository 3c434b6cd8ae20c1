"""Every error becomes application/problem+json (RFC 9457) here, and only here.

Domain refusals carry their status (409 not now, 422 a rule refuses, 404 unknown) and the
rule id; malformed input is 400 with field `errors`, and well-formed input a field refuses
(control characters, bounds, account references: api/inputs.py) 422 with field `errors`;
anything unexpected is logged and answered 500 without details. Every 500 carries the
request's id (`request_id`, as in the log line that tells what failed); a broken invariant
names the invariant, a store that refused a command's events names nothing of the store in
the answer (the log has its constraint), and both are counted in /metrics.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, g, json
from werkzeug.exceptions import HTTPException

from api.inputs import QueryRefusal, Refusal
from application.eventstore import RecordRefused
from domain.errors import InvariantBroken, PontoonError

PROBLEM = "application/problem+json"
log = logging.getLogger("pontoon.api")


class Forbidden(Exception):
    """The principal's role or seat does not allow this (403)."""


class Unauthorized(Exception):
    """No bearer token, or one the ledger does not know (401)."""


class MalformedHeader(Exception):
    """A header the service reads (If-Match, Idempotency-Key) that it cannot read (400)."""

    def __init__(self, header: str, message: str) -> None:
        super().__init__(message)
        self.header = header


def problem(status: int, detail: str, *, rule: str | None = None,
            errors: Any = None, headers: dict[str, str] | None = None,
            **extra: Any) -> Response:
    phrase = HTTPStatus(status).phrase
    body: dict[str, Any] = {"type": f"https://pontoon.example/problems/{status}",
                            "title": phrase, "status": status, "detail": detail}
    if rule is not None:
        body["rule"] = rule
    if errors is not None:
        body["errors"] = errors
    if status == 500:  # a failure to report (503 says: try again)
        body["request_id"] = g.get("request_id")
    body.update(extra)
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def http_problem(error: HTTPException) -> Response:
    """Werkzeug's errors, and webargs' validation errors (their field messages)."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    errors = data.get("errors") or data.get("messages")
    if status in (400, 422) and errors is not None:
        # Malformed input is 400 (API.md); a body every field of which is well-formed but
        # refused (api/inputs.py) is 422, as API.md's Input limits fix. A query that is off
        # in any way stays 400 (API.md, Lists: an unknown or malformed parameter is 400),
        # but for a date out of range (API.md, "The club's calendar").
        in_query = isinstance(errors, dict) and set(errors) <= {"query", "querystring"}
        refused = _refusals_only(_plain(errors), QueryRefusal if in_query else Refusal)
        status = 422 if refused else 400
    detail = data.get("message") or error.description or HTTPStatus(status).phrase
    if errors is not None and detail == error.description:
        detail = ("the request is refused: see `errors` for each field" if status == 422
                  else "the request is malformed: see `errors` for each field")
    headers = dict(data.get("headers") or {})
    if status == 405 and error.get_response().headers.get("Allow"):
        headers["Allow"] = error.get_response().headers["Allow"]
    return problem(status, str(detail), errors=_plain(errors), headers=headers)


def unauthorized(error: Unauthorized) -> Response:
    return problem(401, str(error), headers={"WWW-Authenticate": "Bearer"})


def token_refusal() -> Response | None:
    """The 401 for a command that found its token changed (revoked) since this worker
    last checked it, or None if the token is still good after all."""
    from api.auth import token_changed

    refusal = token_changed()
    return None if refusal is None else unauthorized(refusal)


def register(app: Flask) -> None:
    from api.health.readiness import NotReady
    from api.services import ProjectionsBehind
    from application.reads import TokenChanged

    @app.errorhandler(PontoonError)
    def refused(error: PontoonError) -> Response:
        return problem(error.status, error.message, rule=error.rule)

    app.errorhandler(InvariantBroken)(invariant_broken)
    app.errorhandler(RecordRefused)(record_refused)

    app.errorhandler(Unauthorized)(unauthorized)

    @app.errorhandler(TokenChanged)
    def token_changed(error: TokenChanged) -> Response:
        return token_refusal() or problem(409, "the token was changed while the command "
                                               "was decided; nothing was recorded: send it "
                                               "again")

    @app.errorhandler(MalformedHeader)
    def malformed_header(error: MalformedHeader) -> Response:
        return problem(400, str(error), errors={error.header: [str(error)]})

    @app.errorhandler(Forbidden)
    def forbidden(error: Forbidden) -> Response:
        return problem(403, str(error))

    @app.errorhandler(ProjectionsBehind)
    def behind(error: ProjectionsBehind) -> Response:
        return problem(503, str(error), headers={"Retry-After": "1"})

    @app.errorhandler(NotReady)
    def not_ready(error: NotReady) -> Response:
        return problem(503, str(error), errors=error.reasons, headers={"Retry-After": "5"})

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        if isinstance(error, HTTPException):
            return http_problem(error)
        log.exception("unexpected error")
        return problem(500, "the service failed unexpectedly; read the table or deal again "
                            "before sending a command again")


def invariant_broken(error: InvariantBroken) -> Response:
    """Something that always holds did not: a bug or a store changed by hand. Nothing of the
    command was recorded (the checks run before the save)."""
    return problem(500, reported(error), rule=error.rule, invariant=error.invariant)


def record_refused(error: RecordRefused) -> Response:
    """The store refused a command's events for a reason other than a lost race (a hash-chain
    row, any other constraint): never sent again, since it would be refused again."""
    return problem(500, reported(error))


def reported(error: InvariantBroken | RecordRefused) -> str:
    """Log (with its traceback and the request id) and count a failure that is not the
    sender's; the sentence to answer it with."""
    from api.observability import metrics

    if isinstance(error, InvariantBroken):
        log.error("invariant broken: %s: %s", error.invariant, error.message, exc_info=error,
                  extra={"invariant": error.invariant, "rule": error.rule})
        metrics().invariants.labels(error.invariant).inc()
        return (f"the ledger found that {error.invariant} does not hold here "
                f"({error.message}); nothing was recorded. Tell the club's operator, quoting "
                "the request id")
    log.error("the store refused a command's events: constraint %s (%s)", error.constraint,
              type(error.error).__name__, exc_info=error, extra={"constraint": error.constraint})
    metrics().integrity.labels(error.constraint).inc()
    return ("the store refused to record this command, and nothing was recorded; it would "
            "be refused again: tell the club's operator, quoting the request id")


def _refusals_only(errors: Any, kind: type[Refusal] = Refusal) -> bool:
    """Every message a refusal (of `kind`), none a sign of malformed input."""
    if isinstance(errors, dict):
        return bool(errors) and all(_refusals_only(value, kind) for value in errors.values())
    if isinstance(errors, list):
        return bool(errors) and all(_refusals_only(value, kind) for value in errors)
    return isinstance(errors, kind)


def _plain(errors: Any) -> Any:
    """webargs nests messages under the location (`json`, `query`); keep the fields."""
    if isinstance(errors, dict) and len(errors) == 1:
        (location, fields), = errors.items()
        if location in ("json", "query", "headers", "path", "view_args") \
                and isinstance(fields, dict):
            return fields
    return errors
