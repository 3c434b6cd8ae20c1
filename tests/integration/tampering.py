"""What a dishonest DBA with write access to the store does, by hand, in SQL, on either
store: rewrite an event's or a snapshot's stored JSON, delete rows."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from config import Settings
from domain.integrity import GENESIS, event_hash, log_hash
from tests.integration.projection_session import postgres_schema

Change = Callable[[dict[str, Any]], None]


def execute(settings: Settings, sql: str, params: Sequence[Any] = ()) -> int:
    """Run one statement on the store's own tables; `{events}`, `{snapshots}`, `{hashes}`
    name them and `%s` marks a parameter on both stores. Returns the rows changed."""
    if settings.store == "sqlite":
        text = sql.format(events="stored_events", snapshots="stored_snapshots",
                          hashes="event_hashes").replace("%s", "?")
        with contextlib.closing(sqlite3.connect(settings.sqlite_path)) as conn, conn:
            return conn.execute(text, [_stored(settings, p) for p in params]).rowcount
    import psycopg

    base, schema = postgres_schema(settings)
    text = sql.format(events=f'"{schema}".ledger_events',
                      snapshots=f'"{schema}".ledger_snapshots',
                      hashes=f'"{schema}".event_hashes')
    with psycopg.connect(base, autocommit=True) as conn:
        return conn.execute(text, list(params)).rowcount  # type: ignore[arg-type]


def fetch(settings: Settings, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    if settings.store == "sqlite":
        text = sql.format(events="stored_events", snapshots="stored_snapshots",
                          hashes="event_hashes").replace("%s", "?")
        with contextlib.closing(sqlite3.connect(settings.sqlite_path)) as conn:
            return list(conn.execute(text, [_stored(settings, p) for p in params]))
    import psycopg

    base, schema = postgres_schema(settings)
    text = sql.format(events=f'"{schema}".ledger_events',
                      snapshots=f'"{schema}".ledger_snapshots',
                      hashes=f'"{schema}".event_hashes')
    with psycopg.connect(base, autocommit=True) as conn:
        return [tuple(row) for row in conn.execute(text, list(params))]  # type: ignore[arg-type]


def _stored(settings: Settings, value: Any) -> Any:
    """SQLite keeps aggregate ids as 32 hex digits."""
    return value.hex if isinstance(value, UUID) and settings.store == "sqlite" else value


def rewrite_snapshot(settings: Settings, aggregate_id: UUID, change: Change) -> int:
    """Alter the latest snapshot of an aggregate; returns its version."""
    [(version, state)] = fetch(settings, "SELECT originator_version, state FROM {snapshots} "
                               "WHERE originator_id = %s ORDER BY originator_version DESC "
                               "LIMIT 1", (aggregate_id,))
    data = json.loads(bytes(state))
    change(data["state"])
    assert execute(settings, "UPDATE {snapshots} SET state = %s WHERE originator_id = %s AND "
                   "originator_version = %s",
                   (json.dumps(data, separators=(",", ":")).encode(), aggregate_id,
                    version)) == 1
    return int(version)


def delete_event(settings: Settings, aggregate_id: UUID, version: int, *,
                 with_hash: bool = True) -> None:
    """Delete a recorded event, and (as a careful intruder would) its hash row."""
    assert execute(settings, "DELETE FROM {events} WHERE originator_id = %s AND "
                   "originator_version = %s", (aggregate_id, version)) == 1
    if with_hash:
        assert execute(settings, "DELETE FROM {hashes} WHERE originator_id = %s AND "
                       "originator_version = %s", (aggregate_id, version)) == 1


def recompute_every_hash(settings: Settings) -> None:
    """Hash every event again in position order, as an intruder who rewrote one would, so
    that both chains verify."""
    position = "rowid" if settings.store == "sqlite" else "notification_id"
    rows = fetch(settings, f"SELECT {position}, originator_id, originator_version, topic, "  # noqa: S608
                 "state FROM {events} ORDER BY " + position)
    execute(settings, "DELETE FROM {hashes}")
    previous: dict[UUID, bytes] = {}
    last = GENESIS
    for at, originator_id, version, event_topic, state in rows:
        key = UUID(str(originator_id))
        previous[key] = event_hash(previous.get(key, GENESIS), key, version, event_topic,
                                   bytes(state))
        last = log_hash(last, at, previous[key])
        execute(settings, "INSERT INTO {hashes} VALUES (%s, %s, %s, %s, %s)",
                (at, key, version, previous[key], last))
