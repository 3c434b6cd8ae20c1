"""What `pontoon simulate --start` plans before it plays: each night's evening in club time
(across a change of summer time) and names no player or table has (decision 113)."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time

from cli.simulate.history import Plan, member_names


def test_each_night_starts_at_the_evening_in_club_time_across_a_change_of_summer_time(
        ) -> None:
    london = Plan(start=date(2026, 10, 24), nights=2, time_zone="Europe/London")
    new_york = Plan(start=date(2026, 3, 7), nights=2, time_zone="America/New_York",
                    evening=time(20, 30))

    assert london.evenings() == [datetime(2026, 10, 24, 18, 0, tzinfo=UTC),
                                 datetime(2026, 10, 25, 19, 0, tzinfo=UTC)]
    assert new_york.evenings() == [datetime(2026, 3, 8, 1, 30, tzinfo=UTC),
                                   datetime(2026, 3, 9, 0, 30, tzinfo=UTC)]


def test_a_club_plays_only_on_its_weekdays() -> None:
    plan = Plan(start=date(2026, 11, 2), nights=4, weekdays=frozenset({1, 4}))  # Tue, Fri

    nights = [evening.date() for evening in plan.evenings()]

    assert nights == [date(2026, 11, 3), date(2026, 11, 6), date(2026, 11, 10),
                      date(2026, 11, 13)]


def test_members_get_distinct_names_that_no_player_or_table_has() -> None:
    taken = {"ada quinn", "ben hart"}

    names = member_names(900, taken, random.Random(1))

    assert len(names) == len({name.casefold() for name in names}) == 900
    assert not {name.casefold() for name in names} & taken
