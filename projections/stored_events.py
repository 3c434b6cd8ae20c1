"""One aggregate's events as stored: each with its position, its stored bytes and the event
hash recorded beside it (domain/integrity.py), for a hand history (projections/
hand_history.py), which gives them to anyone who may check them."""

from __future__ import annotations

from typing import Any, NamedTuple
from uuid import UUID

from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from psycopg.sql import SQL, Identifier

HASHES = "event_hashes"  # application/eventstore/recorders.py, migrations/0003_event_chain.py


class Stored(NamedTuple):
    position: int | None
    version: int
    topic: str
    state: bytes
    event_hash: bytes | None  # None: no hash recorded (verify names it as tampering)


def aggregate_events(recorder: Any, aggregate_id: UUID) -> list[Stored]:
    """Every event of the aggregate from version 1, in order."""
    if isinstance(recorder, SQLiteApplicationRecorder):
        return _sqlite(recorder, aggregate_id)
    if isinstance(recorder, PostgresApplicationRecorder):
        return _postgres(recorder, aggregate_id)
    return [Stored(None, e.originator_version, e.topic, e.state, None)
            for e in recorder.select_events(aggregate_id)]


def _sqlite(recorder: SQLiteApplicationRecorder, aggregate_id: UUID) -> list[Stored]:
    key = aggregate_id.hex if recorder.datastore.originator_id_type == "uuid" \
        else str(aggregate_id)
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute(f"SELECT e.rowid, e.originator_version, e.topic, e.state, h.event_hash "
                       f"FROM {recorder.events_table_name} e LEFT JOIN {HASHES} h "  # noqa: S608
                       "ON h.notification_id = e.rowid WHERE e.originator_id = ? "
                       "ORDER BY e.originator_version", (key,))
        return [Stored(int(r[0]), int(r[1]), str(r[2]), _raw(r[3]),
                       None if r[4] is None else bytes(r[4])) for r in cursor.fetchall()]


def _postgres(recorder: PostgresApplicationRecorder, aggregate_id: UUID) -> list[Stored]:
    schema = Identifier(recorder.datastore.schema)
    query = SQL("SELECT e.notification_id, e.originator_version, e.topic, e.state, "
                "h.event_hash FROM {}.{} e LEFT JOIN {}.{} h "
                "ON h.notification_id = e.notification_id WHERE e.originator_id = %s "
                "ORDER BY e.originator_version").format(
        schema, Identifier(recorder.events_table_name), schema, Identifier(HASHES))
    with recorder.datastore.get_connection() as conn, conn.cursor() as cursor:
        cursor.execute(query, (aggregate_id,))
        return [Stored(int(r["notification_id"]), int(r["originator_version"]), r["topic"],
                       bytes(r["state"]), None if r["event_hash"] is None
                       else bytes(r["event_hash"])) for r in cursor.fetchall()]


def _raw(state: Any) -> bytes:
    """The stored bytes; SQLite hands back text when an intruder stored text instead."""
    return state if isinstance(state, bytes) else str(state).encode("utf-8")
