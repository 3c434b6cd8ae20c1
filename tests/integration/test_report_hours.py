"""The period report adds up whole hours from `account_hours` and reads only the postings
of its first and last hour (projections/report.py, docs/decisions.md 105): it says exactly
what it says when it reads every posting of the period, on both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from config import Settings
from projections import report
from projections.runner import Projections
from projections.store import read_store
from tests.integration.nights import night_on


def text(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")


@pytest.fixture
def played(store_settings: Settings):  # type: ignore[no-untyped-def]
    """Two tables over five hours, a kitty, a void deal now and then, buy-ins and
    cash-outs between deals."""
    night = night_on(store_settings, datetime(2026, 1, 16, 18, 50, tzinfo=UTC), seed="hours")
    night.players("Ann", "Bob", "Cat", "Dan", "Eve", chips=60)
    tables = [night.table("Shoot", ["Ann", "Bob", "Cat"], shoot=True, kitty=20),
              night.table("Plain", ["Dan", "Eve"])]
    for round_ in range(14):
        for table in tables:
            night.deal(table)
            night.clock.advance(timedelta(minutes=11))
        night.ledger.buy_in(night.ids["Dan"], 3)
        if round_ % 5 == 4:
            night.ledger.cash_out(night.ids["Eve"], 1)
    store = read_store(night.ledger, store_settings)
    assert store is not None
    Projections(night.ledger, store).catch_up()
    yield store
    night.close()


@pytest.mark.parametrize(("start", "end"), [
    (None, None),
    (datetime(2026, 1, 16, 19, tzinfo=UTC), datetime(2026, 1, 16, 22, tzinfo=UTC)),
    (datetime(2026, 1, 16, 19, 17, 3, 5, tzinfo=UTC), datetime(2026, 1, 16, 23, 41, tzinfo=UTC)),
    (datetime(2026, 1, 16, 20, 5, tzinfo=UTC), datetime(2026, 1, 16, 20, 55, tzinfo=UTC)),
    (datetime(2026, 1, 16, 21, 30, tzinfo=UTC), None),
    (None, datetime(2026, 1, 16, 21, 30, tzinfo=UTC)),
    (datetime(2026, 1, 16, 20, 59, 59, tzinfo=UTC), datetime(2026, 1, 16, 21, 0, 1, tzinfo=UTC)),
])
def test_the_report_from_whole_hours_is_the_report_from_every_posting(
        played, monkeypatch: pytest.MonkeyPatch, start: datetime | None,  # type: ignore[no-untyped-def]
        end: datetime | None) -> None:
    bounds = (None if start is None else text(start), None if end is None else text(end))

    by_hours = report.period_report(played, *bounds)
    monkeypatch.setattr(report, "_split", lambda s, e: (None, [(s, e)]))
    by_postings = report.period_report(played, *bounds)

    assert by_hours == by_postings
    assert by_hours["checks"]["balanced"] is True
    assert by_hours["items"] or end - start < timedelta(minutes=10)  # type: ignore[operator]
