"""When events happen: the one place every aggregate event takes its time from.

The library stamps a new event with its class's `create_timestamp()`; `base.pinned` points
that at `now()` here for every event class of the ledger. `now()` is the library's real clock unless
the application deciding the command set another for the command's duration (`using`): a
simulated clock that plays history into a store marked simulated (application/clock.py).
Nothing else sets it, so no API can record an event at any time but the clock's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime

from eventsourcing.domain import datetime_now_with_tzinfo

Now = Callable[[], datetime]

_current: ContextVar[Now | None] = ContextVar("pontoon_clock", default=None)


def now() -> datetime:
    """The time of an event being recorded now: the clock of the command being decided, or
    the library's own reading of the real time (UTC, aware), as before there was a choice."""
    clock = _current.get()
    return datetime_now_with_tzinfo() if clock is None else clock()


@contextmanager
def using(clock: Now | None) -> Iterator[None]:
    """Stamp the events created inside this block with `clock` (None: the real clock)."""
    token = _current.set(clock)
    try:
        yield
    finally:
        _current.reset(token)
