"""Players and their chips (API.md, Players and chips)."""

from __future__ import annotations

from datetime import UTC
from typing import Any
from uuid import UUID

from api.auth import require, require_self_or
from api.common import (
    Blueprint,
    Shown,
    creation_key,
    etag,
    idempotency_key,
    if_match,
    ledger,
    positioned,
)
from api.histories import history
from api.players.schemas import (
    AmountSchema,
    BalanceQuerySchema,
    BalanceSchema,
    ChipsMovedSchema,
    DealNetsSchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    PlayersQuerySchema,
    PlayersSchema,
    StatementQuerySchema,
    StatementSchema,
)
from api.reads import page, read_store
from api.tokens.schemas import PlayerTokenCreateSchema, TokenSchema
from application import Outcome
from domain.errors import NotAllowed
from projections.balances import players
from projections.statements import balance_at

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and chips")


@blp.command("", PlayerCreateSchema, PlayerCreatedSchema, status=201)
def register_player(body: dict[str, Any]) -> Outcome:
    """Register a player; the answer shows their token once."""
    require("operator")
    return ledger().register_player(body["name"], key=creation_key(), with_token=True)


@blp.read("/<uuid:player_id>", PlayerSchema, etag=True)
def get_player(player_id: UUID) -> Shown:
    """A player with their balance."""
    require_self_or(str(player_id), "operator")
    account = ledger().player_account(str(player_id))
    player = {"id": str(player_id), "name": account.name, "balance": account.balance}
    return player, etag(account.version)


@blp.command("/<uuid:player_id>/tokens", PlayerTokenCreateSchema, TokenSchema, status=201)
def issue_player_token(body: dict[str, Any], player_id: UUID) -> Outcome:
    """The treasurer issues a player another sign-in token, shown once: a player may hold
    several (a phone, a laptop) and lose one; revoking one leaves the others working."""
    require("treasurer")
    return ledger().create_token("player", player_id=str(player_id), label=body.get("label"),
                                 expires_at=body.get("expires_at"), key=creation_key())


def _chips_answer(outcome: Outcome) -> Shown:
    """The result with the player's ETag, their account's version after it (a receipt of
    the command recorded before the version was kept answers without one)."""
    version = outcome.result.get("version")
    return positioned(outcome), {} if version is None else etag(version)


@blp.command("/<uuid:player_id>/buy-ins", AmountSchema, ChipsMovedSchema, status=201,
             show=_chips_answer, guarded=True)
def buy_in(body: dict[str, Any], player_id: UUID) -> Outcome:
    """The treasurer issues chips to a player (R11.1)."""
    require("treasurer")
    return ledger().buy_in(str(player_id), body["amount"], key=idempotency_key(),
                           expected_version=if_match())


@blp.command("/<uuid:player_id>/cash-outs", AmountSchema, ChipsMovedSchema, status=201,
             show=_chips_answer, guarded=True)
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


@blp.read("", PlayersSchema, query=PlayersQuerySchema)
def list_players(query: dict[str, Any]) -> dict[str, Any]:
    """Players by name, or those with a word of their name that starts with `name` (any
    case: "quinn" finds Nora Quinn); cursor paging."""
    require("operator")
    rows = players(read_store(query.get("min_position")), name=query.get("name"),
                   after=None if query.get("after") is None else str(query["after"]),
                   limit=query["limit"])
    return page(rows, query["limit"], key="id")


@blp.read("/<uuid:player_id>/statement", StatementSchema, query=StatementQuerySchema, csv=True)
def player_statement(query: dict[str, Any], player_id: UUID) -> Any:
    """A player's postings with the running balance: a period, oldest or newest first, CSV."""
    require_self_or(str(player_id), "treasurer")
    ledger().player_account(str(player_id))
    return history(query, f"player:{player_id}", filename=f"statement-{player_id}.csv")


@blp.read("/<uuid:player_id>/statement/by-deal", DealNetsSchema, query=StatementQuerySchema,
          csv=True)
def player_results(query: dict[str, Any], player_id: UUID) -> Any:
    """A player's net result per deal (each posting outside deals on its own row)."""
    require_self_or(str(player_id), "treasurer")
    ledger().player_account(str(player_id))
    return history(query, f"player:{player_id}", by_deal=True,
                   filename=f"results-{player_id}.csv")
