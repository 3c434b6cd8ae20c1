"""Players and their chips (API.md, Players and chips)."""

from __future__ import annotations

from datetime import UTC
from typing import Any
from uuid import UUID

from api.auth import require, require_self_or
from api.common import Blueprint, Shown, etag, idempotency_key, if_match, ledger
from api.players.schemas import (
    AmountSchema,
    BalanceQuerySchema,
    BalanceSchema,
    ChipsMovedSchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    StatementSchema,
)
from api.reads import page, read_store
from api.schemas import CursorQuerySchema
from application import Outcome
from domain.errors import NotAllowed
from projections.statements import balance_at, statement

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and chips")


@blp.command("", PlayerCreateSchema, PlayerCreatedSchema, status=201)
def register_player(body: dict[str, Any]) -> Outcome:
    """Register a player; the answer shows their token once."""
    require("operator")
    return ledger().register_player(body["name"], key=idempotency_key(), with_token=True)


@blp.read("/<uuid:player_id>", PlayerSchema)
def get_player(player_id: UUID) -> Shown:
    """A player with their balance."""
    require_self_or(str(player_id), "operator")
    account = ledger().player_account(str(player_id))
    player = {"id": str(player_id), "name": account.name, "balance": account.balance}
    return player, etag(account.version)


@blp.command("/<uuid:player_id>/buy-ins", AmountSchema, ChipsMovedSchema, status=201)
def buy_in(body: dict[str, Any], player_id: UUID) -> Outcome:
    """The treasurer issues chips to a player (R11.1)."""
    require("treasurer")
    return ledger().buy_in(str(player_id), body["amount"], key=idempotency_key(),
                           expected_version=if_match())


@blp.command("/<uuid:player_id>/cash-outs", AmountSchema, ChipsMovedSchema, status=201)
def cash_out(body: dict[str, Any], player_id: UUID) -> Outcome:
    """The treasurer redeems a player's chips; 422 if more than the balance (R11.2)."""
    require("treasurer")
    return ledger().cash_out(str(player_id), body["amount"], key=idempotency_key(),
                             expected_version=if_match())


@blp.read("/<uuid:player_id>/balance", BalanceSchema, query=BalanceQuerySchema)
def player_balance(query: dict[str, Any], player_id: UUID) -> dict[str, Any]:
    """A player's balance, now or at a past time (`as_of`) or log position (`position`)."""
    require_self_or(str(player_id), "operator")
    account = ledger().player_account(str(player_id))
    position, as_of = query.get("position"), query.get("as_of")
    if position is None and as_of is None:
        return {"player_id": str(player_id), "balance": account.balance,
                "position": ledger().recorder.max_notification_id()}
    name = f"player:{player_id}"
    if position is not None:
        balance = balance_at(read_store(position), name, position=position)
    else:
        try:
            when = as_of.astimezone(UTC).isoformat(timespec="microseconds")
        except OverflowError:
            raise NotAllowed("as_of is outside the years the ledger can record") from None
        balance = balance_at(read_store(query.get("min_position")), name, time=when)
    return {"player_id": str(player_id), "balance": balance, "position": position}


@blp.read("/<uuid:player_id>/statement", StatementSchema, query=CursorQuerySchema)
def player_statement(query: dict[str, Any], player_id: UUID) -> dict[str, Any]:
    """A player's postings, oldest first, each with the running balance (cursor paging)."""
    require_self_or(str(player_id), "treasurer")
    ledger().player_account(str(player_id))
    rows = statement(read_store(query.get("min_position")), f"player:{player_id}",
                     after=query["after"], limit=query["limit"])
    return page(rows, query["limit"])
