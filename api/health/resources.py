"""Health: is the service up, which store, how far behind each projection is."""

from __future__ import annotations

from typing import Any

from flask import current_app

from api.common import Blueprint
from api.health.schemas import HealthSchema

blp = Blueprint("health", __name__, url_prefix="/v1/health", description="Health")


@blp.read("", HealthSchema)
def health() -> dict[str, Any]:
    """No token needed: the store in use and the head of the event log."""
    services = current_app.extensions["pontoon"]
    position = services.ledger.recorder.max_notification_id()
    lags = services.projections.lags() if services.projections is not None else {}
    return {"status": "ok", "store": services.settings.store, "position": position,
            "projections": lags}
