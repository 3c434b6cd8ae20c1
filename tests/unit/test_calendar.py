"""The club's calendar (domain/engine/calendar.py): club days in the club's own zone, days
that hold a change of the clocks, and days frozen by a close (docs/decisions.md 104)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.aggregates import Club
from domain.aggregates import clock as event_clock
from domain.engine.calendar import Calendar, DayRule, DayTexts, Frozen, text
from domain.errors import NotAllowed, NotNow

LONDON, NEW_YORK = DayRule("Europe/London"), DayRule("America/New_York")


def at(zone: str, *parts: int) -> datetime:
    return datetime(*parts, tzinfo=ZoneInfo(zone))  # type: ignore[misc]


def test_play_after_midnight_belongs_to_the_club_day_before_until_it_starts() -> None:
    calendar = Calendar(LONDON)

    assert calendar.day_of(at("Europe/London", 2026, 1, 17, 1, 30)) == date(2026, 1, 16)
    assert calendar.day_of(at("Europe/London", 2026, 1, 17, 5, 59)) == date(2026, 1, 16)
    assert calendar.day_of(at("Europe/London", 2026, 1, 17, 6)) == date(2026, 1, 17)
    assert calendar.bounds(date(2026, 1, 16)) == (at("Europe/London", 2026, 1, 16, 6),
                                                  at("Europe/London", 2026, 1, 17, 6))


@pytest.mark.parametrize(("rule", "day", "hours"), [
    (LONDON, date(2026, 3, 28), 23), (LONDON, date(2026, 10, 24), 25),
    (NEW_YORK, date(2026, 3, 7), 23), (NEW_YORK, date(2026, 10, 31), 25),
    (DayRule("UTC"), date(2026, 3, 28), 24),
])
def test_a_club_day_that_holds_a_change_of_the_clocks_is_an_hour_shorter_or_longer(
        rule: DayRule, day: date, hours: int) -> None:
    start, end = Calendar(rule).bounds(day)

    assert end - start == timedelta(hours=hours)
    assert start.astimezone(ZoneInfo(rule.time_zone)).hour == 6
    assert end.astimezone(ZoneInfo(rule.time_zone)).hour == 6


def test_a_day_that_starts_in_an_hour_the_clocks_skip_starts_by_the_offset_before() -> None:
    """01:30 does not happen in London on 29 March 2026 (01:00 GMT is 02:00 BST)."""
    start = Calendar(DayRule("Europe/London", "01:30")).start(date(2026, 3, 29))

    assert start == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)


@pytest.mark.parametrize(("field", "rule"), [
    ("time_zone", lambda: DayRule("Mars/Olympus")), ("time_zone", lambda: DayRule("../x")),
    ("day_starts_at", lambda: DayRule("UTC", "6:00")),
    ("day_starts_at", lambda: DayRule("UTC", "24:00")),
])
def test_an_unknown_zone_or_a_malformed_hour_is_refused_naming_the_field(field: str,
                                                                        rule: object) -> None:
    with pytest.raises(NotAllowed, match=f"^{field}: "):
        rule()  # type: ignore[operator]


def closed(calendar: Calendar, day: date) -> Calendar:
    """The calendar once `day` is closed under it (as the Club records a close)."""
    start, end = calendar.bounds(day)
    return Calendar(calendar.rule, [*calendar.frozen,
                                    Frozen(day, start, end, calendar.rule_for(day))])


def test_a_closed_day_and_every_day_before_keep_their_bounds_when_the_zone_changes() -> None:
    london = closed(Calendar(LONDON), date(2026, 1, 16))
    before = {d: london.bounds(d) for d in (date(2026, 1, 10), date(2026, 1, 16))}

    moved = Calendar(DayRule("America/New_York", "04:00"), london.frozen)

    assert {d: moved.bounds(d) for d in before} == before
    assert moved.start(date(2026, 1, 17)) == before[date(2026, 1, 16)][1]  # no gap
    assert moved.start(date(2026, 1, 18)) == at("America/New_York", 2026, 1, 18, 4)


def test_a_day_the_zone_moved_past_is_empty_never_overlapping() -> None:
    """Closed in Honolulu (days from 23:00, UTC-10), then moved to Kiritimati (days from
    00:00, UTC+14): Kiritimati's 18 January starts before the closed day ends, so the
    17th is empty and the 18th starts where the closed day ended."""
    honolulu = closed(Calendar(DayRule("Pacific/Honolulu", "23:00")), date(2026, 1, 16))
    moved = Calendar(DayRule("Pacific/Kiritimati", "00:00"), honolulu.frozen)

    end = honolulu.end(date(2026, 1, 16))
    assert end == datetime(2026, 1, 18, 9, tzinfo=UTC)
    assert moved.bounds(date(2026, 1, 17)) == (end, end)
    assert moved.bounds(date(2026, 1, 18)) == (end, datetime(2026, 1, 18, 10, tzinfo=UTC))
    assert moved.day_of(end) == date(2026, 1, 18)


def test_closing_a_day_inside_a_frozen_stretch_changes_no_day() -> None:
    london = closed(Calendar(LONDON), date(2026, 1, 20))
    moved = Calendar(NEW_YORK, london.frozen)
    before = [moved.bounds(date(2026, 1, d)) for d in range(10, 25)]

    closed_again = closed(moved, date(2026, 1, 12))

    assert [closed_again.bounds(date(2026, 1, d)) for d in range(10, 25)] == before


@given(st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 12, 31),
                    timezones=st.just(UTC)),
       st.sampled_from(["Europe/London", "America/New_York", "Asia/Kolkata", "UTC"]),
       st.sampled_from(["00:00", "06:00", "23:30", "01:30"]),
       st.sampled_from(["Asia/Tokyo", "America/Los_Angeles", "UTC"]))
def test_every_instant_is_in_exactly_one_club_day(instant: datetime, zone: str, hour: str,
                                                  then: str) -> None:
    calendar = Calendar(DayRule(zone, hour))
    frozen = closed(calendar, date(2025, 6, 1))
    for each in (calendar, Calendar(DayRule(then), frozen.frozen)):
        day = each.day_of(instant)
        start, end = each.bounds(day)
        assert start <= instant < end
        assert each.end(day - timedelta(days=1)) == start


def test_list_items_are_given_their_club_day_from_their_recorded_time() -> None:
    days = DayTexts(Calendar(NEW_YORK))
    times = [text(at("America/New_York", 2026, 1, 16, h)) for h in (19, 23)] + \
        [text(at("America/New_York", 2026, 1, 17, h)) for h in (1, 5, 6)]

    assert [days(t) for t in times] == ["2026-01-16"] * 4 + ["2026-01-17"]
    assert days(None) is None


def test_the_club_takes_its_events_time_from_the_ledgers_clock() -> None:
    events = [v for v in vars(Club).values() if isinstance(v, type) and
              hasattr(v, "create_timestamp")]

    assert {Club.Founded, Club.SettingsChanged, Club.DayClosed} <= set(events)
    assert all(cls.create_timestamp is event_clock.now for cls in events)


def test_a_closes_difference_is_the_chips_counted_less_those_held_and_a_debt_counts_none(
        ) -> None:
    club = Club.found(by="treasurer:test")
    start, end = club.calendar().bounds(date(2026, 1, 16))

    club.close_day(day=date(2026, 1, 16), start=start, end=end, rule=club.rule,
                   checkpoint=None, counted={"player:a": 40, "player:b": 0, "player:c": 3},
                   held={"player:a": 42, "player:b": -5, "player:c": 0},
                   closed_by="treasurer:test")

    assert club.closes["2026-01-16"]["differences"] == {"player:a": -2, "player:b": 0,
                                                        "player:c": 3}
    with pytest.raises(NotNow, match="already closed"):
        club.close_day(day=date(2026, 1, 16), start=start, end=end, rule=club.rule,
                       checkpoint=None, counted={}, held={}, closed_by="treasurer:test")
