"""Deals: the live view and the actions of API.md (R3–R10)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.auth import Forbidden, principal, require_seat_in
from api.common import Blueprint, Shown, command_options, etag, ledger
from api.deals.history_schemas import HandHistorySchema
from api.deals.presenter import deal_answer, deal_view
from api.deals.schemas import ActionSchema, AuditSchema, DealSchema, LegalActionsSchema
from api.reads import names, read_store
from api.schemas import MinPositionSchema
from application import Outcome
from domain.engine.legal import blind_actions, legal_actions
from domain.errors import NotFound
from projections.audit import audit
from projections.hand_history import hand_history

blp = Blueprint("deals", __name__, url_prefix="/v1/deals", description="Deals and actions")


@blp.read("/<uuid:deal_id>", DealSchema, etag=True)
def get_deal(deal_id: UUID) -> Shown:
    """The deal as this viewer may see it: others' face-down cards are null."""
    who = principal()
    deal = ledger().deal(str(deal_id))
    require_seat_in(who, deal.engine, "a player sees only the deals they play in")
    return deal_view(deal, who, None), etag(deal.version)


@blp.command("/<uuid:deal_id>/actions", ActionSchema, DealSchema, show=deal_answer,
             exact=True, guarded=True)
def act(body: dict[str, Any], deal_id: UUID) -> Outcome:
    """One action of a player or the banker; the service deals the cards it needs."""
    who = principal()
    player_id = str(body["player_id"])
    if who.role == "player" and who.player_id != player_id:
        raise Forbidden("a player acts only for their own seat")
    cards = body.get("cards")
    if body.get("card") is not None:
        cards = [body["card"], *(cards or [])]
    return ledger().act(str(deal_id), player_id, body["action"], hand=body.get("hand"),
                        amount=body.get("amount"), cards=cards, **command_options())


@blp.read("/<uuid:deal_id>/audit", AuditSchema, query=MinPositionSchema)
def deal_audit(query: dict[str, Any], deal_id: UUID) -> dict[str, Any]:
    """The dispute audit: timeline, postings explained by rule, pack commitment and seed,
    and a verification that decides the deal again from its events."""
    who = principal()
    engine = ledger().deal(str(deal_id)).engine
    require_seat_in(who, engine, "a player sees the audits of the deals they played in")
    found = audit(read_store(query.get("min_position")), str(deal_id), names=names())
    if found is None:
        raise NotFound(f"the audit of deal {deal_id} is not built yet; retry with "
                       "min_position")
    return found


@blp.read("/<uuid:deal_id>/history", HandHistorySchema, query=MinPositionSchema)
def deal_hand_history(query: dict[str, Any], deal_id: UUID) -> dict[str, Any]:
    """The hand history of a settled or void deal, for anyone who may read its audit: every
    event with its stored bytes, the pack's commitment, seed once revealed and the players'
    contributions, every draw with its place in the pack, the postings, and the signed
    checkpoint with inclusion proofs; the page /verify/ checks it (R1.7)."""
    who = principal()
    engine = ledger().deal(str(deal_id)).engine
    require_seat_in(who, engine, "a player reads the histories of the deals they played in")
    found = hand_history(ledger(), read_store(query.get("min_position")), str(deal_id),
                         names=names())
    if found is None:
        raise NotFound(f"the history of deal {deal_id} is not built yet; retry with "
                       "min_position")
    return found


@blp.read("/<uuid:deal_id>/legal-actions", LegalActionsSchema)
def deal_legal_actions(deal_id: UUID) -> dict[str, Any]:
    """What may be done now: who, which hand, which actions and amounts (chips held).

    To staff at a table whose cards they cannot see, the actions are those that do not
    depend on face-down cards (`complete` is false); the holder sees them all."""
    who = principal()
    engine = ledger().deal(str(deal_id)).engine
    turn = engine.turn
    require_seat_in(who, engine, "a player sees only the deals they play in")
    if who.role == "player" and (turn is None or turn[0] != who.player_id):
        return {"phase": engine.phase, "items": [], "complete": True}
    chips = {turn[0]: ledger().player_account(turn[0]).balance} if turn else None
    blind = who.is_staff and engine.pack is not None  # staff do not see face-down cards
    actions = blind_actions(engine, chips) if blind else legal_actions(engine, chips)
    return {"phase": engine.phase, "complete": not blind,
            "items": [{"player_id": a.player, "hand": a.hand, "action": a.action,
                       "amount_min": a.amount_min, "amount_max": a.amount_max}
                      for a in actions]}
