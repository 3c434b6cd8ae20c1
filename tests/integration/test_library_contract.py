"""What the ledger relies on below `eventsourcing`'s public API, one test per reach.

application/eventstore/__init__.py lists each dependency on the library's internals (and on
psycopg's); each test here names the entry it pins, so an upgrade of the exact pin shows
exactly which reach breaks. Behaviour is checked on the real stores where a store decides
it (`store_settings`: SQLite and PostgreSQL), and on the in-memory store the tests use.
"""

from __future__ import annotations

import ast
import inspect
import sqlite3
import textwrap
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from uuid import UUID, uuid4

import psycopg
import pytest
from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, JSONTranscoder, StoredEvent, Tracking
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteTrackingRecorder
from eventsourcing.utils import get_topic, resolve_topic

from application import Ledger
from application.eventstore import (
    PostgresChainRecorder,
    SQLiteChainRecorder,
    VersionConflict,
    refused_constraint,
)
from application.store import build_ledger, migrate
from config import POSTGRES_RECORDER, SQLITE_RECORDER, Settings
from domain.aggregates import Account

ROOT = Path(__file__).resolve().parents[2]


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_the_library_is_pinned_exactly_at_the_version_these_contracts_describe() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    assert "eventsourcing[postgres]==9.5.6" in project["dependencies"]
    assert version("eventsourcing") == "9.5.6"


# --- 1. the save ---------------------------------------------------------------------------

def test_save_steps_are_the_librarys() -> None:
    """Entry 1: `Application.save` is `collect_events`, `_record`, `_take_snapshots`,
    `_notify` (and the deprecated `notify`), in that order; the steps take what the copy in
    saving.py gives them; a ProcessingEvent holds events, aggregates and saved kwargs."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(Application.save)))
    calls = [node.func.attr for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)]
    processing = ProcessingEvent[object]()

    assert calls == ["collect_events", "_record", "_take_snapshots", "_notify", "notify"]
    assert parameters(Application._record) == ["self", "processing_event"]
    assert parameters(Application._take_snapshots) == ["self", "processing_event"]
    assert parameters(Application._notify) == ["self", "recordings"]
    assert (processing.events, processing.aggregates, processing.saved_kwargs) == ([], {}, {})
    assert callable(processing.collect_events)


def test_the_copied_save_records_and_snapshots_as_the_librarys_does() -> None:
    """Entry 1, behaviour: an account moved to version 100 in one save has its events
    recorded and a snapshot taken at 100, as the library's own save would."""
    ledger = Ledger(env=Settings(database_url="memory://").ledger_env())
    account = Account.open(id=uuid4(), kind="player", owner=None, name="Pat")
    for n in range(99):
        account.move(credit=True, posting_id=str(n), amount=1, from_account="treasury",
                     to_account="player:x", rule="R11.1", reason="x", deal_id=None,
                     table_id=None, hand=None)

    recordings = ledger.save(account)

    assert [r.domain_event.originator_version for r in recordings] == list(range(1, 101))
    assert ledger.snapshots is not None
    [snapshot] = list(ledger.snapshots.get(account.id))
    assert snapshot.originator_version == 100


# --- 2. a lost race told from other refusals -----------------------------------------------

def a_duplicate(ledger: Ledger) -> IntegrityError:
    """The library's own error for an event recorded twice at one version."""
    player = ledger.register_player("Pat").result["id"]
    [stored] = list(ledger.recorder.select_events(UUID(player)))
    with pytest.raises(IntegrityError) as refused:
        ledger.recorder.insert_events([StoredEvent(stored.originator_id, 1, stored.topic,
                                                   stored.state)])
    return refused.value


def test_a_version_taken_is_reported_as_the_events_primary_key_on_each_store(
        ledger: Ledger, store_settings: Settings) -> None:
    """Entry 2: the library raises its IntegrityError from the driver's error, which names
    the events table's primary key (psycopg's diag) or its columns (sqlite3's message)."""
    error = a_duplicate(ledger)

    if store_settings.store == "postgres":
        assert isinstance(error.__cause__, psycopg.errors.UniqueViolation)
        assert error.__cause__.diag.constraint_name == "ledger_events_pkey"
        assert ledger.recorder.events_table_name == "ledger_events"
    else:
        assert isinstance(error.__cause__, sqlite3.IntegrityError)
        assert str(error.__cause__) == ("UNIQUE constraint failed: stored_events.originator_id,"
                                        " stored_events.originator_version")
    assert refused_constraint(error, ledger.recorder) is None


def test_a_version_taken_is_reported_in_its_own_words_by_the_in_memory_store() -> None:
    """Entry 2: POPO raises its own IntegrityError, no driver under it."""
    ledger = Ledger(env=Settings(database_url="memory://").ledger_env())

    error = a_duplicate(ledger)

    assert error.__cause__ is None and str(error).startswith("Stored event already recorded")
    assert refused_constraint(error, ledger.recorder) is None


def test_a_stale_save_is_a_version_conflict_on_each_store(ledger: Ledger) -> None:
    """Entries 1 and 2 together: what the command layer retries."""
    player = ledger.register_player("Pat").result["id"]
    stale = ledger.player_account(player)
    ledger.buy_in(player, 1)
    stale.move(credit=True, posting_id="x", amount=1, from_account="treasury",
               to_account=f"player:{player}", rule="R11.1", reason="x", deal_id=None,
               table_id=None, hand=None)

    with pytest.raises(VersionConflict):
        ledger.save(stale)


# --- 3 and 4. the recorders ----------------------------------------------------------------

def test_sqlite_insert_hook_runs_in_the_write_transaction() -> None:
    """Entry 3: `_insert_events(c, stored_events, **kwargs)` is what `insert_events` calls
    inside `datastore.transaction(commit=True)`, and it answers the events' positions."""
    source = inspect.getsource(SQLiteApplicationRecorder.insert_events)

    assert parameters(SQLiteApplicationRecorder._insert_events)[:3] == \
        ["self", "c", "stored_events"]
    assert "transaction(commit=True)" in source and "self._insert_events(" in source
    assert issubclass(SQLiteChainRecorder, SQLiteApplicationRecorder)
    assert "_insert_events" in vars(SQLiteChainRecorder)


@pytest.fixture
def postgres_ledger(postgres_schema: str) -> Iterator[tuple[Ledger, Settings]]:
    settings = Settings(database_url=postgres_schema, pool_size=2, pool_overflow=2)
    migrate(settings)
    ledger = build_ledger(settings)
    yield ledger, settings
    ledger.close()


def test_postgres_recorder_attributes(postgres_ledger: tuple[Ledger, Settings]) -> None:
    """Entry 4: the datastore's connection, lock timeout and schema, the events table's
    name, and the snapshots table named after it."""
    ledger, settings = postgres_ledger
    recorder = ledger.recorder
    datastore = recorder.datastore

    assert isinstance(recorder, PostgresChainRecorder)
    assert isinstance(datastore, PostgresDatastore)
    assert datastore.schema == settings.postgres_schema
    assert float(datastore.lock_timeout) == 5
    assert recorder.events_table_name == "ledger_events"
    assert recorder.select_snapshots() == []  # `ledger_snapshots`, beside `ledger_events`


def test_psycopg_internals_the_prepared_path_uses(
        postgres_ledger: tuple[Ledger, Settings]) -> None:
    """Entry 5: libpq's prepared-statement calls on `Connection.pgconn`, the connection's
    `lock`, and psycopg's error from a result."""
    ledger, _ = postgres_ledger

    with ledger.recorder.datastore.get_connection() as conn:
        assert isinstance(conn, psycopg.Connection)
        assert callable(conn.pgconn.prepare) and callable(conn.pgconn.exec_prepared)
        with conn.lock:
            pass
    assert callable(psycopg.errors.error_from_result)


# --- 6. topics and formats -----------------------------------------------------------------

def test_recorder_topic_and_pinned_topics() -> None:
    """Entry 6: APPLICATION_RECORDER_TOPIC names our recorders; a class's `TOPIC` is what
    the library stores; datetimes are transcoded as `{"_type_", "_data_"}`."""
    transcoder = JSONTranscoder()
    Application().register_transcodings(transcoder)

    assert resolve_topic(SQLITE_RECORDER) is SQLiteChainRecorder
    assert resolve_topic(POSTGRES_RECORDER) is PostgresChainRecorder
    assert get_topic(Account.Credited) == "domain.aggregates:Account.Credited"
    assert transcoder.encode({"at": datetime(2026, 12, 1, tzinfo=UTC)}) == \
        b'{"at":{"_type_":"datetime_iso","_data_":"2026-12-01T00:00:00+00:00"}}'


# --- outside the package -------------------------------------------------------------------

def test_tracking_insert_hook() -> None:
    """projections/store.py calls `_insert_tracking(cursor, tracking)` in its own transaction;
    projections/log.py reads `originator_id_type` and `events_table_name`."""
    assert parameters(SQLiteTrackingRecorder._insert_tracking) == ["self", "c", "tracking"]
    assert parameters(PostgresTrackingRecorder._insert_tracking) == ["self", "curs", "tracking"]
    assert parameters(Tracking) == ["application_name", "notification_id"]
    assert "originator_id_type" in inspect.signature(PostgresDatastore).parameters


def test_aggregate_attributes() -> None:
    """CheapCopy and verify read an aggregate's `__dict__`: the library's part of it."""
    account = Account.open(id=uuid4(), kind="player", owner=None, name="Pat")

    assert {"_id", "_version", "_created_on", "_modified_on", "_pending_events"} \
        <= set(vars(account))
    assert isinstance(account, Aggregate) and len(account.collect_events()) == 1
    assert account._pending_events == []  # noqa: SLF001 (the very attribute pinned)
