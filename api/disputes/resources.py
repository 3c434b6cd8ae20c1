"""Disputes: raised about a deal, resolved by the treasurer with correcting postings (R11.4)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.auth import principal, require, require_seat_in
from api.calendar import day_texts, with_club_days
from api.common import Blueprint, Shown, etag, idempotency_key, if_match, ledger
from api.disputes.schemas import (
    DisputeCreatedSchema,
    DisputeCreateSchema,
    DisputeDetailSchema,
    DisputesQuerySchema,
    DisputesSchema,
    ResolutionSchema,
    ResolvedSchema,
)
from api.reads import names, page, read_store
from api.schemas import MinPositionSchema
from application import Outcome
from domain.errors import NotFound
from projections.disputes import dispute_detail, dispute_page

blp = Blueprint("disputes", __name__, url_prefix="/v1", description="Disputes")


@blp.command("/deals/<uuid:deal_id>/disputes", DisputeCreateSchema, DisputeCreatedSchema,
             status=201, guarded=True)
def raise_dispute(body: dict[str, Any], deal_id: UUID) -> Outcome:
    """A player of the deal, an operator or the treasurer raises a dispute."""
    who = principal()
    engine = ledger().deal(str(deal_id)).engine
    require_seat_in(who, engine,
                    "only players of this deal, operators and the treasurer dispute it")
    return ledger().raise_dispute(str(deal_id), body["reason"], raised_by=who.id,
                                  key=idempotency_key(), expected_version=if_match())


@blp.read("/disputes", DisputesSchema, query=DisputesQuerySchema)
def dispute_queue(query: dict[str, Any]) -> dict[str, Any]:
    """Disputes, oldest first, by status and deal: the treasurer's queue, or for a player
    the disputes on the deals they played in (whoever raised them); cursor paging."""
    who = require("treasurer", "player")
    deal_id = query.get("deal_id")
    rows = dispute_page(read_store(query.get("min_position")), status=query.get("status"),
                        deal_id=None if deal_id is None else str(deal_id),
                        player_id=who.player_id, after=query.get("after"),
                        limit=query["limit"])
    return page(with_club_days(rows, "raised_at"), query["limit"], key="raised_position")


@blp.command("/disputes/<uuid:dispute_id>/resolution", ResolutionSchema, ResolvedSchema,
             guarded=True)
def resolve_dispute(body: dict[str, Any], dispute_id: UUID) -> Outcome:
    """The treasurer upholds (corrections are new postings) or rejects a dispute."""
    who = require("treasurer")
    return ledger().resolve_dispute(
        str(dispute_id), decision=body["decision"], note=body["note"],
        corrections=body["corrections"], allow_debt=body["allow_debt"], resolved_by=who.id,
        key=idempotency_key(), expected_version=if_match())


@blp.read("/disputes/<uuid:dispute_id>", DisputeDetailSchema, query=MinPositionSchema,
          etag=True)
def get_dispute(query: dict[str, Any], dispute_id: UUID) -> Shown:
    """A dispute, its resolution and its correcting postings: for staff and the players of
    the disputed deal. The ETag is the version shown (If-Match on its resolution)."""
    who = principal()
    deal_id = ledger().dispute(str(dispute_id)).deal_id
    require_seat_in(who, ledger().deal(deal_id).engine,
                    "a player sees the disputes of the deals they play in")
    found = dispute_detail(read_store(query.get("min_position")), str(dispute_id),
                           names=names())
    if found is None:
        raise NotFound(f"dispute {dispute_id} is not in the read models yet; retry with "
                       "min_position")
    found["club_day"] = day_texts()(found["raised_at"])
    return found, etag(found["version"])
