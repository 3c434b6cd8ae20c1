"""Running the read models: catch up with the event log, follow it, rebuild, report lag.

Each read model reads the log from its own tracking position, in pages; a page's rows and
the position of its last event are written in one transaction, so a model that stops at
any moment resumes exactly where its last transaction ended: no event applied twice, none
missed. One process among all that serve the store runs them, elected by a lock
(projections/election.py); `pontoon projections run` stands in the same election.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from eventsourcing.persistence import (
    InterfaceError,
    OperationalError,
    PersistenceError,
    Tracking,
)

from projections.activity import ActivityModel
from projections.audit import AuditModel
from projections.balances import BalancesModel
from projections.base import EventLog, ReadModel
from projections.decoding import Decoder
from projections.disputes import DisputesModel
from projections.failures import Failure, Failures, describe, failures
from projections.log import Log
from projections.merkle import MerkleLog
from projections.statements import StatementsModel
from projections.store import TABLES, PageAlreadyApplied, ReadStore, Statement
from projections.tables import TablesModel
from projections.tokens import TokensModel
from projections.webhooks.outbox import WebhookOutbox

MODELS: tuple[type[ReadModel], ...] = (BalancesModel, StatementsModel, AuditModel,
                                       DisputesModel, TablesModel, TokensModel, ActivityModel,
                                       MerkleLog)
# A busy or lost database (SQLite's "database is locked", a dropped connection, a deadlock
# or a lock timeout): not a read model's failure; the page is tried again shortly.
TRANSIENT = (OperationalError, InterfaceError)
# Any error of a store or its driver: "the read models cannot use the store". Anything else
# escaping a step is a bug of the runner, logged with its traceback (a model's own failure is
# caught where it happens: projections/failures.py).
STORE_ERRORS = (PersistenceError, psycopg.Error, sqlite3.Error, OSError)
# Followed like a read model, but never rebuilt and never waited for by reads.
OUTBOXES: tuple[type[ReadModel], ...] = (WebhookOutbox,)
log = logging.getLogger("pontoon.projections")

Progress = Callable[[int, int], None]  # (position reached, head of the log)


class ModelFailing(Exception):
    """A read asked for a position a failing read model cannot reach until it is fixed."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(f"the read model {failure.model} cannot apply the event at position "
                         f"{failure.position} ({failure.error}); it is tried again "
                         f"at {failure.next_attempt_at}")
        self.failure = failure


@dataclass
class Page:
    """One model's share of a page of the log: what it had applied, its events (as stored),
    its rows."""

    model: ReadModel
    done: int
    events: list[Any]
    statements: list[Statement]
    end: int


class Projections:
    def __init__(self, ledger: EventLog, store: ReadStore, page: int = 2000) -> None:
        self.ledger, self.store, self.page = ledger, store, page
        self.models: list[ReadModel] = [cls(view=store) for cls in (*MODELS, *OUTBOXES)]
        self.failures = Failures(store)
        self.decoder = Decoder(ledger.mapper)
        self.pages = Log(ledger.recorder)  # the log, read in pages of plain rows
        # Each model's position as this runner last wrote it (by tracking name), so a busy
        # step reads no positions; forgotten after anything but a clean write, and when
        # there is nothing new to read. A model moved by someone else meanwhile (another
        # runner, a rebuild) is caught by the write's own check (PageAlreadyApplied), and
        # the positions are read again.
        self._written: dict[str, int] | None = None

    @property
    def read_models(self) -> list[ReadModel]:
        """The models reads are served from (not the webhook outbox)."""
        return [m for m in self.models if m.rebuildable]

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
        """Apply one page of the log to every model due (or one); returns how many events it
        read, or 0 if no model moved (a failing model tried again, in vain).

        The page is read and decoded once for all models; each model skips what it has
        already applied, and every model's rows and position are written in one transaction.
        A model that fails is left behind (projections/failures.py) and skipped until its
        next attempt, so the page the others read starts where they are.
        """
        models = [model] if model is not None else \
            [m for m in self.models if self.failures.due(m.name)]
        if not models:
            return 0
        positions = self._positions(models)
        start = min(positions.values()) + 1
        page = self.pages.page(start, self.page)
        if not page:
            # Nothing past the positions remembered: read them again next time, in case
            # someone else moved them back (a rebuild from the CLI stopped part way).
            self._written = None
            return 0
        decoded: dict[int, Any] = {}
        decode = functools.partial(self._decode, decoded=decoded)
        pages: list[Page] = []
        moved = False
        for each in models:
            done = positions[each.name]
            if done >= page[-1].id:
                continue
            try:
                statements = each.page_statements(each.select(page, done, decode))
            except Exception:  # decoding or the model's own code failed: find the event
                moved = self._isolate(each, done, page, page[-1].id, decoded) or moved
                continue
            pages.append(Page(each, done, page, statements, page[-1].id))
        moved = self._write(pages, decoded) or moved
        return len(page) if moved else 0

    def _positions(self, models: list[ReadModel]) -> dict[str, int]:
        """The models' positions by name: as last written, or read in one query."""
        written = self._written
        if written is None:  # when known, they are known for every model
            found = self.store.positions([m.tracking_name for m in self.models])
            written = self._written = {m.tracking_name: found.get(m.tracking_name, 0)
                                       for m in self.models}
        return {m.name: written[m.tracking_name] for m in models}

    def _decode(self, notification: Any, decoded: dict[int, Any]) -> Any:
        if notification.id not in decoded:
            decoded[notification.id] = self.decoder(notification)
        return decoded[notification.id]

    def _write(self, pages: list[Page], decoded: dict[int, Any]) -> bool:
        """Whether any model moved."""
        if not pages:
            return False
        written, self._written = self._written, None  # until this write is known clean
        try:
            self.store.write_pages([(p.statements, Tracking(p.model.tracking_name, p.end),
                                     p.done) for p in pages])
        except PageAlreadyApplied:
            # Another runner applied part of this page first. Read the positions again.
            log.info("a page was applied by another runner; reading the positions again")
            return True
        except TRANSIENT:
            raise  # not the models' fault: the whole page is tried again shortly
        except Exception:
            # One model's rows failed: let the others go on; find the failing event.
            moved = [self._isolate(p.model, p.done, p.events, p.end, decoded) for p in pages]
            return any(moved)
        if written is not None:
            self._written = {**written, **{p.model.tracking_name: p.end for p in pages}}
        for page in pages:
            self.failures.recovered(page.model.name)
            page.model.applied()
        return True

    def _isolate(self, model: ReadModel, done: int, events: list[Any], end: int,
                 decoded: dict[int, Any]) -> bool:
        """Apply a failed page one event at a time: the model moves up to the event it cannot
        apply (decode, turn into rows, or write), which is recorded as its failure; if every
        event applies, it has recovered. Whether it moved."""
        self._written = None
        start = done
        for position, note in [*((n.id, n) for n in events), (end, None)]:
            if position <= done:
                continue
            try:
                statements = [] if note is None else model.page_statements(model.select(
                    [note], done, functools.partial(self._decode, decoded=decoded)))
                self.store.write(statements, Tracking(model.tracking_name, position), done)
            except PageAlreadyApplied:
                return True
            except TRANSIENT:
                raise
            except Exception as error:
                self.failures.failed(model.name, position, error)
                return done > start
            done = position
        self.failures.recovered(model.name)
        model.applied()
        return True

    def catch_up(self, progress: Progress | None = None) -> int:
        """Apply everything recorded so far to every model."""
        self._written = None  # from where the store says, whoever moved the models since
        done = 0
        head = self.head()
        while (read := self.step()) > 0:
            done += read
            if progress:
                progress(min(self.position(m) for m in self.models), head)
        return done

    def rebuild(self, progress: Progress | None = None) -> int:
        """Drop every read model's rows and position, then apply the whole log again (the
        webhook outbox keeps its own: a delivery made is not made again)."""
        self._written = None
        self.store.clear(TABLES, [m.tracking_name for m in self.read_models])
        return self.catch_up(progress)

    def wait(self, position: int, timeout: float) -> None:
        """Until every read model has applied `position` (read-your-writes); TimeoutError,
        or at once ModelFailing if one of them is stuck on an event at or before it. The
        timeout bounds the whole wait, not each model's."""
        deadline = time.monotonic() + timeout
        stuck: list[Any] | None = None  # read once, when a model first lags
        for model in self.read_models:
            if self.position(model) >= position:
                continue
            if stuck is None:
                stuck = failures(self.store)
            for failure in stuck:
                if failure.model == model.name and failure.position <= position:
                    raise ModelFailing(failure)
            remaining = max(deadline - time.monotonic(), 0.0)
            self.store.wait(model.tracking_name, position, remaining)

    def follow(self, stop: threading.Event, idle: float = 0.1) -> None:
        """Keep applying new events until `stop` is set; a page under way is finished."""
        with contextlib.suppress(Exception):  # without it, failing models are retried at once
            self.failures.load()
        pause = idle
        said: str | None = None  # the runner's own failure, told with its traceback once
        while not stop.is_set():
            try:
                read = self.step()
                pause, said = idle, None
            except STORE_ERRORS as error:  # the store is busy or gone: wait a little longer
                pause = min(max(pause * 2, 0.2), 30.0)
                log.warning("the read models cannot use the store (%s); trying again in "
                            "%.1f s", describe(error), pause)
                read = 0
            except Exception as error:  # a bug of the runner's own, not of a model's
                pause = min(max(pause * 2, 0.2), 30.0)
                if describe(error) != said:
                    log.exception("the read models' runner failed (%s); trying again in "
                                  "%.1f s", describe(error), pause)
                    said = describe(error)
                read = 0
            if read < self.page:  # caught up: let a page gather rather than poll at once
                stop.wait(pause)
        with contextlib.suppress(Exception):
            log.info("the read models stopped at position %s",
                     min(self.position(m) for m in self.models))
