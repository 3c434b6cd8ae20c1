"""Health: is the service up, which store, how far behind each projection is."""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

blp = Blueprint("health", __name__, url_prefix="/v1/health", description="Health")


class HealthSchema(Schema):
    status = fields.String(required=True)
    store = fields.String(required=True)
    position = fields.Integer(allow_none=True)
    projections = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)


@blp.route("")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, Any]:
        """No token needed: the store in use and the head of the event log."""
        services = current_app.extensions["pontoon"]
        position = services.ledger.recorder.max_notification_id()
        lags = services.projections.lags() if services.projections is not None else {}
        return {"status": "ok", "store": services.settings.store, "position": position,
                "projections": lags}
