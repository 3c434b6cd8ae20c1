"""Disputes: raised about a deal, resolved by the treasurer with correcting postings (R11.4)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.auth import principal, require, require_seat_in
from api.common import Blueprint, idempotency_key, ledger
from api.disputes.schemas import (
    DisputeCreatedSchema,
    DisputeCreateSchema,
    DisputesQuerySchema,
    DisputesSchema,
    ResolutionSchema,
    ResolvedSchema,
)
from api.reads import page, read_store
from application import Outcome
from projections.disputes import dispute_page

blp = Blueprint("disputes", __name__, url_prefix="/v1", description="Disputes")


@blp.command("/deals/<uuid:deal_id>/disputes", DisputeCreateSchema, DisputeCreatedSchema,
             status=201)
def raise_dispute(body: dict[str, Any], deal_id: UUID) -> Outcome:
    """A player of the deal, an operator or the treasurer raises a dispute."""
    who = principal()
    engine = ledger().deal(str(deal_id)).engine
    require_seat_in(who, engine,
                    "only players of this deal, operators and the treasurer dispute it")
    return ledger().raise_dispute(str(deal_id), body["reason"], raised_by=who.id,
                                  key=idempotency_key())


@blp.read("/disputes", DisputesSchema, query=DisputesQuerySchema)
def dispute_queue(query: dict[str, Any]) -> dict[str, Any]:
    """Disputes, oldest first, by status and deal (the treasurer's queue); cursor paging."""
    require("treasurer")
    deal_id = query.get("deal_id")
    rows = dispute_page(read_store(query.get("min_position")), status=query.get("status"),
                        deal_id=None if deal_id is None else str(deal_id),
                        after=query.get("after"), limit=query["limit"])
    return page(rows, query["limit"], key="raised_position")


@blp.command("/disputes/<uuid:dispute_id>/resolution", ResolutionSchema, ResolvedSchema)
def resolve_dispute(body: dict[str, Any], dispute_id: UUID) -> Outcome:
    """The treasurer upholds (corrections are new postings) or rejects a dispute."""
    who = require("treasurer")
    return ledger().resolve_dispute(str(dispute_id), decision=body["decision"],
                                    note=body["note"], corrections=body["corrections"],
                                    resolved_by=who.id, key=idempotency_key())
