"""Running the read models: catch up with the event log, follow it, rebuild, report lag.

Each read model reads the log from its own tracking position, in pages; a page's rows and
the position of its last event are written in one transaction, so a model that stops at
any moment resumes exactly where its last transaction ended: no event applied twice, none
missed. With SQLite the service runs them in-process; with PostgreSQL `pontoon projections
run` runs them as their own process (or `serve --projections` in-process).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from eventsourcing.persistence import IntegrityError, Tracking

from projections.audit import AuditModel
from projections.balances import BalancesModel
from projections.base import EventLog, ReadModel
from projections.disputes import DisputesModel
from projections.statements import StatementsModel
from projections.store import TABLES, ReadStore
from projections.tables import TablesModel
from projections.tokens import TokensModel

MODELS: tuple[type[ReadModel], ...] = (BalancesModel, StatementsModel, AuditModel,
                                       DisputesModel, TablesModel, TokensModel)
log = logging.getLogger("pontoon.projections")

Progress = Callable[[int, int], None]  # (position reached, head of the log)


class Projections:
    def __init__(self, ledger: EventLog, store: ReadStore, page: int = 2000) -> None:
        self.ledger, self.store, self.page = ledger, store, page
        self.models = [cls(view=store) for cls in MODELS]

    def head(self) -> int:
        return self.ledger.recorder.max_notification_id() or 0

    def position(self, model: ReadModel) -> int:
        return self.store.max_tracking_id(model.tracking_name) or 0

    def status(self) -> dict[str, dict[str, int]]:
        head = self.head()
        return {m.name: {"position": (p := self.position(m)), "lag": max(head - p, 0)}
                for m in self.models}

    def lags(self) -> dict[str, int]:
        return {name: s["lag"] for name, s in self.status().items()}

    def step(self, model: ReadModel | None = None) -> int:
        """Apply one page of the log to every model (or one); returns how many events it read.

        The page is read and decoded once for all models; each model skips what it has
        already applied, and every model's rows and position are written in one transaction.
        """
        models = [model] if model is not None else self.models
        positions = {m.name: self.position(m) for m in models}
        start = min(positions.values()) + 1
        page = self.ledger.recorder.select_notifications(start=start, limit=self.page)
        if not page:
            return 0
        decoded: dict[int, Any] = {}
        pages = []
        for each in models:
            done, topics = positions[each.name], each.topics
            if done >= page[-1].id:
                continue
            statements: list[Any] = []
            for notification in page:
                if notification.id > done and notification.topic in topics:
                    event = decoded.get(notification.id)
                    if event is None:
                        event = decoded[notification.id] = \
                            self.ledger.mapper.to_domain_event(notification)
                    statements.extend(each.statements(event, notification.id))
            pages.append((each.compact(statements), Tracking(each.tracking_name, page[-1].id),
                          done))
        try:
            self.store.write_pages(pages)
        except IntegrityError:
            # Another runner applied part of this page first. Read the positions again.
            log.info("the page from %s was applied by another runner", start)
        except Exception:
            if len(pages) == 1:
                raise
            # One model's rows failed: let the others go on; the failing one keeps its
            # position and is retried (and logged) on every step.
            for single in pages:
                try:
                    self.store.write_pages([single])
                except IntegrityError:
                    pass
                except Exception:
                    log.exception("%s cannot apply the log from %s", single[1].application_name,
                                  start)
        return len(page)

    def catch_up(self, progress: Progress | None = None) -> int:
        """Apply everything recorded so far to every model."""
        done = 0
        head = self.head()
        while (read := self.step()) > 0:
            done += read
            if progress:
                progress(min(self.position(m) for m in self.models), head)
        return done

    def rebuild(self, progress: Progress | None = None) -> int:
        """Drop every row and position, then apply the whole log again."""
        self.store.clear(TABLES, [m.tracking_name for m in self.models])
        return self.catch_up(progress)

    def wait(self, position: int, timeout: float) -> None:
        """Until every model has applied `position` (read-your-writes); TimeoutError.
        The timeout bounds the whole wait, not each model's."""
        deadline = time.monotonic() + timeout
        for model in self.models:
            remaining = max(deadline - time.monotonic(), 0.0)
            self.store.wait(model.tracking_name, position, remaining)

    def follow(self, stop: threading.Event, idle: float = 0.1) -> None:
        """Keep applying new events until `stop` is set."""
        while not stop.is_set():
            try:
                if not self.step():
                    stop.wait(idle)
            except Exception:  # keep following; the page will be retried
                log.exception("projection step failed; retrying")
                stop.wait(1.0)


@contextlib.contextmanager
def single_runner(lock_path: Path) -> Iterator[bool]:
    """True for the one process on this host that holds the lock (gunicorn workers race)."""
    import fcntl

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def start_in_process(projections: Projections, lock_path: Path, stop: threading.Event
                     ) -> threading.Thread:
    """Follow the log in a daemon thread of this process, if no other process on the host
    does; a worker that finds the lock taken tries again later, so one always runs."""
    def run() -> None:
        while not stop.is_set():
            with single_runner(lock_path) as mine:
                if mine:
                    projections.follow(stop)
                    return
            stop.wait(2.0)

    thread = threading.Thread(target=run, name="projections", daemon=True)
    thread.start()
    return thread
