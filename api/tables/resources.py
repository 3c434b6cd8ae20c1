"""Tables: seats, kitty, bank sales, auctions and new deals (API.md, Tables)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask.views import MethodView
from flask_smorest import Blueprint

from api.auth import principal, require, require_self_or
from api.common import etag, idempotency_key, if_match, ledger
from api.deals.presenter import deal_view
from api.deals.schemas import DealSchema
from api.reads import page, read_store
from api.schemas import CursorQuerySchema
from api.tables.presenter import table_view
from api.tables.schemas import (
    AuctionClosedSchema,
    BankSaleSchema,
    BidSchema,
    DealCreateSchema,
    EmptySchema,
    KittyHistorySchema,
    KittySchema,
    SeatSchema,
    TableCreateSchema,
    TableSchema,
)
from application import Outcome
from projections.statements import statement

blp = Blueprint("tables", __name__, url_prefix="/v1/tables", description="Tables")

Viewed = tuple[dict[str, Any], int, dict[str, str]]


def _table_answer(outcome: Outcome, status: int = 200) -> Viewed:
    table = ledger().repository.get(UUID(outcome.result["table_id"]),
                                     version=outcome.result["version"])
    return table_view(table, outcome.position), status, etag(table.version)


def _banker_or_staff(table_id: UUID) -> str:
    """The banker acts for themselves; staff act for the banker."""
    banker = ledger().table(str(table_id)).engine.banker
    require_self_or(banker, "operator")
    return banker


@blp.route("")
class Tables(MethodView):
    @blp.arguments(TableCreateSchema)
    @blp.response(201, TableSchema)
    def post(self, body: dict[str, Any]) -> Viewed:
        """Open a table with its seats, rules and pack (R3.1–R3.3, R1.7)."""
        who = require("operator")
        banker = body.get("banker")
        outcome = ledger().open_table(
            name=body["name"], seats=[str(s) for s in body["seats"]],
            banker=str(banker) if banker else None, rules=body["rules"], pack=body["pack"],
            key=idempotency_key(), actor=who.id)
        return _table_answer(outcome, 201)


@blp.route("/<uuid:table_id>")
class TableResource(MethodView):
    @blp.response(200, TableSchema)
    def get(self, table_id: UUID) -> Viewed:
        """A table: seats, banker, rules, kitty, current deal and pack commitment."""
        principal()
        table = ledger().table(str(table_id))
        return table_view(table, None), 200, etag(table.version)


@blp.route("/<uuid:table_id>/seats")
class Seats(MethodView):
    @blp.arguments(SeatSchema)
    @blp.response(200, TableSchema)
    def post(self, body: dict[str, Any], table_id: UUID) -> Viewed:
        """A player joins between deals, after `after` or in the last seat (R3.1)."""
        who = require_self_or(str(body["player_id"]), "operator")
        after = body.get("after")
        outcome = ledger().seat_player(str(table_id), str(body["player_id"]),
                                       str(after) if after else None, key=idempotency_key(),
                                       actor=who.id, expected_version=if_match())
        return _table_answer(outcome)


@blp.route("/<uuid:table_id>/seats/<uuid:player_id>")
class Seat(MethodView):
    @blp.response(200, TableSchema)
    def delete(self, table_id: UUID, player_id: UUID) -> Viewed:
        """A player leaves between deals; the banker must pass the bank first (R3.1, R8.2)."""
        who = require_self_or(str(player_id), "operator")
        outcome = ledger().remove_player(str(table_id), str(player_id), actor=who.id,
                                         expected_version=if_match())
        return _table_answer(outcome)


@blp.route("/<uuid:table_id>/kitty")
class Kitty(MethodView):
    @blp.arguments(KittySchema)
    @blp.response(200, TableSchema)
    def post(self, body: dict[str, Any], table_id: UUID) -> Viewed:
        """The banker puts up a kitty or tops it up before a deal (R9.1, R9.9)."""
        banker = _banker_or_staff(table_id)
        outcome = ledger().put_up_kitty(str(table_id), banker, body["amount"],
                                        key=idempotency_key(), actor=principal().id,
                                        expected_version=if_match())
        return _table_answer(outcome)


@blp.route("/<uuid:table_id>/bank-sales")
class BankSales(MethodView):
    @blp.arguments(BankSaleSchema)
    @blp.response(200, TableSchema)
    def post(self, body: dict[str, Any], table_id: UUID) -> Viewed:
        """The banker sells the bank to a seated player for a price (R8.2)."""
        banker = _banker_or_staff(table_id)
        outcome = ledger().sell_bank(str(table_id), str(body["buyer_id"]), body["price"],
                                     seller=banker, key=idempotency_key(),
                                     actor=principal().id, expected_version=if_match())
        return _table_answer(outcome)


@blp.route("/<uuid:table_id>/auction")
class Auction(MethodView):
    @blp.arguments(EmptySchema)
    @blp.response(200, TableSchema)
    def post(self, body: dict[str, Any], table_id: UUID) -> Viewed:
        """The banker offers the bank for sale when the kitty ran empty (R9.10)."""
        banker = _banker_or_staff(table_id)
        outcome = ledger().open_auction(str(table_id), banker, key=idempotency_key(),
                                        actor=principal().id, expected_version=if_match())
        return _table_answer(outcome)


@blp.route("/<uuid:table_id>/auction/bids")
class Bids(MethodView):
    @blp.arguments(BidSchema)
    @blp.response(200, TableSchema)
    def post(self, body: dict[str, Any], table_id: UUID) -> Viewed:
        """A seated player other than the banker bids for the bank (R9.10)."""
        who = require_self_or(str(body["player_id"]), "operator")
        outcome = ledger().bid(str(table_id), str(body["player_id"]), body["price"],
                               key=idempotency_key(), actor=who.id,
                               expected_version=if_match())
        return _table_answer(outcome)


@blp.route("/<uuid:table_id>/auction/close")
class AuctionClose(MethodView):
    @blp.arguments(EmptySchema)
    @blp.response(200, AuctionClosedSchema)
    def post(self, body: dict[str, Any], table_id: UUID) -> dict[str, Any]:
        """The banker closes the auction: the highest bid held buys the bank (R9.10)."""
        banker = _banker_or_staff(table_id)
        outcome = ledger().close_auction(str(table_id), banker, key=idempotency_key(),
                                         actor=principal().id, expected_version=if_match())
        return {"sold_to": outcome.result["sold_to"], "price": outcome.result["price"],
                "position": outcome.position}


@blp.route("/<uuid:table_id>/deals")
class Deals(MethodView):
    @blp.arguments(DealCreateSchema)
    @blp.response(201, DealSchema)
    def post(self, body: dict[str, Any], table_id: UUID) -> Viewed:
        """Start a deal: the first card goes to each player and the banker (R3.4)."""
        who = require("operator")
        outcome = ledger().start_deal(str(table_id), cards=body.get("cards"),
                                      key=idempotency_key(), actor=who.id,
                                      expected_version=if_match())
        deal = ledger().repository.get(UUID(outcome.result["deal_id"]),
                                       version=outcome.result["version"])
        return deal_view(deal, who, outcome.position), 201, etag(deal.version)


@blp.route("/<uuid:table_id>/kitty-history")
class KittyHistory(MethodView):
    @blp.arguments(CursorQuerySchema, location="query")
    @blp.response(200, KittyHistorySchema)
    def get(self, query: dict[str, Any], table_id: UUID) -> dict[str, Any]:
        """Every change of the table's kitty with its reason, rule and the kitty after it."""
        principal()
        ledger().table(str(table_id))
        rows = statement(read_store(query.get("min_position")), f"kitty:{table_id}",
                         after=query["after"], limit=query["limit"])
        return page([{"at": row["at"], "position": row["position"], "deal_id": row["deal_id"],
                      "change": row["change"], "kitty_after": row["balance_after"],
                      "reason": row["reason"], "rule": row["rule"]} for row in rows],
                    query["limit"])
