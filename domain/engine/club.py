"""A whole club in memory: players, chips, tables and deals, driven through the pure engine.

It plays the part the event-sourced application plays in production (load, decide, record)
without a store, for the demonstration game, the scenario tests, property tests and the
engine benchmark. Randomness comes in through `new_seed`; nothing here reads a clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import count
from typing import Any, TypeVar

from domain.engine import facts as f
from domain.engine.deal import Deal
from domain.engine.legal import LegalAction, legal_actions
from domain.engine.postings import TREASURY, Posting, player_account
from domain.engine.shuffle import derived_seed
from domain.engine.table import Table
from domain.errors import InsufficientChips, NotAllowed, NotFound

T = TypeVar("T")


def _counter_seeds(label: str) -> Callable[[], str]:
    numbers: Iterator[int] = count(1)
    return lambda: derived_seed(label, next(numbers))


def _known(items: Mapping[str, T], key: str, what: str) -> T:
    """The player, table or deal under `key`; an unknown one is not found."""
    try:
        return items[key]
    except KeyError:
        raise NotFound(f"no {what} {key}") from None


class Club:
    def __init__(self, new_seed: Callable[[], str] | None = None) -> None:
        self.new_seed = new_seed or _counter_seeds("club-demo-seed")
        self._ids: Iterator[int] = count(1)
        self.names: dict[str, str] = {}
        self.balances: dict[str, int] = {TREASURY: 0}
        self.tables: dict[str, Table] = {}
        self.deals: dict[str, Deal] = {}
        self.log: list[tuple[str, f.Fact]] = []  # (stream id, fact) in the order recorded
        self.postings: list[Posting] = []

    # --- chips -------------------------------------------------------------------------

    def register_player(self, name: str) -> str:
        player_id = f"p{next(self._ids)}"
        self.names[player_id] = name
        self.balances[player_account(player_id)] = 0
        return player_id

    def buy_in(self, player_id: str, amount: int) -> Posting:
        self._player(player_id)
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            raise NotAllowed("a buy-in is a positive whole number of chips (R11.1)", "R11.1")
        posting = Posting(TREASURY, player_account(player_id), amount, "R11.1",
                          f"the treasurer issues {amount} chips to {self.names[player_id]}")
        self._post([posting])
        return posting

    def cash_out(self, player_id: str, amount: int) -> Posting:
        held = self.chips(player_id)
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            raise NotAllowed("a cash-out is a positive whole number of chips (R11.1)", "R11.1")
        if amount > held:
            raise InsufficientChips(f"{player_id} holds {held} chips and cannot cash out "
                                    f"{amount} (R11.2)")
        posting = Posting(player_account(player_id), TREASURY, amount, "R11.1",
                          f"the treasurer redeems {amount} chips from {self.names[player_id]}")
        self._post([posting])
        return posting

    def chips(self, player_id: str) -> int:
        self._player(player_id)
        return self.balances[player_account(player_id)]

    def chips_of(self, players: Sequence[str]) -> dict[str, int]:
        return {p: self.chips(p) for p in players}

    def total(self) -> int:
        return sum(self.balances.values())

    # --- tables ------------------------------------------------------------------------

    def open_table(self, name: str, seats: Sequence[str], *, banker: str | None = None,
                   rules: Mapping[str, Any] | None = None,
                   pack: Mapping[str, Any] | None = None) -> str:
        for seat in seats:
            self._player(seat)
        table_id = f"t{next(self._ids)}"
        table, facts = Table.open(table_id=table_id, name=name, seats=seats, banker=banker,
                                  rules=rules, pack=pack, seed=self.new_seed())
        self.tables[table_id] = table
        self._record(table_id, facts)
        return table_id

    def table(self, table_id: str) -> Table:
        return _known(self.tables, table_id, "table")

    def seat(self, table_id: str, player_id: str, after: str | None = None) -> None:
        self._player(player_id)
        self._record(table_id, self.table(table_id).seat(player_id, after))

    def leave(self, table_id: str, player_id: str) -> None:
        self._record(table_id, self.table(table_id).leave(player_id))

    def put_up_kitty(self, table_id: str, player_id: str, amount: int) -> None:
        table = self.table(table_id)
        self._record(table_id, table.put_up_kitty(player_id, amount, self.chips(player_id)))

    def sell_bank(self, table_id: str, buyer: str, price: int) -> None:
        table = self.table(table_id)
        self._record(table_id, table.sell_bank(buyer, price, self.chips(buyer)))

    def open_auction(self, table_id: str, player_id: str) -> None:
        self._record(table_id, self.table(table_id).open_auction(player_id))

    def bid(self, table_id: str, player_id: str, price: int) -> None:
        self._record(table_id, self.table(table_id).bid(player_id, price, self.chips(player_id)))

    def close_auction(self, table_id: str, player_id: str) -> tuple[str | None, int | None]:
        table = self.table(table_id)
        facts = table.close_auction(player_id, self.chips_of(table.seats))
        self._record(table_id, facts)
        closed = facts[0]
        assert isinstance(closed, f.AuctionClosed)
        return closed.sold_to, closed.price

    # --- deals -------------------------------------------------------------------------

    def start_deal(self, table_id: str, cards: Sequence[str] | None = None) -> str:
        table = self.table(table_id)
        deal_id = f"d{next(self._ids)}"
        deal, table_facts, deal_facts = table.start_deal(
            deal_id=deal_id, chips=self.chips_of(table.seats), seed=self.new_seed(),
            cards=cards)
        self.deals[deal_id] = deal
        self._record(table_id, table_facts)
        self._record(deal_id, deal_facts)
        self._end_if_over(deal)
        return deal_id

    def deal(self, deal_id: str) -> Deal:
        return _known(self.deals, deal_id, "deal")

    def act(self, deal_id: str, player_id: str, action: str, *, hand: int | None = None,
            amount: int | None = None, cards: Sequence[str] | None = None) -> list[f.Fact]:
        deal = self.deal(deal_id)
        held = self.balances.get(player_account(player_id))
        facts = deal.act(player_id, action, hand=hand, amount=amount, cards=cards, chips=held,
                         holdings=self.chips_of(deal.still_to_stake()))
        self._record(deal_id, facts)
        self._end_if_over(deal)
        return facts

    def legal_actions(self, deal_id: str) -> list[LegalAction]:
        deal = self.deal(deal_id)
        turn = deal.turn
        return legal_actions(deal, self.chips_of([turn[0]]) if turn else None)

    # --- recording ---------------------------------------------------------------------

    def _end_if_over(self, deal: Deal) -> None:
        if deal.is_over:
            self._record(deal.table_id, self.tables[deal.table_id].end_deal(deal))

    def _record(self, stream: str, facts: Sequence[f.Fact]) -> None:
        for fact in facts:
            self.log.append((stream, fact))
            self._post(fact.carried_postings())

    def _post(self, postings: Sequence[Posting]) -> None:
        for posting in postings:
            self.balances[posting.from_account] = self.balances.get(posting.from_account, 0) \
                - posting.amount
            self.balances[posting.to_account] = self.balances.get(posting.to_account, 0) \
                + posting.amount
            self.postings.append(posting)

    def _player(self, player_id: str) -> None:
        _known(self.names, player_id, "player")
