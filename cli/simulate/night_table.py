"""One table of a simulated club night, played through the real `Ledger` in this process.

Between deals the short buy chips (R3.5, R11.1), the banker now and then sells the bank
(R8.2) and, at Shoot Pontoon, puts up or tops up the kitty (R9.1, R9.9), now and then
offering the bank at an auction when the kitty ran empty (R9.10). Each seat plays with
`domain.engine.strategy.choose` on the deal the ledger answered, within the chips the
ledger says it holds. At the end of the night the banker passes the bank on, taking back
what is left in the kitty (R9.11), so no chips stay on a table overnight.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cli.simulate.books import OPERATOR, Books
from domain.aggregates import DealAggregate, TableAggregate
from domain.engine.legal import legal_actions
from domain.engine.strategy import choose
from domain.errors import PontoonError, present

KITTIES = (10, 15, 20, 30, 40)  # a new kitty, clamped to the table's kitty_min..kitty_max (R9.1)
TOP_UP_CHANCE = 0.3  # a low kitty is topped up this often (else it may run empty, R9.10)
AUCTION_CHANCE = 0.3  # an empty kitty is offered at an auction this often (R9.10)
SALE_CHANCE = 0.015  # the banker sells the bank after a deal this often (R8.2)
STACK = (100, 300)  # what a player buys at the table when short (a range, in chips)
MOST_ACTIONS = 200  # a deal still open after this many actions is a fault of the bots


def player(player_id: str) -> str:
    return f"player:{player_id}"


class TablePlay:
    """A table of the night: opened for the first players to arrive, played until it ends."""

    def __init__(self, books: Books, name: str, rules: Mapping[str, Any],
                 seats: Sequence[str]) -> None:
        self.books, self.ledger, self.rng = books, books.ledger, books.rng
        outcome = self.ledger.open_table(name=name, seats=list(seats), rules=dict(rules),
                                         pack={"mode": "shuffled"}, actor=OPERATOR)
        self.table_id = str(outcome.result["table_id"])
        self.table: TableAggregate = books.table_after(outcome, self.table_id)
        self.leaving: set[str] = set()  # players who go home at the next pause
        books.tally.tables_opened += 1

    @property
    def seats(self) -> list[str]:
        return list(self.table.engine.seats)

    @property
    def banker(self) -> str:
        return str(self.table.engine.banker)

    def _table_command(self, command: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        """A table command by whoever it names; False (counted) when the ledger refused."""
        try:
            outcome = self.books.absorb(command(self.table_id, *args, **kwargs))
        except PontoonError:
            self.books.tally.refusals += 1
            return False
        self.table = self.books.table_after(outcome, self.table_id)
        return True

    # --- players come and go -----------------------------------------------------------

    def seat(self, player_id: str) -> None:
        self._table_command(self.ledger.seat_player, player_id, actor=OPERATOR)

    def let_go(self) -> list[str]:
        """Players who asked to go home leave now (the banker passes the bank first, R8.2);
        returns those who left."""
        gone = []
        for player_id in sorted(self.leaving & set(self.seats)):
            if len(self.seats) <= 2:
                break  # the last two play on until the table ends
            if player_id == self.banker and not self._pass_the_bank():
                continue
            if self._table_command(self.ledger.remove_player, player_id, actor=OPERATOR):
                gone.append(player_id)
        self.leaving -= set(gone)
        return gone

    def _pass_the_bank(self) -> bool:
        """R8.2: the banker sells the bank to the neighbour who holds the price, for a
        token price, taking back the kitty as the old banker (R9.11)."""
        banker = self.banker
        buyers = [p for p in self.seats if p != banker and self.books.chips.get(p, 0) >= 1]
        if not buyers:
            return False
        buyer = buyers[0]
        price = min(self.books.chips[buyer], self.rng.randint(1, 5))
        if not self._table_command(self.ledger.sell_bank, buyer, price, seller=banker,
                                   actor=player(banker)):
            return False
        self.books.tally.sales += 1
        return True

    def wind_up(self) -> None:
        """The table ends: the kitty goes back to its banker by passing the bank (R9.11)."""
        if self.table.engine.kitty > 0:
            self._pass_the_bank()

    # --- between deals -----------------------------------------------------------------

    def between_deals(self) -> None:
        """Chips for the short, now and then a bank sale, and the kitty (R3.5, R8.2, R9)."""
        rules = self.table.engine.rules
        floor = max(rules.min_stake, 3 * rules.max_stake)
        for seat in self.seats:
            if seat != self.banker and self.books.chips.get(seat, 0) < floor:
                self.books.buy_in(seat, self.rng.randint(*STACK) - self.books.chips[seat])
        if self.rng.random() < SALE_CHANCE:
            self._pass_the_bank()
        if rules.shoot:
            self._kitty()

    def _kitty(self) -> None:
        engine = self.table.engine
        rules, banker = engine.rules, engine.banker
        if engine.kitty == 0 and engine.kitty_emptied and not engine.auction_failed \
                and self.rng.random() < AUCTION_CHANCE:
            self._auction()
            engine = self.table.engine
            banker = engine.banker
        if engine.kitty == 0:
            amount = min(max(self.rng.choice(KITTIES), rules.kitty_min), rules.kitty_max)
        elif engine.kitty < max(rules.kitty_min, rules.kitty_max // 5) \
                and self.rng.random() < TOP_UP_CHANCE:
            amount = min(rules.kitty_max - engine.kitty, max(KITTIES))
        else:
            return
        if amount <= 0:
            return
        held = self.books.chips.get(banker, 0)
        if held < amount:
            self.books.buy_in(banker, amount - held + self.rng.randint(*STACK))
        if self._table_command(self.ledger.put_up_kitty, banker, amount,
                               actor=player(banker)):
            self.books.tally.kitties += 1

    def _auction(self) -> None:
        """R9.10: the kitty ran empty; the banker offers the bank to the highest bidder."""
        banker = self.banker
        if not self._table_command(self.ledger.open_auction, banker, actor=player(banker)):
            return
        self.books.tally.auctions += 1
        for seat in self.seats:
            held = self.books.chips.get(seat, 0)
            if seat != banker and held >= 5 and self.rng.random() < 0.6:
                self._table_command(self.ledger.bid, seat, self.rng.randint(5, min(30, held)),
                                    actor=player(seat))
        self._table_command(self.ledger.close_auction, banker, actor=player(banker))

    # --- a deal ------------------------------------------------------------------------

    def play_deal(self) -> DealAggregate | None:
        """Start a deal and play it to its end; None when the ledger would not start one."""
        try:
            outcome = self.books.absorb(self.ledger.start_deal(self.table_id, actor=OPERATOR))
        except PontoonError:
            self.books.tally.refusals += 1
            return None
        deal_id = str(outcome.result["deal_id"])
        deal = self.books.deal_after(outcome, deal_id)
        for _ in range(MOST_ACTIONS):
            if deal.engine.is_over:
                break
            deal, outcome = self._act(deal_id, deal)
        else:
            raise RuntimeError(f"deal {deal_id} is still open after {MOST_ACTIONS} actions")
        self.table = self.books.table_after(outcome, self.table_id)
        tally = self.books.tally
        if deal.engine.phase == "void":
            tally.void += 1
        else:
            tally.settled += 1
        return deal

    def _act(self, deal_id: str, deal: DealAggregate) -> tuple[DealAggregate, Any]:
        engine = deal.engine
        turn = present(engine.turn, "the turn of an open deal")
        chips = {turn[0]: self.books.chips.get(turn[0], 0)}
        option, amount = choose(engine, legal_actions(engine, chips), self.rng)
        outcome = self.books.absorb(self.ledger.act(
            deal_id, option.player, option.action, hand=option.hand, amount=amount,
            actor=player(option.player)))
        self.books.tally.actions += 1
        return self.books.deal_after(outcome, deal_id), outcome
