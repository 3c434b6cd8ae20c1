"""Health: liveness for anyone, the store's state for staff, readiness for load balancers."""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from api.auth import principal
from api.common import Blueprint
from api.health.readiness import readiness
from api.health.schemas import HealthSchema, ReadySchema
from projections.failures import failures

blp = Blueprint("health", __name__, url_prefix="/v1/health", description="Health")


@blp.read("", HealthSchema)
def health() -> dict[str, Any]:
    """Without a token `{"status"}`, at once; with a staff token also the store, the head of
    the log, each read model's lag and every read model that cannot apply an event."""
    if "Authorization" not in request.headers or not principal().is_staff:
        return {"status": "ok"}
    services = current_app.extensions["pontoon"]
    position = services.ledger.recorder.max_notification_id()
    projections = services.projections
    lags = projections.lags() if projections is not None else {}
    failing = [vars(f) for f in failures(projections.store)] if projections else []
    return {"status": "degraded" if failing else "ok", "store": services.settings.store,
            "position": position, "projections": lags, "failures": failing}


@blp.read("/ready", ReadySchema)
def ready() -> dict[str, Any]:
    """200 when the store answers, migrations are applied and every read model is within its
    lag limit; else 503 naming what is not ready. No token needed (probes carry none)."""
    return readiness(current_app.extensions["pontoon"])
