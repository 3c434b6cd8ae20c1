"""The club itself: its name, its calendar (time zone, the hour a club day starts) and the
nights the treasurer has closed. One per store, made the first time either is recorded;
until then the club has the defaults below.

Settings and closes share the aggregate on purpose: a close freezes the calendar up to its
day (domain/engine/calendar.py), so a close and a change of the calendar must never be
decided on different views of it; saving both on one aggregate serialises them.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, uuid5

from eventsourcing.domain import Aggregate

from domain.aggregates.base import CheapCopy, pinned
from domain.engine.calendar import Calendar, DayRule, Frozen, text
from domain.errors import NotNow

CLUB_ID = uuid5(NAMESPACE_URL, "/pontoon/club")
# What a club is called until the treasurer names it (printouts, checkpoints' origin).
DEFAULT_NAME = "Pontoon club"
DEFAULT_RULE = DayRule()


@pinned
class Club(CheapCopy, Aggregate):
    """The club's settings and its closed nights, by club day (`YYYY-MM-DD`)."""

    if TYPE_CHECKING:
        name: str
        time_zone: str
        day_starts_at: str
        closes: dict[str, dict[str, Any]]

    class Founded(Aggregate.Created):
        name: str
        time_zone: str
        day_starts_at: str
        by: str

        def apply(self, club: Any) -> None:
            club.name, club.time_zone, club.day_starts_at = \
                self.name, self.time_zone, self.day_starts_at
            club.closes = {}

    class SettingsChanged(Aggregate.Event):
        name: str
        time_zone: str
        day_starts_at: str
        by: str

        def apply(self, club: Any) -> None:
            club.name, club.time_zone, club.day_starts_at = \
                self.name, self.time_zone, self.day_starts_at

    class DayClosed(Aggregate.Event):
        """A night closed: its bounds and the rule of its days, the checkpoint of the log
        when it was closed, the chips counted and held, and their differences (shown,
        never posted)."""

        day: str
        start: str  # RFC 3339 UTC
        end: str
        time_zone: str
        day_starts_at: str
        checkpoint: str | None  # "POSITION HASH"
        counted: dict[str, int]
        held: dict[str, int]
        differences: dict[str, int]
        closed_by: str

        def apply(self, club: Any) -> None:
            # A new dict each time: copies of the aggregate share the old one (CheapCopy).
            club.closes = {**club.closes, self.day: {
                "day": self.day, "at": self.timestamp, "by": self.closed_by,
                "start": self.start, "end": self.end, "time_zone": self.time_zone,
                "day_starts_at": self.day_starts_at, "checkpoint": self.checkpoint,
                "counted": dict(self.counted), "held": dict(self.held),
                "differences": dict(self.differences)}}

    @classmethod
    def found(cls, *, by: str, name: str = DEFAULT_NAME, rule: DayRule = DEFAULT_RULE
              ) -> Club:
        return cls._create(cls.Founded, id=CLUB_ID, name=name, time_zone=rule.time_zone,
                           day_starts_at=rule.day_starts_at, by=by)

    def change(self, *, name: str, rule: DayRule, by: str) -> None:
        self.trigger_event(self.SettingsChanged, name=name, time_zone=rule.time_zone,
                           day_starts_at=rule.day_starts_at, by=by)

    def close_day(self, *, day: date, start: datetime, end: datetime, rule: DayRule,
                  checkpoint: str | None, counted: dict[str, int], held: dict[str, int],
                  closed_by: str) -> None:
        """Record the close; each difference is the chips counted less those the player
        held by the ledger (none for a player in debt: a debt is collected, not counted)."""
        if day.isoformat() in self.closes:
            raise NotNow(f"the club day {day.isoformat()} is already closed")
        differences = {account: counted[account] - max(held.get(account, 0), 0)
                       for account in sorted(counted)}
        self.trigger_event(self.DayClosed, day=day.isoformat(), start=text(start),
                           end=text(end), time_zone=rule.time_zone,
                           day_starts_at=rule.day_starts_at, checkpoint=checkpoint,
                           counted=dict(sorted(counted.items())),
                           held=dict(sorted(held.items())), differences=differences,
                           closed_by=closed_by)

    @property
    def rule(self) -> DayRule:
        return DayRule(self.time_zone, self.day_starts_at)

    def calendar(self) -> Calendar:
        return calendar_of(self.rule, self.closes)


def calendar_of(rule: DayRule, closes: dict[str, dict[str, Any]]) -> Calendar:
    return Calendar(rule, [Frozen(date.fromisoformat(c["day"]),
                                  datetime.fromisoformat(c["start"]),
                                  datetime.fromisoformat(c["end"]),
                                  DayRule(c["time_zone"], c["day_starts_at"]))
                           for c in closes.values()])

