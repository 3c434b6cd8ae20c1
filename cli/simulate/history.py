"""A club's history on a simulated clock: `pontoon simulate --start DATE --nights N`.

Evening nights are played into the store, in this process, through the real `Ledger`, whose
events a `SimulatedClock` stamps (application/clock.py): each night's play starts in the
evening, club time, and the clock only moves forward. The run is marked in the store (the
`Simulation` aggregate) before its first event and after its last. A ledger never
backdates: the run is refused, before anything is recorded, when the store holds events
not of a simulation, when a night would start before the log's last event, or when the
last night would end after the real now (docs/decisions.md 114).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from application import Ledger
from application.clock import SimulatedClock
from cli.simulate.books import Books, Tally
from cli.simulate.club_night import NIGHT, ClubNight, Member, opening
from cli.simulate.disputes import Disputes

FIRST = ("Ada", "Ben", "Cora", "Dev", "Edie", "Finn", "Gus", "Hana", "Ines", "Jon", "Kit",
         "Lena", "Milo", "Nora", "Otto", "Pia", "Quin", "Rosa", "Sami", "Tess", "Ugo",
         "Vera", "Wes", "Xena", "Yuri", "Zoe", "Abel", "Bea", "Cal", "Dora")
LAST = ("Quinn", "Hart", "Moss", "Reyes", "Okafor", "Lund", "Patel", "Byrne", "Novak",
        "Sato", "Kerr", "Dunn", "Vidal", "Haas", "Ibsen", "Lowe", "Marsh", "Nash", "Oakes",
        "Pryce", "Rowe", "Shaw", "Tate", "Vance", "Webb", "Young", "Ames", "Blake")


def club_time_zone() -> str:
    """The club's time zone (`GET /v1/club`), the default of `--time-zone`: UTC for a store
    not made yet, which names no club."""
    from application.store import build_ledger, pending_migrations
    from config import Settings

    settings = Settings.from_env()
    if pending_migrations(settings):
        return "UTC"
    ledger = build_ledger(settings)
    try:
        return ledger.club().rule.time_zone
    finally:
        ledger.close()


@dataclass(frozen=True)
class Plan:
    """What to play: `nights` evenings from `start` (on `weekdays`, Monday 0; all if
    None), each from `evening`, club time, at `tables` tables among `members`."""

    start: date
    nights: int
    time_zone: str = "UTC"
    evening: time = time(19, 0)
    members: int = 24
    tables: int = 3
    deals_per_table: int = 30
    weekdays: frozenset[int] | None = None
    seed: str = field(default_factory=lambda: random.SystemRandom().randbytes(8).hex())

    def evenings(self) -> list[datetime]:
        """Each night's start, as an instant (an aware UTC time)."""
        zone, day, found = ZoneInfo(self.time_zone), self.start, []
        while len(found) < self.nights:
            if self.weekdays is None or day.weekday() in self.weekdays:
                found.append(datetime.combine(day, self.evening, zone).astimezone(UTC))
            day += timedelta(days=1)
        return found

    def as_run(self) -> dict[str, Any]:
        return {"first_night": self.start.isoformat(), "nights": self.nights,
                "time_zone": self.time_zone, "evening": self.evening.strftime("%H:%M"),
                "members": self.members, "tables": self.tables,
                "deals_per_table": self.deals_per_table, "seed": self.seed}


def refused(ledger: Ledger, plan: Plan, now: datetime) -> str | None:
    """Why this plan may not be played into this store, in one line; None when it may."""
    if (why := ledger.simulation_refused()) is not None:
        return why
    evenings = plan.evenings()
    ends = evenings[-1] + NIGHT
    if ends > now:
        return (f"the last night would end at {ends.isoformat()}, after the real now: a "
                "simulated history ends in the past (start earlier, or play fewer nights)")
    last = ledger.last_recorded_at()
    if last is not None and evenings[0] <= last:
        return (f"the store's history runs to {last.isoformat()}: a simulation goes on "
                "after it, never before (start later)")
    return None


def member_names(count: int, taken: set[str], rng: random.Random) -> list[str]:
    """`count` names no player or table of the store has, none twice."""
    pairs = [f"{first} {last}" for last in LAST for first in FIRST]
    rng.shuffle(pairs)
    free = [name for name in pairs if name.casefold() not in taken]
    extra = (f"Member {n}" for n in range(1, 10**6) if f"member {n}" not in taken)
    return (free + [next(extra) for _ in range(max(0, count - len(free)))])[:count]


def play_history(ledger: Ledger, clock: SimulatedClock, plan: Plan, *,
                 known: dict[str, Any] | None = None, taken: Collection[str] = (),
                 on_deal: Callable[[], None] = lambda: None,
                 on_night: Callable[[int], None] = lambda n: None) -> Tally:
    """Play the plan into the ledger (whose clock `clock` is); `known`: the players already
    in the store by name (`{"id", "balance"}`), who stay members; `taken`: names in use."""
    rng = random.Random(plan.seed)
    books = Books(ledger, rng)
    known = known or {}
    names = list(known)[:plan.members]
    names += member_names(plan.members - len(names), {*taken, *map(str.casefold, known)}, rng)
    members = [Member(name) for name in names]
    opening(members, books.chips, known)
    disputes = Disputes(books)
    evenings = plan.evenings()
    if evenings[0] > clock.at:
        clock.advance_to(evenings[0])
    ledger.begin_simulation(plan.as_run())
    # The club's days are cut in the zone its nights are played in (nothing is recorded
    # when the club keeps that zone already).
    ledger.change_club(changed_by="simulator", time_zone=plan.time_zone)
    for number, evening in enumerate(evenings, 1):
        night = ClubNight(books, clock, disputes, evening, plan.tables, plan.deals_per_table)
        night.on_deal = on_deal
        night.play(members)
        on_night(number)
    ledger.end_simulation(books.tally.as_run())
    return books.tally
