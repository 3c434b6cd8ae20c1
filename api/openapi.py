"""The OpenAPI document: problem+json errors listed on every operation, 400 for malformed
input (webargs' 422 is kept for rule refusals)."""

from __future__ import annotations

import http
from typing import Any

from apispec import BasePlugin
from flask_smorest import Api, Blueprint

from api import errors
from api.edge import Parser
from api.errors import PROBLEM
from api.schemas import ProblemSchema

Blueprint.ARGUMENTS_PARSER = Parser()


class PontoonApi(Api):  # type: ignore[misc]
    ERROR_SCHEMA = ProblemSchema
    # Every error an operation can answer is listed on it (ProblemResponses), not hidden
    # behind a catch-all `default`.
    DEFAULT_ERROR_RESPONSE_NAME = None

    def handle_http_exception(self, error):  # type: ignore[no-untyped-def]
        return errors.http_problem(error)

    def _register_responses(self) -> None:
        """Error responses are application/problem+json (RFC 9457)."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["content"] = {PROBLEM: {"schema": self.ERROR_SCHEMA}}
            self.spec.components.response(status.name, response, lazy=True)


# Read without a token, as anyone may check the log's signed checkpoints.
PUBLIC = ("/v1/checkpoints", "/v1/checkpoints/latest", "/v1/checkpoints/key")


class ProblemResponses(BasePlugin):  # type: ignore[misc]
    """Documents the problem+json answers of each operation (API.md, Errors)."""

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **_: Any) -> None:
        for method, operation in (operations or {}).items():
            responses = operation.setdefault("responses", {})
            if path in PUBLIC:
                operation["security"] = []
                for code in (400, 404, 409, 429, 503):
                    responses.setdefault(code, http.HTTPStatus(code).name)
                continue
            if path in ("/v1/health", "/v1/health/ready"):
                # No token needed; a token the ledger does not know is still refused.
                operation["security"] = []
                responses.setdefault(429, http.HTTPStatus(429).name)  # a wrong token sent
                responses.setdefault(400, http.HTTPStatus(400).name)  # a query parameter
                responses.setdefault(401 if path == "/v1/health" else 503,
                                     "UNAUTHORIZED" if path == "/v1/health"
                                     else "SERVICE_UNAVAILABLE")
                continue
            codes = [400, 401, 403, 404, 429] + ([409, 413, 422] if method != "get" else [])
            if path and path.startswith("/v1/") and _PROJECTED(path) and (
                    method == "get" or path.startswith("/v1/tokens/")):
                codes += [409, 503]  # min_position beyond the log; read models lagging
            if method == "get" and path and _DATED(path):
                codes.append(422)  # a date that names no club day (API.md, the calendar)
            for code in codes:
                responses.setdefault(code, http.HTTPStatus(code).name)


def _PROJECTED(path: str) -> bool:  # noqa: N802
    """Reads that wait for a projection (min_position) may answer 503 if it lags: every
    list and history, and the audits."""
    return any(part in path for part in ("statement", "balance", "kitty-history", "audit",
                                        "disputes", "events", "tokens", "reports", "/deals",
                                        "/packs", "webhooks", "proofs", "/v1/days")) \
        or path in ("/v1/players", "/v1/tables")


def _DATED(path: str) -> bool:  # noqa: N802
    """Reads that take a date (`from`, `to`, `as_of`, a club day in the path)."""
    return any(part in path for part in ("statement", "kitty-history", "reports",
                                        "/v1/balances", "/v1/days")) \
        or path == "/v1/tables/{table_id}/deals"
