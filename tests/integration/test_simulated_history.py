"""`pontoon simulate --start DATE --nights N`: a club's evening nights on a simulated clock,
played into the store by the real command; a ledger never backdates (decision 114)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from application.store import build_ledger
from config import Settings
from projections.decoding import Decoder
from projections.runner import Projections
from projections.store import read_store
from tests.integration.test_cli import pontoon
from verification.verify import verify

LONDON = ZoneInfo("Europe/London")
# Saturday 24 October 2026: the night crosses midnight, and British Summer Time ends at
# 02:00 on the Sunday, so the second evening's 19:00 is an hour later in UTC.
FIRST_NIGHT = date(2026, 10, 24)
SMALL = ("--members", "8", "--tables", "2", "--deals-per-table", "3", "--seed", "t")


def simulate(settings: Settings, tmp_path: Path, *args: str) -> Any:
    return pontoon(settings.database_url, "simulate", *args, cwd=tmp_path)


def stamped(settings: Settings) -> list[tuple[str, datetime]]:
    """Every event of the log in position order: its topic and time."""
    ledger = build_ledger(settings)
    try:
        decode = Decoder(ledger.mapper)
        return [(note.topic, decode(note).timestamp) for note in
                ledger.recorder.select_notifications(start=1, limit=10**6)]
    finally:
        ledger.close()


def test_simulate_plays_evening_nights_in_club_time_in_time_order_marked_simulated(
        store_settings: Settings, tmp_path: Path) -> None:
    done = simulate(store_settings, tmp_path, "--start", FIRST_NIGHT.isoformat(), "--nights",
                    "2", "--time-zone", "Europe/London", *SMALL)

    assert done.returncode == 0, done.stderr
    assert "the books balance" in done.stdout
    events = stamped(store_settings)
    times = [at for _, at in events]
    assert times == sorted(times)
    evenings = [datetime(2026, 10, day, 19, 0, tzinfo=LONDON) for day in (24, 25)]
    assert [e.astimezone(UTC).hour for e in evenings] == [18, 19]  # BST, then GMT
    nights = [[at for at in times if e <= at < e + timedelta(hours=7)] for e in evenings]
    assert len(nights[0]) + len(nights[1]) == len(times)
    assert all(nights) and times[0] == evenings[0]
    assert any(at.astimezone(LONDON).date() == date(2026, 10, 25) for at in nights[0])
    deals = [at for topic, at in events if topic.endswith("DealAggregate.DealSettled")]
    assert {at.astimezone(LONDON).date() - timedelta(days=at.astimezone(LONDON).hour < 12)
            for at in deals} == {date(2026, 10, 24), date(2026, 10, 25)}
    assert events[0][0].endswith("Simulation.Begun")
    assert events[-1][0].endswith("Simulation.RunEnded")
    ledger = build_ledger(store_settings)
    try:
        assert ledger.simulated()
    finally:
        ledger.close()


def test_a_simulated_history_balances_and_verifies(store_settings: Settings,
                                                   tmp_path: Path) -> None:
    done = simulate(store_settings, tmp_path, "--start", "2026-11-02", "--nights", "1",
                    *SMALL)

    assert done.returncode == 0, done.stderr
    ledger = build_ledger(store_settings)
    try:
        store = read_store(ledger, store_settings)
        assert store is not None
        Projections(ledger, store).catch_up()
        [row] = store.rows("SELECT SUM(balance) AS total, COUNT(*) AS accounts FROM accounts")
        report = verify(ledger, store=store)
    finally:
        ledger.close()
    assert row["total"] == 0 and row["accounts"] > 8  # R11.1
    assert report.ok, report.failures
    assert report.deals >= 3


def test_simulate_refuses_a_store_with_events_recorded_on_the_real_clock(
        store_settings: Settings, tmp_path: Path) -> None:
    ledger = build_ledger(store_settings)
    try:
        ledger.register_player("Ann")
        head = ledger.recorder.max_notification_id()
    finally:
        ledger.close()

    done = simulate(store_settings, tmp_path, "--start", "2026-11-02", *SMALL)

    assert done.returncode == 1
    [said] = done.stderr.strip().splitlines()
    assert "recorded on the real clock" in said
    assert len(stamped(store_settings)) == head


def test_simulate_refuses_nights_that_would_end_after_the_real_now(
        store_settings: Settings, tmp_path: Path) -> None:
    tonight = datetime.now(UTC).date()

    done = simulate(store_settings, tmp_path, "--start", tonight.isoformat(), *SMALL)

    assert done.returncode == 1
    assert "after the real now" in done.stderr
    assert stamped(store_settings) == []


def test_a_real_clock_command_in_a_simulated_store_is_never_before_its_last_event(
        store_settings: Settings, tmp_path: Path) -> None:
    simulate(store_settings, tmp_path, "--start", "2026-11-02", *SMALL)
    last = stamped(store_settings)[-1][1]

    ledger = build_ledger(store_settings)
    try:
        ledger.register_player("Walk-in")
        assert ledger.simulated()
    finally:
        ledger.close()

    *_, (_, walk_in) = stamped(store_settings)
    assert walk_in > last
    again = simulate(store_settings, tmp_path, "--start", "2026-11-20", *SMALL)
    assert again.returncode == 1
    assert "recorded after its simulated history ended" in again.stderr


def test_a_simulation_goes_on_only_after_the_history_it_extends(
        store_settings: Settings, tmp_path: Path) -> None:
    simulate(store_settings, tmp_path, "--start", "2026-11-02", *SMALL)
    before = stamped(store_settings)

    earlier = simulate(store_settings, tmp_path, "--start", "2026-11-02", *SMALL)
    later = simulate(store_settings, tmp_path, "--start", "2026-11-03", *SMALL)

    assert earlier.returncode == 1 and "never before" in earlier.stderr
    assert later.returncode == 0, later.stderr
    after = stamped(store_settings)
    assert after[:len(before)] == before
    assert [at for _, at in after] == sorted(at for _, at in after)
    assert after[len(before)][0].endswith("Simulation.RunBegun")
