"""The REST API of API.md: `create_app` builds the Flask app around one Ledger."""

from __future__ import annotations

import os
from pathlib import Path

import swagger_ui_bundle
from flask import Flask, redirect, send_from_directory
from werkzeug import Response
from werkzeug.middleware.proxy_fix import ProxyFix

from api import edge, errors, observability
from api.answers import Answers
from api.limits import limit_failed_authentication
from api.openapi import PontoonApi, ProblemResponses
from api.services import Services
from application import Ledger
from config import Settings


def create_app(settings: Settings | None = None, *, ledger: Ledger | None = None) -> Flask:
    """One app, and one Ledger application, per process (build it after any fork)."""
    from api.balances.resources import blp as balances
    from api.checkpoints.resources import blp as checkpoints
    from api.club.resources import blp as club
    from api.days.resources import blp as days
    from api.deals.resources import blp as deals
    from api.disputes.resources import blp as disputes
    from api.events.resources import blp as events
    from api.health.resources import blp as health
    from api.players.resources import blp as players
    from api.proofs.resources import blp as proofs
    from api.reports.resources import blp as reports
    from api.tables.resources import blp as tables
    from api.tokens.resources import blp as tokens
    from api.verify import bp as verifier
    from api.web import bp as web
    from api.webhooks.resources import blp as webhooks

    settings = settings or Settings.from_env()
    app = Flask("pontoon")
    app.json = Answers(app)
    app.config.update(
        # Hold every command's answer to its schema's dump (api/common.py): the tests' switch.
        CHECK_ANSWERS=os.environ.get("PONTOON_CHECK_ANSWERS") == "1",
        API_TITLE="Pontoon chip ledger", API_VERSION="v1", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs", OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        API_SPEC_OPTIONS={
            "info": {"description": "An event-sourced chip ledger for Pontoon and Shoot "
                                    "Pontoon. Rule ids (R4.3) refer to RULES.md."},
            "components": {"securitySchemes": {"bearer": {"type": "http",
                                                          "scheme": "bearer"}}},
            "security": [{"bearer": []}],
            "servers": [{"url": "/", "description": "the service that serves this document"}]},
    )
    app.extensions["pontoon"] = Services(settings, ledger)
    api = PontoonApi(app, spec_kwargs={"extra_plugins": [ProblemResponses()]})
    for blueprint in (players, tokens, tables, deals, disputes, balances, reports, events,
                      health, webhooks, checkpoints, proofs, club, days):
        api.register_blueprint(blueprint)
    errors.register(app)
    observability.install(app)  # request ids, JSON access log lines, /metrics
    # The failed-authentication limit answers first; then the token, before any body is read.
    limit_failed_authentication(app, settings.auth_failure_limit)
    edge.guard(app)
    # The treasurer's pages: a plain Flask blueprint (templates and static files of its
    # own, under /web), so they stay out of /openapi.json.
    app.register_blueprint(web)
    # The hand-history verifier: one static page, checked in the player's browser.
    app.register_blueprint(verifier)
    assets = Path(swagger_ui_bundle.swagger_ui_path)

    @app.get("/")
    def root() -> Response:
        """The address people type first: the pages (the API lives under /v1, docs at /docs)."""
        return redirect("/web/", 302)

    @app.get("/docs/assets/<path:name>")
    def swagger_assets(name: str) -> Response:
        """Swagger UI is served by the app itself: no CDN."""
        return send_from_directory(assets, name)

    if settings.trusted_proxies:
        # Behind N trusted proxies: the client's address (which the failed-authentication
        # limit counts by) and scheme are the ones they forward.
        app.wsgi_app = ProxyFix(app.wsgi_app,  # type: ignore[method-assign]
                                x_for=settings.trusted_proxies,
                                x_proto=settings.trusted_proxies)
    return app
