"""The club's calendar: when each club day begins and ends, and which day an instant is in.

A club day runs from `day_starts_at` in the club's time zone to the next day's start (API.md,
"The club's calendar"): a deal at 01:30 on Saturday morning belongs to Friday's club day. A
day may last 23 or 25 hours where the clocks change. Zones come from the IANA database
(zoneinfo, with the tzdata package where the system has none); every instant is aware.

Closing a day freezes it and every day before it (docs/decisions.md 104): those days keep
the start and end they had, whatever the settings become. Every later day follows the
settings of now, and the first of them starts where the last frozen day ended, so days never
overlap and no instant falls between two days. A day whose natural start comes before that
end (the zone moved east) is empty: it starts and ends at the same instant.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain.errors import NotAllowed

HOUR = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")
ZONE_NAME = re.compile(r"[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*")
ZONE_NAME_MAX = 64
ONE_DAY = timedelta(days=1)


@functools.lru_cache(maxsize=64)
def zone(name: str) -> ZoneInfo:
    """The IANA zone of this name; NotAllowed for a name the database does not know."""
    if len(name) > ZONE_NAME_MAX or not ZONE_NAME.fullmatch(name):
        raise NotAllowed(f"time_zone: {name[:ZONE_NAME_MAX]!r} is not an IANA time zone "
                         "name such as Europe/London")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise NotAllowed(f"time_zone: {name!r} is not a time zone the IANA database knows "
                         "(such as Europe/London or America/New_York)") from None


def hour(text: str) -> time:
    """`HH:MM`, 00:00 to 23:59; NotAllowed for anything else."""
    found = HOUR.fullmatch(text)
    if found is None:
        raise NotAllowed(f"day_starts_at: {text[:20]!r} is not a time of day HH:MM "
                         "(00:00 to 23:59)")
    return time(int(found[1]), int(found[2]))


@dataclass(frozen=True)
class DayRule:
    """Where club days start: a time of day in a time zone."""

    time_zone: str = "UTC"
    day_starts_at: str = "06:00"

    def __post_init__(self) -> None:
        zone(self.time_zone)
        hour(self.day_starts_at)

    def start(self, day: date) -> datetime:
        """When `day` begins under this rule alone (UTC). A start the clocks skip or repeat
        is read as zoneinfo reads it (fold 0): by the offset before the change."""
        local = datetime.combine(day, hour(self.day_starts_at), tzinfo=zone(self.time_zone))
        return local.astimezone(UTC)

    def day_of(self, instant: datetime) -> date:
        day = instant.astimezone(zone(self.time_zone)).date()
        return day if self.start(day) <= instant else day - ONE_DAY


@dataclass(frozen=True)
class Frozen:
    """A closed day: its bounds as closed, and the rule its stretch of days followed."""

    day: date
    start: datetime
    end: datetime
    rule: DayRule


class Calendar:
    """Club days under `rule`, except those frozen by a close (see the module's text)."""

    def __init__(self, rule: DayRule, frozen: Sequence[Frozen] = ()) -> None:
        self.rule = rule
        self.frozen = sorted(frozen, key=lambda f: f.day)
        self._days = [f.day for f in self.frozen]
        self._ends = [f.end for f in self.frozen]

    def rule_for(self, day: date) -> DayRule:
        """The rule `day` follows: that of the first close on or after it, else today's."""
        k = bisect.bisect_left(self._days, day)
        return self.frozen[k].rule if k < len(self.frozen) else self.rule

    def start(self, day: date) -> datetime:
        """When the club day `day` begins (UTC); OverflowError beyond the years datetime
        holds."""
        k = bisect.bisect_left(self._days, day)
        if k < len(self.frozen) and self.frozen[k].day == day:
            return self.frozen[k].start
        rule = self.frozen[k].rule if k < len(self.frozen) else self.rule
        if k == 0:
            return rule.start(day)
        before = self.frozen[k - 1]
        if day == before.day + ONE_DAY:
            return before.end
        return max(rule.start(day), before.end)

    def end(self, day: date) -> datetime:
        """When `day` ends: the next day's start (exclusive)."""
        return self.start(day + ONE_DAY)

    def bounds(self, day: date) -> tuple[datetime, datetime]:
        return self.start(day), self.end(day)

    def day_of(self, instant: datetime) -> date:
        """The club day `instant` is in: the last day that starts at or before it."""
        k = bisect.bisect_right(self._ends, instant)
        rule = self.frozen[k].rule if k < len(self.frozen) else self.rule
        day = rule.day_of(instant)
        while self.start(day) > instant:
            day -= ONE_DAY
        while self.start(day + ONE_DAY) <= instant:
            day += ONE_DAY
        return day


class DayTexts:
    """The club day of recorded times (RFC 3339 UTC text, which sorts in time order), for
    lists: the items of a list come in time order, so the last day found usually holds the
    next item too, and is tried first."""

    def __init__(self, calendar: Calendar) -> None:
        self.calendar = calendar
        self._last: tuple[str, str, str] | None = None  # start, end, the day

    def __call__(self, at: str | None) -> str | None:
        if not at:
            return None
        last = self._last
        if last is not None and last[0] <= at < last[1]:
            return last[2]
        instant = datetime.fromisoformat(at)
        try:
            day = self.calendar.day_of(instant)
            start, end = self.calendar.bounds(day)
        except OverflowError:
            return None
        self._last = (text(start), text(end), day.isoformat())
        return day.isoformat()


def text(instant: datetime) -> str:
    """An instant as the read models record times: RFC 3339 UTC with microseconds."""
    return instant.astimezone(UTC).isoformat(timespec="microseconds")
