"""The club's settings and its calendar, and closing a night (API.md, "The club's calendar").

Reading the club is a read of one aggregate through the process's cache (one round trip),
so every request that names a date reads the calendar as it is now. Closing a night records
the chips held and counted, and the checkpoint of the log; nothing is posted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from application.base import Decision, LedgerBase, Outcome
from application.eventstore import checkpoint
from domain.aggregates import CLUB_ID, Club
from domain.aggregates import clock as event_clock
from domain.aggregates.club import DEFAULT_NAME, DEFAULT_RULE, calendar_of
from domain.engine.calendar import Calendar, DayRule, text
from domain.errors import Conflict, NotAllowed, NotFound, NotNow

# The chips each counted account held at the end of a day, by account: read by whoever
# closes (the API reads the read models), given the day's bounds.
Holdings = Callable[[datetime, datetime, list[str]], Mapping[str, int]]


@dataclass(frozen=True)
class ClubView:
    """The club as recorded (or its defaults, before anything is), and its calendar."""

    name: str
    rule: DayRule
    closes: Mapping[str, Mapping[str, Any]]
    calendar: Calendar
    version: int  # 0: nothing recorded yet

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "time_zone": self.rule.time_zone,
                "day_starts_at": self.rule.day_starts_at}


DEFAULT_VIEW = ClubView(DEFAULT_NAME, DEFAULT_RULE, {}, Calendar(DEFAULT_RULE), 0)


class ClubCommands(LedgerBase):
    def club(self) -> ClubView:
        """The club now: one read of its aggregate (the cache's, brought up to date)."""
        club = self._current([CLUB_ID]).get(CLUB_ID)
        if not isinstance(club, Club):
            return DEFAULT_VIEW
        last: ClubView | None = getattr(self, "_club_view", None)
        if last is None or last.version != club.version:  # made once per version
            last = self._club_view = _view(club)
        return last

    def calendar(self) -> Calendar:
        return self.club().calendar

    def change_club(self, *, changed_by: str, name: str | None = None,
                    time_zone: str | None = None, day_starts_at: str | None = None,
                    key: str | None = None, expected_version: int | None = None) -> Outcome:
        """Name the club or change its calendar; what is not given stays as it is, and
        nothing is recorded when nothing changes. `expected_version`: If-Match."""
        request = {"name": name, "time_zone": time_zone, "day_starts_at": day_starts_at}

        def decide() -> Decision:
            club = self._club_to_change(changed_by)
            stored = club.version - len(club.pending_events)  # 0 before anything is
            if expected_version is not None and stored != expected_version:
                raise Conflict(f"the club has changed since version {expected_version} "
                               f"(now {stored}); read it again and decide again")
            rule = DayRule(time_zone or club.time_zone, day_starts_at or club.day_starts_at)
            if (name or club.name, rule) != (club.name, club.rule):
                club.change(name=name or club.name, rule=rule, by=changed_by)
            return [club], {**_view(club).as_dict(), "version": club.version}
        return self._command("change_club", request, key, decide)

    def close_day(self, day: date, *, counted: Mapping[str, int], holdings: Holdings,
                  closed_by: str, key: str | None = None) -> Outcome:
        """Close the club day `day` once it is over: the chips counted (by player account)
        against those the ledger says each held at its end. 409 before its end or a second
        time; 422 for a count of anything but a player's account."""
        request = {"day": day.isoformat(), "counted": dict(sorted(counted.items()))}

        def decide() -> Decision:
            for account in counted:
                kind, _, player_id = account.partition(":")
                if kind != "player":
                    raise NotAllowed(f"counted: {account} is not a player's account; only "
                                     "players' chips are counted")
                self.player_account(player_id, referenced=True)
            club = self._club_to_change(closed_by)
            calendar = club.calendar()
            try:
                start, end = calendar.bounds(day)
            except OverflowError:
                raise NotAllowed(f"date: {day.isoformat()} is outside the years the ledger "
                                 "can record") from None
            if day.isoformat() in club.closes:
                raise NotNow(f"the club day {day.isoformat()} is already closed")
            if event_clock.now() < end:
                raise NotNow(f"the club day {day.isoformat()} is not over until "
                             f"{text(end)}")
            held = dict(holdings(start, end, sorted(counted)))
            sealed = checkpoint(self)
            club.close_day(day=day, start=start, end=end, rule=calendar.rule_for(day),
                           checkpoint=None if sealed is None else str(sealed),
                           counted=dict(counted), held=held, closed_by=closed_by)
            return [club], {"date": day.isoformat(), "version": club.version}
        return self._command("close_day", request, key, decide)

    def _club_to_change(self, by: str) -> Club:
        """The club to record on: as stored, or founded now with the defaults."""
        try:
            return self._load(Club, str(CLUB_ID), "club", False)
        except NotFound:
            return Club.found(by=by)


def _view(club: Club) -> ClubView:
    return ClubView(club.name, club.rule, club.closes, calendar_of(club.rule, club.closes),
                    club.version)
