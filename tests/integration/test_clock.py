"""Events take their time from the ledger's clock: the real one, or a simulated one that only
moves forward (application/clock.py, domain/aggregates/clock.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest

from application.clock import SimulatedClock
from application.store import build_ledger
from config import Settings
from domain.aggregates import (
    Account,
    DealAggregate,
    Dispute,
    Receipt,
    Simulation,
    TableAggregate,
    Token,
    Webhook,
    receipt_id,
)
from domain.aggregates import clock as event_clock
from domain.errors import Conflict

AGGREGATES = (DealAggregate, TableAggregate, Account, Receipt, Token, Dispute, Webhook,
              Simulation)
FRIDAY_NIGHT = datetime(2026, 11, 6, 23, 59, 59, tzinfo=UTC)


def stamps(ledger, aggregate_id):  # type: ignore[no-untyped-def]
    return [event.timestamp for event in ledger.events.get(UUID(str(aggregate_id)))]


def test_every_event_class_takes_its_time_from_the_ledgers_clock() -> None:
    for aggregate in AGGREGATES:
        events = [value for value in vars(aggregate).values()
                  if isinstance(value, type) and hasattr(value, "create_timestamp")]

        assert events, aggregate
        assert all(cls.create_timestamp is event_clock.now for cls in events), aggregate


def test_a_simulated_clock_stamps_every_event_of_a_command_in_order(store_settings: Settings
                                                                    ) -> None:
    clock = SimulatedClock(FRIDAY_NIGHT)
    ledger = build_ledger(store_settings, clock=clock)
    try:
        ann = ledger.register_player("Ann", key="k1").result["id"]
        ledger.buy_in(ann, 10)
        clock.advance(timedelta(hours=2))
        ledger.buy_in(ann, 5)

        times = stamps(ledger, ann)
        [receipt_time] = stamps(ledger, receipt_id("k1"))
    finally:
        ledger.close()

    assert receipt_time > times[0] == FRIDAY_NIGHT
    assert times == sorted(times) and len(set(times)) == len(times)
    assert times[1] - times[0] < timedelta(seconds=1)
    assert times[2] >= FRIDAY_NIGHT + timedelta(hours=2)


def test_a_ledger_without_a_simulated_clock_stamps_the_real_time(store_settings: Settings
                                                                 ) -> None:
    ledger = build_ledger(store_settings)
    try:
        before = datetime.now(UTC)
        ann = ledger.register_player("Ann").result["id"]
        [stamp] = stamps(ledger, ann)
        after = datetime.now(UTC)
    finally:
        ledger.close()

    assert before <= stamp <= after


def test_a_simulated_clock_never_goes_back() -> None:
    clock = SimulatedClock(FRIDAY_NIGHT)
    clock()

    with pytest.raises(Conflict):
        clock.advance_to(FRIDAY_NIGHT - timedelta(minutes=1))
    assert clock() > FRIDAY_NIGHT


def test_a_simulated_clock_needs_a_zone() -> None:
    with pytest.raises(ValueError, match="zone"):
        SimulatedClock(datetime(2026, 11, 6, 20, 0))
