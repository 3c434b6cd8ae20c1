"""Saving a command's aggregates: one commit, then what follows it, which never undoes it.

The library's `Application.save` records the events, then takes the snapshots due and
notifies, all inside one call: a snapshot that fails raises out of a save whose events are
already committed, so a recorded command would answer 500 (and be sent again). Here the
commit is the save's only step that may fail the command. What follows it (snapshots, the
library's notification, the process's cache: `after_commit`) is logged once, counted, and
left behind: a snapshot not taken is taken at the next interval, a cache entry not kept is
read again.

A failed insert is told apart by what refused it: only the events table's primary key
(originator id, version) is a lost race, raised as `VersionConflict` and decided again;
anything else (a hash-chain row, any other constraint) is `RecordRefused`, never retried.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, Recording

log = logging.getLogger("pontoon.ledger")

# POPO's message for an event already recorded at a version (eventsourcing/popo.py).
POPO_VERSION_TAKEN = "Stored event already recorded"


class VersionConflict(IntegrityError):
    """Another command moved one of the aggregates on since this one read it: nothing was
    recorded, and the command is decided again from fresh state."""


class RecordRefused(Exception):
    """The store refused a command's events for a reason other than a lost race: nothing
    was recorded, and sending it again would be refused again (HTTP 500)."""

    def __init__(self, constraint: str, error: BaseException) -> None:
        super().__init__(f"the store refused the command's events: {constraint}")
        self.constraint = constraint
        self.error = error


class StoreApplication(Application[UUID]):
    """The library's application with a save whose commit is final."""

    def __init__(self, env: Any = None) -> None:
        super().__init__(env)
        # Told the step's name each time a step after a commit failed (the API counts them).
        self.after_commit_failed: Callable[[str], None] = lambda stage: None

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]:
        """The library's save (eventsourcing 9.5.6 `Application.save`: `_record`,
        `_take_snapshots`, `_notify`), less its deprecated `notify` hook and its runtime
        `Protocol` checks of each aggregate (a few percent of a command), with every step
        after the commit unable to fail it."""
        processing = ProcessingEvent[UUID]()
        if all(obj is None or isinstance(obj, Aggregate) for obj in objs):
            for aggregate in objs:
                if aggregate is not None:
                    processing.events.extend(aggregate.collect_events())
                    processing.aggregates[aggregate.id] = aggregate
            processing.saved_kwargs.update(kwargs)
        else:
            processing.collect_events(*objs, **kwargs)
        try:
            recordings = self._record(processing)
        except IntegrityError as error:
            constraint = refused_constraint(error, self.recorder)
            if constraint is None:
                raise VersionConflict(str(error)) from error
            raise RecordRefused(constraint, error) from error
        self.after_commit("snapshots", self._take_snapshots, processing)
        self.after_commit("notification", self._notify, recordings)
        return recordings

    def after_commit(self, stage: str, step: Callable[..., Any], *args: Any) -> None:
        """Run a step that follows a commit: whatever it raises is logged (with the request
        id, which the log handlers add) and counted, never raised."""
        try:
            step(*args)
        except Exception as error:
            log.exception("a command was recorded, but the %s step after its commit failed "
                          "(%s); the command stands", stage, type(error).__name__,
                          extra={"stage": stage})
            self.after_commit_failed(stage)


def refused_constraint(error: IntegrityError, recorder: Any) -> str | None:
    """None when the insert lost a race on the events table's primary key; else the name of
    the constraint that refused it, as the store reports it."""
    table = getattr(recorder, "events_table_name", "stored_events")
    cause = error.__cause__
    if isinstance(cause, psycopg.Error):
        name = cause.diag.constraint_name
        if name == f"{table}_pkey":
            return None
        return name or f"{cause.sqlstate}: {_first_line(cause)}"
    if isinstance(cause, sqlite3.IntegrityError):
        text = _first_line(cause)
        if text == (f"UNIQUE constraint failed: {table}.originator_id, "
                    f"{table}.originator_version"):
            return None
        kind, found, columns = text.partition(" constraint failed: ")
        return f"{columns} ({kind})" if found else text
    if cause is None and str(error).startswith(POPO_VERSION_TAKEN):
        return None
    return _first_line(error)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
