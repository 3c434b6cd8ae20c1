"""The ledger's clocks: the real one, and a simulated one that plays history.

Every event takes its time from the clock of the command that records it
(domain/aggregates/clock.py). The API and every command line but the simulator use the
real clock. A `SimulatedClock` is for building histories that span days and months
(`pontoon simulate --start`): it starts where it is told and only moves forward, so a log
it writes is in time order as a real one is; the store it writes is marked simulated.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from domain.errors import Conflict

TICK = timedelta(milliseconds=1)  # events of one simulated moment still come in order


class SimulatedClock:
    """A clock that reads `at` and moves only when told, never backwards.

    Each reading is one tick after the last at least, so the events of a command and of
    commands in a row keep their order in time as well as in the log."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("a simulated clock starts at an instant with its zone")
        self._at = start.astimezone(UTC) - TICK
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            self._at += TICK
            return self._at

    @property
    def at(self) -> datetime:
        """The last instant the clock gave (or the one before its start)."""
        with self._lock:
            return self._at

    def advance_to(self, moment: datetime) -> None:
        """Move on to `moment`; a moment before the clock's time is refused (no backdating)."""
        moment = moment.astimezone(UTC)
        with self._lock:
            if moment < self._at:
                raise Conflict(f"the simulated clock reads {self._at.isoformat()}; it never "
                               f"goes back to {moment.isoformat()}")
            self._at = moment - TICK

    def advance(self, by: timedelta) -> None:
        self.advance_to(self.at + by + TICK)
