"""Dates and times as clients write them, read on the club's calendar (API.md, "The club's
calendar"): a date is a club day, a time with its offset that instant.

A date-shaped value that names no day (`2026-02-30`) or a day the ledger cannot hold is
refused (422 naming the field); anything else that is not a date or a time with its offset
is malformed (400). The pages and the command line read a time without an offset as the
club's own time (docs/decisions.md 103); the API refuses one (400).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from flask import current_app, g

from application.club import ClubView
from domain.engine.calendar import Calendar, DayTexts, text, zone

DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
HOW = "a date such as 2026-12-05 (a club day) or an RFC 3339 time such as 2026-12-05T20:00:00Z"
Bound = date | datetime


class OutOfRange(ValueError):
    """Shaped like a date, but no club day the ledger can hold (422, not 400)."""


def club_view() -> ClubView:
    """The club now (its settings, closes and calendar), read once per request."""
    if "club_view" not in g:
        g.club_view = current_app.extensions["pontoon"].ledger.club()
    return g.club_view  # type: ignore[no-any-return]


def club_calendar() -> Calendar:
    return club_view().calendar


def day_texts() -> DayTexts:
    """The club day of recorded times, for the items of this request's lists."""
    if "day_texts" not in g:
        g.day_texts = DayTexts(club_calendar())
    return g.day_texts  # type: ignore[no-any-return]


def with_club_days(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Each row with `club_day`, the club day of its `key` time (API.md: lists add it)."""
    days = day_texts()
    for row in rows:
        row["club_day"] = days(row.get(key))
    return rows


def parse_bound(written: str, *, local: Calendar | None = None) -> Bound:
    """A date, or an aware time. With `local`, a time without an offset is the club's own
    time (the pages, the command line); without, it is malformed (the API)."""
    if len(written) > 40:
        raise ValueError(f"give {HOW}")
    if DATE.fullmatch(written):
        try:
            return date.fromisoformat(written)
        except ValueError:
            raise OutOfRange(f"{written} is not a day of the calendar") from None
    try:
        when = datetime.fromisoformat(written)
    except ValueError:
        raise ValueError(f"give {HOW}") from None
    if when.tzinfo is None:
        if local is None:
            raise ValueError(f"a time needs its offset (Z or +01:00): give {HOW}")
        when = when.replace(tzinfo=zone(local.rule.time_zone))
    return when


def bound_text(bound: Bound, calendar: Calendar, *, end: bool = False) -> str | None:
    """The bound as recorded times are written (RFC 3339 UTC): a date's start, or as `end`
    its end (exclusive); None for an end beyond the years the ledger can record. A day
    that cannot be placed is OutOfRange; a time that cannot, ValueError."""
    if isinstance(bound, datetime):
        try:
            return text(bound.astimezone(UTC))
        except OverflowError:
            raise ValueError(f"{bound.isoformat()} is outside the years the ledger can "
                             "record") from None
    try:
        return text(calendar.end(bound) if end else calendar.start(bound))
    except OverflowError:
        if end:
            return None
        raise OutOfRange(f"{bound.isoformat()} is outside the years the ledger can "
                         "record") from None


def as_of_cutoff(bound: Bound, calendar: Calendar) -> str:
    """`as_of` as the cutoff of the postings counted (exclusive): a club day's end, or the
    microsecond after the instant given. OutOfRange for a day the ledger cannot place,
    ValueError for a time."""
    if isinstance(bound, datetime):
        try:
            bound += timedelta(microseconds=1)
        except OverflowError:
            raise ValueError("beyond the years the ledger can record") from None
    cutoff = bound_text(bound, calendar, end=True)
    if cutoff is None:
        raise OutOfRange(f"{bound.isoformat()} is beyond the years the ledger can record")
    return cutoff


def day_of_path(written: str) -> date:
    """`/v1/days/{date}`: a date, OutOfRange if it names no day, ValueError if malformed."""
    bound = parse_bound(written)
    if not isinstance(bound, date) or isinstance(bound, datetime):
        raise ValueError(f"a club day is a date such as 2026-12-05, not {written[:40]!r}")
    return bound
