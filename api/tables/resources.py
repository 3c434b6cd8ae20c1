"""Tables: seats, kitty, bank sales, auctions and new deals (API.md, Tables)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from marshmallow import Schema

from api.auth import Forbidden, principal, require, require_self_or
from api.calendar import with_club_days
from api.common import (
    Blueprint,
    Shown,
    command_options,
    creation_key,
    etag,
    if_match,
    ledger,
    shown,
)
from api.deals.presenter import deal_answer
from api.deals.schemas import DealSchema
from api.histories import history
from api.players.schemas import DealNetsSchema
from api.reads import page, read_store
from api.schemas import CursorQuerySchema, HistoryQuerySchema
from api.tables.presenter import listed_deal, table_view
from api.tables.schemas import (
    AuctionClosedSchema,
    BankSaleSchema,
    BidSchema,
    ContributionSchema,
    DealCreateSchema,
    DealsSchema,
    EmptySchema,
    KittyHistorySchema,
    KittySchema,
    PacksSchema,
    SeatSchema,
    TableCreateSchema,
    TableDealsQuerySchema,
    TableSchema,
    TablesQuerySchema,
    TablesSchema,
)
from application import Outcome
from projections.tables import deal_page, pack_page, table_page

blp = Blueprint("tables", __name__, url_prefix="/v1/tables", description="Tables")

Body = dict[str, Any]


def _table_answer(outcome: Outcome) -> Shown:
    return shown(outcome, table_view, kind="table")


def _table_command(rule: str, body: type[Schema] | None, *, method: str = "POST") -> Any:
    """A command on a table, answered with the table as it left it and its version (ETag)."""
    return blp.command(rule, body, TableSchema, method=method, show=_table_answer, exact=True,
                       guarded=True)


def _banker_or_staff(table_id: UUID) -> str:
    """The banker acts for themselves; staff act for the banker."""
    banker = ledger().table(str(table_id)).engine.banker
    require_self_or(banker, "operator")
    return banker


def _self_or_staff(player_id: UUID) -> str:
    """A player acts for themselves; staff act for any player."""
    require_self_or(str(player_id), "operator")
    return str(player_id)


@blp.command("", TableCreateSchema, TableSchema, status=201, show=_table_answer,
             exact=True)
def open_table(body: Body) -> Outcome:
    """Open a table with its seats, rules and pack (R3.1–R3.3, R1.7); only the treasurer
    opens one with an ordered pack, whose reshuffles every player can predict."""
    who = require("operator")
    if body["pack"].get("mode") == "ordered" and who.role != "treasurer":
        raise Forbidden("only the treasurer opens a table with an ordered pack: every player "
                        "can predict its reshuffles, so it is not a fair shuffle")
    banker = body.get("banker")
    return ledger().open_table(
        name=body["name"], seats=[str(s) for s in body["seats"]],
        banker=str(banker) if banker else None, rules=body["rules"], pack=body["pack"],
        key=creation_key(), actor=who.id)


@blp.read("/<uuid:table_id>", TableSchema, etag=True)
def get_table(table_id: UUID) -> Shown:
    """A table: seats, banker, rules, kitty, current deal and pack commitment."""
    principal()
    table = ledger().table(str(table_id))
    return table_view(table, None), etag(table.version)


@_table_command("/<uuid:table_id>/seats", SeatSchema)
def seat_player(body: Body, table_id: UUID) -> Outcome:
    """A player joins between deals, after `after` or in the last seat (R3.1)."""
    player, after = _self_or_staff(body["player_id"]), body.get("after")
    return ledger().seat_player(str(table_id), player, str(after) if after else None,
                                **command_options())


@_table_command("/<uuid:table_id>/seats/<uuid:player_id>", None, method="DELETE")
def leave(table_id: UUID, player_id: UUID) -> Outcome:
    """A player leaves between deals; the banker must pass the bank first (R3.1, R8.2)."""
    return ledger().remove_player(str(table_id), _self_or_staff(player_id),
                                  actor=principal().id, expected_version=if_match())


@_table_command("/<uuid:table_id>/kitty", KittySchema)
def put_up_kitty(body: Body, table_id: UUID) -> Outcome:
    """The banker puts up a kitty or tops it up before a deal (R9.1, R9.9)."""
    return ledger().put_up_kitty(str(table_id), _banker_or_staff(table_id), body["amount"],
                                 **command_options())


@_table_command("/<uuid:table_id>/bank-sales", BankSaleSchema)
def sell_bank(body: Body, table_id: UUID) -> Outcome:
    """The banker sells the bank to a seated player for a price (R8.2)."""
    return ledger().sell_bank(str(table_id), str(body["buyer_id"]), body["price"],
                              seller=_banker_or_staff(table_id), **command_options())


@_table_command("/<uuid:table_id>/auction", EmptySchema)
def open_auction(body: Body, table_id: UUID) -> Outcome:
    """The banker offers the bank for sale when the kitty ran empty (R9.10)."""
    return ledger().open_auction(str(table_id), _banker_or_staff(table_id), **command_options())


@_table_command("/<uuid:table_id>/auction/bids", BidSchema)
def bid(body: Body, table_id: UUID) -> Outcome:
    """A seated player other than the banker bids for the bank (R9.10)."""
    return ledger().bid(str(table_id), _self_or_staff(body["player_id"]), body["price"],
                        **command_options())


@blp.command("/<uuid:table_id>/auction/close", EmptySchema, AuctionClosedSchema,
             guarded=True)
def close_auction(body: Body, table_id: UUID) -> Outcome:
    """The banker closes the auction: the highest bid held buys the bank (R9.10)."""
    return ledger().close_auction(str(table_id), _banker_or_staff(table_id),
                                  **command_options())


@blp.command("/<uuid:table_id>/contributions", ContributionSchema, TableSchema, status=201,
             show=_table_answer, exact=True, guarded=True)
def contribute(body: Body, table_id: UUID) -> Outcome:
    """A seated player adds randomness of their own to the pack, between its commitment and
    its first card, once a pack (R1.7): the pack is shuffled with the seed mixed from both."""
    who = principal()
    player_id = str(body["player_id"])
    if who.role != "player" or who.player_id != player_id:
        raise Forbidden("a contribution is the player's own: only their own token adds it")
    return ledger().contribute(str(table_id), player_id, body["value"], **command_options())


@blp.command("/<uuid:table_id>/deals", DealCreateSchema, DealSchema, status=201,
             show=deal_answer, exact=True, guarded=True)
def start_deal(body: Body, table_id: UUID) -> Outcome:
    """Start a deal: the first card goes to each player and the banker (R3.4)."""
    require("operator")
    return ledger().start_deal(str(table_id), cards=body.get("cards"), **command_options())


@blp.read("", TablesSchema, query=TablesQuerySchema)
def list_tables(query: dict[str, Any]) -> dict[str, Any]:
    """Tables, the last opened first, or those whose name starts with `name` (staff: a
    player reads the tables they know of one by one, decision 80)."""
    require("operator")
    rows = table_page(read_store(query.get("min_position")), name=query.get("name"),
                      after=None if query.get("after") is None else str(query["after"]),
                      limit=query["limit"])
    return page(with_club_days(rows, "opened_at"), query["limit"], key="table_id")


@blp.read("/<uuid:table_id>/deals", DealsSchema, query=TableDealsQuerySchema)
def list_deals(query: dict[str, Any], table_id: UUID) -> dict[str, Any]:
    """Every deal of the table by number, those started in a period, in either order (staff:
    a player reads only the deals they play in, decision 80)."""
    require("operator")
    ledger().table(str(table_id))
    rows = deal_page(read_store(query.get("min_position")), str(table_id),
                     start=query.get("start"), end=query.get("end"),
                     descending=query["order"] == "desc", after=query.get("after"),
                     limit=query["limit"])
    return page(with_club_days([listed_deal(row) for row in rows], "started_at"),
                query["limit"], key="number")


@blp.read("/<uuid:table_id>/packs", PacksSchema, query=CursorQuerySchema)
def list_packs(query: dict[str, Any], table_id: UUID) -> dict[str, Any]:
    """Every pack the table has shuffled, oldest first: its commitment, and its seed once
    the next shuffle revealed it (R1.7), so anyone can re-run each shuffle and check the
    cards dealt from it."""
    principal()
    table = ledger().table(str(table_id))
    rows = pack_page(read_store(query.get("min_position")), str(table_id),
                     after=query["after"], limit=query["limit"])
    return {**page(rows, query["limit"], key="shuffled_position"),
            "fair_shuffle": table.engine.fair_shuffle}


@blp.read("/<uuid:table_id>/kitty-history", KittyHistorySchema, query=HistoryQuerySchema,
          csv=True)
def kitty_history(query: dict[str, Any], table_id: UUID) -> Any:
    """Every change of the table's kitty with its reason, rule and the kitty after it."""
    principal()
    ledger().table(str(table_id))
    return history(query, f"kitty:{table_id}", filename=f"kitty-{table_id}.csv")


@blp.read("/<uuid:table_id>/kitty-history/by-deal", DealNetsSchema, query=HistoryQuerySchema,
          csv=True)
def kitty_by_deal(query: dict[str, Any], table_id: UUID) -> Any:
    """The kitty's net change per deal (put-ups and corrections on rows of their own)."""
    principal()
    ledger().table(str(table_id))
    return history(query, f"kitty:{table_id}", by_deal=True,
                   filename=f"kitty-by-deal-{table_id}.csv")
