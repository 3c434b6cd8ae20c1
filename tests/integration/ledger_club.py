"""The scenario runner's club interface over the event-sourced Ledger, so the same scenario
files play through the real stores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from application import Ledger
from domain.engine.deal import Deal
from domain.engine.table import Table


class LedgerClub:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.tables = 0

    def register_player(self, name: str) -> str:
        return str(self.ledger.register_player(name).result["id"])

    def buy_in(self, player_id: str, amount: int) -> None:
        self.ledger.buy_in(player_id, amount)

    def open_table(self, name: str, seats: Sequence[str], *, banker: str | None = None,
                   rules: Mapping[str, Any] | None = None,
                   pack: Mapping[str, Any] | None = None) -> str:
        # Open tables have unique names (decision 143): the rules' tests open several "t".
        self.tables += 1
        return str(self.ledger.open_table(name=f"{name} {self.tables}", seats=seats,
                                          banker=banker, rules=rules, pack=pack
                                          ).result["table_id"])

    def start_deal(self, table_id: str) -> str:
        return str(self.ledger.start_deal(table_id).result["deal_id"])

    def act(self, deal_id: str, player_id: str, action: str, *, hand: int | None = None,
            amount: int | None = None) -> None:
        self.ledger.act(deal_id, player_id, action, hand=hand, amount=amount)

    def put_up_kitty(self, table_id: str, player_id: str, amount: int) -> None:
        self.ledger.put_up_kitty(table_id, player_id, amount)

    def sell_bank(self, table_id: str, buyer: str, price: int) -> None:
        self.ledger.sell_bank(table_id, buyer, price)

    def seat(self, table_id: str, player_id: str, after: str | None = None) -> None:
        self.ledger.seat_player(table_id, player_id, after)

    def leave(self, table_id: str, player_id: str) -> None:
        self.ledger.remove_player(table_id, player_id)

    def open_auction(self, table_id: str, player_id: str) -> None:
        self.ledger.open_auction(table_id, player_id)

    def bid(self, table_id: str, player_id: str, price: int) -> None:
        self.ledger.bid(table_id, player_id, price)

    def close_auction(self, table_id: str, player_id: str) -> tuple[str | None, int | None]:
        result = self.ledger.close_auction(table_id, player_id).result
        return result["sold_to"], result["price"]

    def chips(self, player_id: str) -> int:
        return self.ledger.player_account(player_id).balance

    def table(self, table_id: str) -> Table:
        return self.ledger.table(table_id).engine

    def deal(self, deal_id: str) -> Deal:
        return self.ledger.deal(deal_id).engine

    def total(self) -> int:
        raise NotImplementedError("the balances projection answers this (projections issue)")
