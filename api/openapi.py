"""The OpenAPI document: problem+json errors listed on every operation, 400 for malformed
input (webargs' 422 is kept for rule refusals), one named enum for each closed set of words
(api/vocabulary.py), and nullable nested objects a generated client decodes into their own
model."""

from __future__ import annotations

import http
from typing import Any

from apispec import BasePlugin
from flask_smorest import Api, Blueprint

from api import errors
from api.edge import Parser
from api.errors import PROBLEM
from api.schemas import ProblemSchema
from api.vocabulary import ALL, Choice

Blueprint.ARGUMENTS_PARSER = Parser()


class PontoonApi(Api):  # type: ignore[misc]
    ERROR_SCHEMA = ProblemSchema
    # Every error an operation can answer is listed on it (ProblemResponses), not hidden
    # behind a catch-all `default`.
    DEFAULT_ERROR_RESPONSE_NAME = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for words in ALL:
            self.spec.components.schema(words.name, {
                "type": "string", "enum": list(words.values), "description": words.description})
        self.ma_plugin.converter.add_attribute_function(typed)

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
                for code in (400, 404, 409, 429, 500, 503):
                    responses.setdefault(code, http.HTTPStatus(code).name)
                continue
            if path in ("/v1/health", "/v1/health/ready"):
                # No token needed; a token the ledger does not know is still refused.
                operation["security"] = []
                responses.setdefault(429, http.HTTPStatus(429).name)  # a wrong token sent
                responses.setdefault(400, http.HTTPStatus(400).name)  # a query parameter
                responses.setdefault(500, http.HTTPStatus(500).name)
                responses.setdefault(401 if path == "/v1/health" else 503,
                                     "UNAUTHORIZED" if path == "/v1/health"
                                     else "SERVICE_UNAVAILABLE")
                continue
            codes = [400, 401, 403, 404, 429, 500] + ([409, 413, 422] if method != "get"
                                                      else [])
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

NULL_OBJECT = {"type": "object", "nullable": True}


def typed(converter: Any, field: Any, ret: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Runs after apispec's own conversions of a field (it edits `ret` in place):

    - a `Choice` of a whole closed set becomes a reference to the set's enum;
    - a nullable nested object, which apispec writes for OpenAPI 3.0 as `anyOf` a bare
      nullable object and the reference, becomes the reference alone, nullable: a generated
      client decodes the object into its own model rather than into an empty one listed
      first (openapi-python-client turns a nullable `anyOf` into that union with None).
    """
    if isinstance(field, Choice) and field.whole:
        for key in ("type", "enum"):
            ret.pop(key, None)
        reference = {"$ref": f"#/components/schemas/{field.words.name}"}
        ret["anyOf" if ret.get("nullable") else "allOf"] = [reference]
    if NULL_OBJECT in ret.get("anyOf", []):
        ret["anyOf"] = [option for option in ret["anyOf"] if option != NULL_OBJECT]
        ret["nullable"] = True
    return {}
