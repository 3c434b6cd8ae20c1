"""The REST API of API.md: `create_app` builds the Flask app around one Ledger."""

from __future__ import annotations

import http
from pathlib import Path
from typing import Any

import swagger_ui_bundle
from apispec import BasePlugin
from flask import Flask, send_from_directory
from flask_smorest import Api, Blueprint
from webargs.flaskparser import FlaskParser
from werkzeug import Response

from api import errors
from api.errors import PROBLEM
from api.schemas import ProblemSchema
from api.services import Services
from application import Ledger
from config import Settings


class Parser(FlaskParser):
    """Malformed input is 400 (API.md); webargs' default 422 is kept for rule refusals."""

    DEFAULT_VALIDATION_STATUS = 400


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


class ProblemResponses(BasePlugin):  # type: ignore[misc]
    """Documents the problem+json answers of each operation (API.md, Errors)."""

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **_: Any) -> None:
        for method, operation in (operations or {}).items():
            responses = operation.setdefault("responses", {})
            if path == "/v1/health":
                operation["security"] = []
                continue
            codes = [400, 401, 403, 404] + ([409, 422] if method != "get" else [])
            if path and path.startswith("/v1/") and method == "get" and _PROJECTED(path):
                codes += [409, 503]  # min_position beyond the log; read models lagging
            for code in codes:
                responses.setdefault(code, http.HTTPStatus(code).name)


def _PROJECTED(path: str) -> bool:  # noqa: N802
    """Reads that wait for a projection (min_position) may answer 503 if it lags."""
    return any(part in path for part in ("statement", "balance", "kitty-history", "audit",
                                        "disputes", "events"))


def create_app(settings: Settings | None = None, *, ledger: Ledger | None = None) -> Flask:
    """One app, and one Ledger application, per process (build it after any fork)."""
    from api.balances.resources import blp as balances
    from api.deals.resources import blp as deals
    from api.disputes.resources import blp as disputes
    from api.events.resources import blp as events
    from api.health.resources import blp as health
    from api.players.resources import blp as players
    from api.tables.resources import blp as tables
    from api.tokens.resources import blp as tokens
    from api.web import bp as web

    settings = settings or Settings.from_env()
    app = Flask("pontoon")
    app.config.update(
        API_TITLE="Pontoon chip ledger", API_VERSION="v1", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs", OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        API_SPEC_OPTIONS={
            "info": {"description": "An event-sourced chip ledger for Pontoon and Shoot "
                                    "Pontoon. Rule ids (R4.3) refer to RULES.md."},
            "components": {"securitySchemes": {"bearer": {"type": "http",
                                                          "scheme": "bearer"}}},
            "security": [{"bearer": []}]},
    )
    app.extensions["pontoon"] = Services(settings, ledger)
    api = PontoonApi(app, spec_kwargs={"extra_plugins": [ProblemResponses()]})
    for blueprint in (players, tokens, tables, deals, disputes, balances, events, health):
        api.register_blueprint(blueprint)
    errors.register(app)
    # The treasurer's pages: a plain Flask blueprint (templates and static files of its
    # own, under /web), so they stay out of /openapi.json.
    app.register_blueprint(web)
    assets = Path(swagger_ui_bundle.swagger_ui_path)

    @app.get("/docs/assets/<path:name>")
    def swagger_assets(name: str) -> Response:
        """Swagger UI is served by the app itself: no CDN."""
        return send_from_directory(assets, name)

    return app
