"""Players and their chips (API.md, Players and chips)."""

from __future__ import annotations

from datetime import UTC
from typing import Any
from uuid import UUID

from flask.views import MethodView
from flask_smorest import Blueprint

from api.auth import require, require_self_or
from api.common import etag, idempotency_key, ledger, positioned
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
from domain.errors import NotAllowed
from projections.statements import balance_at, statement

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and chips")


@blp.route("")
class Players(MethodView):
    @blp.arguments(PlayerCreateSchema)
    @blp.response(201, PlayerCreatedSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a player; the answer shows their token once."""
        require("operator")
        outcome = ledger().register_player(body["name"], key=idempotency_key(),
                                           with_token=True)
        return positioned(outcome)


@blp.route("/<uuid:player_id>")
class Player(MethodView):
    @blp.response(200, PlayerSchema)
    def get(self, player_id: UUID) -> tuple[dict[str, Any], int, dict[str, str]]:
        """A player with their balance."""
        require_self_or(str(player_id), "operator")
        account = ledger().player_account(str(player_id))
        body = {"id": str(player_id), "name": account.name, "balance": account.balance}
        return body, 200, etag(account.version)


@blp.route("/<uuid:player_id>/buy-ins")
class BuyIns(MethodView):
    @blp.arguments(AmountSchema)
    @blp.response(201, ChipsMovedSchema)
    def post(self, body: dict[str, Any], player_id: UUID) -> dict[str, Any]:
        """The treasurer issues chips to a player (R11.1)."""
        require("treasurer")
        outcome = ledger().buy_in(str(player_id), body["amount"], key=idempotency_key())
        return positioned(outcome)


@blp.route("/<uuid:player_id>/cash-outs")
class CashOuts(MethodView):
    @blp.arguments(AmountSchema)
    @blp.response(201, ChipsMovedSchema)
    def post(self, body: dict[str, Any], player_id: UUID) -> dict[str, Any]:
        """The treasurer redeems a player's chips; 422 if more than the balance (R11.2)."""
        require("treasurer")
        outcome = ledger().cash_out(str(player_id), body["amount"], key=idempotency_key())
        return positioned(outcome)


@blp.route("/<uuid:player_id>/balance")
class Balance(MethodView):
    @blp.arguments(BalanceQuerySchema, location="query")
    @blp.response(200, BalanceSchema)
    def get(self, query: dict[str, Any], player_id: UUID) -> dict[str, Any]:
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


@blp.route("/<uuid:player_id>/statement")
class Statement(MethodView):
    @blp.arguments(CursorQuerySchema, location="query")
    @blp.response(200, StatementSchema)
    def get(self, query: dict[str, Any], player_id: UUID) -> dict[str, Any]:
        """A player's postings, oldest first, each with the running balance (cursor paging)."""
        require_self_or(str(player_id), "treasurer")
        ledger().player_account(str(player_id))
        rows = statement(read_store(query.get("min_position")), f"player:{player_id}",
                         after=query["after"], limit=query["limit"])
        return page([entry(row) for row in rows], query["limit"])


def entry(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["posting_id"], "at": row["at"], "position": row["position"],
            "from_account": row["from_account"], "to_account": row["to_account"],
            "amount": row["amount"], "change": row["change"], "balance": row["balance_after"],
            "rule": row["rule"], "deal_id": row["deal_id"], "hand": row["hand"],
            "reason": row["reason"]}
