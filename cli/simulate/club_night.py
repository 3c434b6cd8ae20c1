"""A simulated club night: members arrive through the evening, buy in and sit down, tables
open as they fill and deal until late, a few go home early, a dispute now and then is
raised and resolved by the treasurer, and everyone settles up at the end.

The night is a queue of moments in club time; the ledger's simulated clock is moved on to
each before its commands run, so the log is in time order (a clock that only moves
forward, application/clock.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from application.clock import SimulatedClock
from cli.simulate.books import Books
from cli.simulate.disputes import Disputes
from cli.simulate.night_table import TablePlay

ARRIVALS = timedelta(minutes=75)  # members arrive over the first hour and a quarter
LAST_DEAL = timedelta(hours=6)  # no deal starts after this, from the evening's start
NIGHT = timedelta(hours=7)  # everything of a night is recorded within it
EARLY_LEAVERS = 0.15  # members who go home before the end
TABLE_NAMES = ("Oak", "Ash", "Elm", "Birch", "Rowan", "Hazel", "Holly", "Yew", "Larch",
               "Alder", "Willow", "Maple", "Beech", "Cedar", "Aspen", "Poplar")
SHOOT_RULES = {"min_stake": 1, "max_stake": 10, "shoot": True, "kitty_min": 10,
               "kitty_max": 100, "burn": "13"}
PLAIN_RULES = {"min_stake": 1, "max_stake": 10, "shoot": False, "banker_may_double": True}


@dataclass
class Member:
    name: str
    player_id: str | None = None  # registered on their first night


@dataclass(order=True)
class Moment:
    at: datetime
    order: int
    what: Callable[[], None] = field(compare=False)


class ClubNight:
    """One night: the queue of what happens, in club time, played as the clock reaches it."""

    def __init__(self, books: Books, clock: SimulatedClock, disputes: Disputes,
                 evening: datetime, tables: int, deals_per_table: int) -> None:
        self.books, self.clock, self.disputes, self.rng = books, clock, disputes, books.rng
        self.evening, self.tables, self.deals_per_table = evening, tables, deals_per_table
        self.queue: list[Moment] = []
        self.count = 0
        self.playing: dict[int, TablePlay] = {}
        self.waiting: dict[int, list[str]] = {}  # table index: arrived, table not open
        self.on_deal: Callable[[], None] = lambda: None

    def at(self, moment: datetime, what: Callable[[], None]) -> None:
        self.count += 1
        heapq.heappush(self.queue, Moment(moment, self.count, what))

    def play(self, members: list[Member]) -> None:
        """The night from the first arrival to the last settling up."""
        attending = self.rng.sample(members, min(len(members),
                                                 round(self.tables * self.rng.uniform(5, 6.5))))
        for index, member in enumerate(attending):
            arrives = self.evening + self.rng.random() * ARRIVALS
            self.at(arrives, lambda m=member, t=index % self.tables: self._arrive(m, t))
            if self.rng.random() < EARLY_LEAVERS:
                leaves = self.evening + timedelta(hours=self.rng.uniform(2, 5.5))
                self.at(leaves, lambda m=member: self._go_home(m))
        self.at(self.evening + ARRIVALS + timedelta(minutes=1), self._last_call)
        while self.queue:
            moment = heapq.heappop(self.queue)
            if moment.at > self.clock.at:
                self.clock.advance_to(moment.at)
            moment.what()
        self.books.tally.nights += 1

    # --- players -----------------------------------------------------------------------

    def _arrive(self, member: Member, index: int) -> None:
        books = self.books
        if member.player_id is None:
            member.player_id = books.register(member.name)
        held = books.chips.get(member.player_id, 0)
        books.buy_in(member.player_id, self.rng.randint(100, 300) - min(held, 0))
        table = self.playing.get(index)
        if table is not None:
            table.seat(member.player_id)
            return
        waiting = self.waiting.setdefault(index, [])
        waiting.append(member.player_id)
        if len(waiting) >= 3:
            self._open(index, self.waiting.pop(index))

    def _last_call(self) -> None:
        """Everyone has come: a table still short of three opens with two, and a lone
        player joins the smallest table (or, with none, goes home)."""
        for index, waiting in sorted(self.waiting.items()):
            if len(waiting) >= 2:
                self._open(index, waiting)
            else:
                tables = sorted(self.playing.values(), key=lambda t: len(t.seats))
                for player_id in waiting:
                    if tables:
                        tables[0].seat(player_id)
                    else:
                        self.books.settle_up(player_id)
        self.waiting.clear()

    def _go_home(self, member: Member) -> None:
        for table in self.playing.values():
            if member.player_id in table.seats:
                table.leaving.add(member.player_id)

    # --- tables ------------------------------------------------------------------------

    def _open(self, index: int, seats: list[str]) -> None:
        name = TABLE_NAMES[index] if index < len(TABLE_NAMES) else f"Table {index + 1}"
        rules = SHOOT_RULES if index % 2 == 0 else PLAIN_RULES
        table = TablePlay(self.books, f"{name}, {self.evening:%a %d %b %Y}", rules, seats)
        self.playing[index] = table
        self.at(self.clock.at + timedelta(minutes=self.rng.uniform(2, 6)),
                lambda: self._deal(index))

    def _deal(self, index: int) -> None:
        table = self.playing[index]
        for gone in table.let_go():
            self.books.settle_up(gone)
        table.between_deals()
        deal = table.play_deal()
        if deal is not None:
            self.on_deal()
            raised = self.disputes.maybe_raise(deal)
            if raised is not None:  # the treasurer sees to it later, before the night ends
                due = min(self.clock.at + timedelta(minutes=self.rng.uniform(10, 90)),
                          self.evening + NIGHT - timedelta(minutes=5))
                self.at(due, lambda: self.disputes.resolve(raised))
        gap = (LAST_DEAL - ARRIVALS / 2) / self.deals_per_table
        after = self.clock.at + gap * self.rng.uniform(0.6, 1.4)
        if after < self.evening + LAST_DEAL and len(table.seats) >= 2 and deal is not None:
            self.at(after, lambda: self._deal(index))
        else:  # the table plays on to the end of the night, past midnight
            ends = self.evening + LAST_DEAL if deal is not None else self.clock.at
            self.at(max(ends, self.clock.at) + timedelta(minutes=1), lambda: self._close(index))

    def _close(self, index: int) -> None:
        """The table ends; its players settle up at the cash desk, a minute or so apart."""
        table = self.playing[index]
        table.wind_up()
        for count, seat in enumerate(table.seats):
            self.at(self.clock.at + timedelta(seconds=40 * (count + 1)),
                    lambda p=seat: self.books.settle_up(p))


def opening(members: list[Member], chips: dict[str, int], known: dict[str, Any]) -> None:
    """Members already in the store (an earlier simulated run) keep their ids and chips."""
    for member in members:
        if member.name in known:
            member.player_id = str(known[member.name]["id"])
            chips[member.player_id] = int(known[member.name]["balance"])
