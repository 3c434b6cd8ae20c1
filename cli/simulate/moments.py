"""The ledger a simulated history is played with: the real `Ledger`, on a simulated clock
at which each command happens at one moment.

A command's events are created in the order it decides them (a table's facts, then the
deal's, then the postings) and saved aggregate by aggregate, so stamping each as it is
created would put a few milliseconds of disorder inside a command. Stamping them all with
the command's moment keeps the whole log in time order: the times never decrease along the
positions, and each command's moment is one tick after the last one's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from application import Ledger, Outcome
from application.clock import SimulatedClock
from config import Settings


class CommandClock(SimulatedClock):
    """A simulated clock read once a command: inside `moment()` it keeps one time."""

    def __init__(self, start: datetime) -> None:
        super().__init__(start)
        self._held: datetime | None = None

    def __call__(self) -> datetime:
        held = self._held
        return super().__call__() if held is None else held

    @contextmanager
    def moment(self) -> Iterator[None]:
        self._held = super().__call__()
        try:
            yield
        finally:
            self._held = None


class SimulatedLedger(Ledger):
    """The ledger's commands, each at one moment of its `CommandClock`."""

    name = "Ledger"  # the store's tables are named after it (PostgreSQL)
    clock: CommandClock

    def _command(self, *args: Any, **kwargs: Any) -> Outcome:
        with self.clock.moment():
            return super()._command(*args, **kwargs)


def simulated_ledger(settings: Settings, clock: CommandClock) -> SimulatedLedger:
    """As `application.store.build_ledger`, for a simulated history."""
    if settings.store == "sqlite":
        settings.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    return SimulatedLedger(env=settings.ledger_env(), clock=clock)
