"""Disputes: raised about a deal, resolved by the treasurer with correcting postings (R11.4)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask.views import MethodView
from flask_smorest import Blueprint

from api.auth import principal, require, require_seat_in
from api.common import idempotency_key, ledger, positioned
from api.disputes.schemas import (
    DisputeCreatedSchema,
    DisputeCreateSchema,
    DisputesQuerySchema,
    DisputesSchema,
    ResolutionSchema,
    ResolvedSchema,
)
from api.reads import read_store
from projections.disputes import disputes

blp = Blueprint("disputes", __name__, url_prefix="/v1", description="Disputes")


@blp.route("/deals/<uuid:deal_id>/disputes")
class DealDisputes(MethodView):
    @blp.arguments(DisputeCreateSchema)
    @blp.response(201, DisputeCreatedSchema)
    def post(self, body: dict[str, Any], deal_id: UUID) -> dict[str, Any]:
        """A player of the deal, an operator or the treasurer raises a dispute."""
        who = principal()
        engine = ledger().deal(str(deal_id)).engine
        require_seat_in(who, engine,
                        "only players of this deal, operators and the treasurer dispute it")
        outcome = ledger().raise_dispute(str(deal_id), body["reason"], raised_by=who.id,
                                         key=idempotency_key())
        return positioned(outcome)


@blp.route("/disputes")
class Disputes(MethodView):
    @blp.arguments(DisputesQuerySchema, location="query")
    @blp.response(200, DisputesSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Disputes, oldest first, by status (the treasurer's queue)."""
        require("treasurer")
        rows = disputes(read_store(query.get("min_position")), query.get("status"))
        return {"items": [{"id": row["dispute_id"], "deal_id": row["deal_id"],
                           "raised_by": row["raised_by"], "reason": row["reason"],
                           "status": row["status"], "decision": row["decision"],
                           "note": row["note"], "corrections": row["corrections"],
                           "resolved_by": row["resolved_by"], "raised_at": row["raised_at"],
                           "resolved_at": row["resolved_at"],
                           "position": row["raised_position"]} for row in rows]}


@blp.route("/disputes/<uuid:dispute_id>/resolution")
class Resolution(MethodView):
    @blp.arguments(ResolutionSchema)
    @blp.response(200, ResolvedSchema)
    def post(self, body: dict[str, Any], dispute_id: UUID) -> dict[str, Any]:
        """The treasurer upholds (corrections are new postings) or rejects a dispute."""
        who = require("treasurer")
        outcome = ledger().resolve_dispute(str(dispute_id), decision=body["decision"],
                                           note=body["note"], corrections=body["corrections"],
                                           resolved_by=who.id, key=idempotency_key())
        return positioned(outcome)
