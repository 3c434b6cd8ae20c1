"""When a read model cannot apply an event: the others go on, everyone is told, and the
model is tried again later, not in a hot loop.

A failing model is skipped until its next attempt, 1 s after the first failure, then 2 s,
4 s ... up to a minute, so it recovers by itself within a minute of its cause being fixed.
The failure (model, position of the event, error) is kept in `projection_failures`, where
health, reads with `min_position` and metrics of every process on every host find it; the
runner removes the row once the model has applied that event.
"""

from __future__ import annotations

import logging
import time
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from projections.store import ReadStore

RETRY_FIRST = 1.0  # seconds
RETRY_MAX = 60.0
ERROR_LENGTH_MAX = 300
log = logging.getLogger("pontoon.projections")


@dataclass(frozen=True)
class Failure:
    model: str
    position: int  # the event the model could not apply
    error: str
    attempts: int
    failed_at: str  # the first failure at this position
    next_attempt_at: str


def describe(error: BaseException) -> str:
    """The error's class and first line only: the lines a database adds (DETAIL) may quote
    the row, and a row of the audit can hold face-down cards, which no log line may show."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(error).__name__}: {first}"[:ERROR_LENGTH_MAX]


def traceback_of(error: BaseException) -> str:
    """Where an error was raised, and the errors that caused it, each told as `describe`
    tells it (never the lines a database adds, which may quote a row)."""
    chain: list[BaseException] = []
    cause: BaseException | None = error
    while cause is not None and cause not in chain and len(chain) < 5:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    return "\nwhich caused:\n".join(
        "Traceback (most recent call last):\n" + "".join(traceback.format_tb(e.__traceback__))
        + describe(e) for e in reversed(chain))


def failures(store: ReadStore) -> list[Failure]:
    """Every read model failing now, as the runner last recorded it (any process)."""
    return [Failure(**row) for row in store.rows(
        "SELECT model, position, error, attempts, failed_at, next_attempt_at "
        "FROM projection_failures ORDER BY model")]


class Failures:
    """The runner's schedule of failing models, and their rows in `projection_failures`."""

    def __init__(self, store: ReadStore, *, first: float = RETRY_FIRST,
                 most: float = RETRY_MAX) -> None:
        self.store, self.first, self.most = store, first, most
        self._known: dict[str, Failure] = {}
        self._due: dict[str, float] = {}

    def load(self) -> None:
        """A runner taking over learns what its predecessor recorded, and retries at once."""
        for failure in failures(self.store):
            self._known[failure.model] = failure
            self._due[failure.model] = 0.0

    def due(self, model: str) -> bool:
        return time.monotonic() >= self._due.get(model, 0.0)

    def failed(self, model: str, position: int, error: BaseException) -> Failure:
        prior = self._known.get(model)
        again = prior is not None and prior.position == position
        attempts = prior.attempts + 1 if prior is not None and again else 1
        delay = min(self.first * 2 ** (attempts - 1), self.most)
        now = time.time()
        failure = Failure(model, position, describe(error), attempts,
                          prior.failed_at if prior is not None and again else rfc3339(now),
                          rfc3339(now + delay))
        self._known[model], self._due[model] = failure, time.monotonic() + delay
        # The traceback once, at the first failure on this event: it says where the model or
        # the store failed; the attempts after it say only that it fails still.
        log.error("read model %s cannot apply the event at position %s (%s); attempt %s, "
                  "next in %.0f s%s", model, position, failure.error, attempts, delay,
                  "\n" + traceback_of(error) if attempts == 1 else "",
                  extra={"model": model, "position": position, "attempts": attempts})
        self._save(model, [_insert(failure)])
        return failure

    def recovered(self, model: str) -> None:
        self._due.pop(model, None)
        failure = self._known.pop(model, None)
        if failure is not None:
            log.warning("read model %s applied position %s after %s failed attempts; "
                        "it has recovered", model, failure.position, failure.attempts,
                        extra={"model": model, "position": failure.position})
            self._save(model, [])

    def _save(self, model: str, inserts: list[tuple[str, tuple[Any, ...]]]) -> None:
        try:
            self.store.run([("DELETE FROM projection_failures WHERE model = %s", (model,)),
                            *inserts])
        except Exception as error:  # the schedule above still holds in this process
            log.warning("could not record the state of read model %s (%s)", model,
                        describe(error))


def _insert(failure: Failure) -> tuple[str, tuple[Any, ...]]:
    return ("INSERT INTO projection_failures (model, position, error, attempts, failed_at, "
            "next_attempt_at) VALUES (%s, %s, %s, %s, %s, %s)",
            (failure.model, failure.position, failure.error, failure.attempts,
             failure.failed_at, failure.next_attempt_at))


def rfc3339(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")
