"""Club nights played at chosen instants: a real Ledger on a simulated clock, on the same
store as the app under test (whose read models then follow the log as usual). Nothing here
edits a stored time: the clock only moves forward (application/clock.py)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from application import Ledger
from application.clock import SimulatedClock
from application.store import build_ledger
from config import Settings
from domain.engine.legal import legal_actions
from domain.engine.shuffle import derived_seed
from domain.engine.strategy import choose

SHOOT = {"shoot": True, "kitty_min": 10, "kitty_max": 50, "min_stake": 1, "max_stake": 5}


def local(zone: str, *parts: int) -> datetime:
    """An instant written in a zone's wall-clock time: `local("Europe/London", 2026, 3, 28,
    19)`."""
    return datetime(*parts, tzinfo=ZoneInfo(zone))  # type: ignore[misc]


@dataclass
class Night:
    """Players, a table and deals on a simulated clock; `at` moves the clock on."""

    ledger: Ledger
    clock: SimulatedClock
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    ids: dict[str, str] = field(default_factory=dict)
    played: list[str] = field(default_factory=list)  # every deal, in order

    def at(self, moment: datetime) -> Night:
        self.clock.advance_to(moment)
        return self

    def players(self, *names: str, chips: int = 100) -> list[str]:
        for name in names:
            self.ids[name] = str(self.ledger.register_player(name).result["id"])
            self.ledger.buy_in(self.ids[name], chips)
        return [self.ids[name] for name in names]

    def table(self, name: str, seats: Sequence[str], *, shoot: bool = False,
              kitty: int = 0) -> str:
        rules = SHOOT if shoot else {"min_stake": 1, "max_stake": 5}
        table_id = str(self.ledger.open_table(name=name, seats=[self.ids[s] for s in seats],
                                              banker=self.ids[seats[0]], rules=rules)
                       .result["table_id"])
        if kitty:
            self.ledger.put_up_kitty(table_id, self.ids[seats[0]], kitty)
        return table_id

    def deal(self, table_id: str) -> str:
        """A whole deal, each choice the house bot's (domain/engine/strategy.py); a kitty
        put up first when the table needs one (R9.1, R9.11)."""
        table = self.ledger.table(table_id).engine
        if table.kitty_needed:
            self.ledger.put_up_kitty(table_id, table.banker, table.rules.kitty_min)
        deal_id = str(self.ledger.start_deal(table_id).result["deal_id"])
        self.played.append(deal_id)
        while True:
            engine = self.ledger.deal(deal_id).engine
            if engine.is_over:
                return deal_id
            turn = engine.turn
            chips = {turn[0]: self.ledger.player_account(turn[0]).balance} if turn else None
            option, amount = choose(engine, legal_actions(engine, chips), self.rng)
            self.ledger.act(deal_id, option.player, option.action, hand=option.hand,
                            amount=amount)

    def deals(self, table_id: str, count: int, every: timedelta) -> list[str]:
        played = []
        for _ in range(count):
            played.append(self.deal(table_id))
            self.clock.advance(every)
        return played

    def close(self) -> None:
        self.ledger.close()


def night_on(settings: Settings, start: datetime, seed: str = "nights") -> Night:
    """A ledger on the store of `settings` whose clock starts at `start`."""
    clock = SimulatedClock(start)
    ledger = build_ledger(settings, clock=clock)
    counter = iter(range(1_000_000))
    ledger.new_seed = lambda: derived_seed(seed, "pack", next(counter))
    return Night(ledger, clock)


def statement_times(rows: list[dict[str, Any]]) -> list[str]:
    return [row["at"] for row in rows]
