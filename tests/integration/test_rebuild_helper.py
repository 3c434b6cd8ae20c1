"""`pontoon projections rebuild` shares a long log with a helper process
(projections/rebuild.py, decision 116): the read models come out exactly as one process
makes them, and a helper that fails leaves nothing undone."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from application import Ledger
from application.store import build_ledger
from cli.simulate.history import Plan, play_history
from cli.simulate.moments import CommandClock, simulated_ledger
from config import Settings
from projections.rebuild import rebuild
from projections.runner import Projections
from projections.store import TABLES, read_store


def played(settings: Settings) -> None:
    """A short simulated night: a few hundred events of every kind the models read."""
    plan = Plan(start=date(2026, 11, 6), nights=1, members=8, tables=2, deals_per_table=4,
                seed="rebuild")
    clock = CommandClock(plan.evenings()[0])
    ledger = simulated_ledger(settings, clock)
    try:
        play_history(ledger, clock, plan)
    finally:
        ledger.close()


def rows(projections: Projections) -> dict[str, list[tuple[Any, ...]]]:
    """Every read model's rows and every position, in an order of their own."""
    found = {table: sorted(tuple(map(str, row.values())) for row in
                           projections.store.rows(f"SELECT * FROM {table}"))  # noqa: S608
             for table in TABLES}
    found["tracking"] = sorted(projections.status().items())  # type: ignore[arg-type]
    return found


def reopening(settings: Settings) -> Any:
    return functools.partial(build_ledger, dataclasses.replace(settings, pool_size=1,
                                                               pool_overflow=0))


def cannot_open() -> Ledger:
    raise OSError("the helper cannot open the store")


@contextlib.contextmanager
def rebuilt_alone(settings: Settings) -> Iterator[tuple[Projections, int, Any]]:
    """A played store's read models rebuilt by this process alone: the runner, the events
    it applied and the rows they gave."""
    played(settings)
    ledger = build_ledger(settings)
    try:
        store = read_store(ledger, settings)
        assert store is not None
        projections = Projections(ledger, store)
        alone = projections.rebuild()
        yield projections, alone, rows(projections)
    finally:
        ledger.close()


def test_a_rebuild_shared_with_a_helper_gives_the_rows_one_process_gives(
        store_settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    with rebuilt_alone(store_settings) as (projections, alone, expected):

        shared = rebuild(projections, reopening(store_settings), store_settings,
                         helper_from=1)

        assert shared == alone == projections.head() > 200
        assert rows(projections) == expected
        assert set(projections.lags().values()) == {0}
        assert "helper" not in caplog.text  # it did its share


def test_a_helper_that_fails_leaves_its_models_to_the_main_process(
        store_settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    with rebuilt_alone(store_settings) as (projections, _, expected):

        rebuild(projections, cannot_open, store_settings, helper_from=1)

        assert "the rebuild's helper process ended with exit code 1" in caplog.text
        assert rows(projections) == expected
        assert set(projections.lags().values()) == {0}
