"""The event store's recorders, extended with the hash chains of domain/integrity.py.

Every event is hashed in the transaction that records it, into the side table
`event_hashes` (one row per position: the event's aggregate and version, its event hash and
its log hash), created by migrations/0003_event_chain.py:

- on PostgreSQL a trigger computes the row server-side, inside the insert that already holds
  the store's insert lock (so position order is commit order): no extra round trip, and
  the recorder here only adds the reads `pontoon verify` needs;
- on SQLite the recorder computes it in Python after inserting the events, in the same
  transaction (SQLite has no SHA-256 of its own; its writes are serialised already).

They also read what commands need in one round trip: the events of several aggregates
after the versions a process knows (application/cache.py), and the position an idempotency
receipt was recorded at (application/base.py). On PostgreSQL they insert a command's events
with one call of `ledger_insert_events` (migrations/0009_insert_function.py), which takes the
store's insert lock and inserts inside the database: the lock is held for the insert alone,
never across a round trip to a worker that may be waiting for its GIL (docs/decisions.md
70). That lock is an advisory one, not the library's `LOCK TABLE ... IN EXCLUSIVE MODE`,
which VACUUM and autovacuum conflict with (migrations/0011_insert_lock.py, decision 93).

The application chooses these classes with APPLICATION_RECORDER_TOPIC (config/).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import retry
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from application.eventstore import arrays
from application.eventstore.arrays import BIGINT
from application.eventstore.prepared import Statement
from domain.errors import present
from domain.integrity import GENESIS, Checkpoint, event_hash, log_hash

HASHES = "event_hashes"
INSERT_FUNCTION = "ledger_insert_events"  # migrations/0009_insert_function.py


class HashRow(NamedTuple):
    """A row of `event_hashes`: the hashes recorded for the event at `position`."""

    position: int
    originator_id: UUID
    originator_version: int
    event_hash: bytes
    log_hash: bytes


class StoredSnapshot(NamedTuple):
    originator_id: UUID
    originator_version: int
    topic: str
    state: bytes


class SQLiteChainRecorder(SQLiteApplicationRecorder):
    snapshots_table = "stored_snapshots"

    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent],
                       **kwargs: Any) -> Sequence[int] | None:
        positions = present(super()._insert_events(c, stored_events, **kwargs),
                            "the positions of the events just inserted")
        # The events are inserted first, so this transaction holds SQLite's write lock and
        # the chain's ends read here are the latest.
        c.execute(f"SELECT log_hash FROM {HASHES} ORDER BY notification_id DESC LIMIT 1")
        row = c.fetchone()
        previous_log = bytes(row[0]) if row else GENESIS
        previous: dict[UUID, bytes] = {}
        rows = []
        for position, stored in zip(positions, stored_events, strict=True):
            originator_id = UUID(str(stored.originator_id))
            version = stored.originator_version
            before = previous.get(originator_id)
            if before is None:
                before = self._event_hash_of(c, originator_id, version - 1)
            hashed = event_hash(before, originator_id, version, stored.topic, stored.state)
            previous_log = log_hash(previous_log, position, hashed)
            previous[originator_id] = hashed
            rows.append((position, originator_id.hex, version, hashed, previous_log))
        c.executemany(f"INSERT INTO {HASHES} (notification_id, originator_id, "
                      "originator_version, event_hash, log_hash) VALUES (?, ?, ?, ?, ?)", rows)
        return positions

    def _event_hash_of(self, c: SQLiteCursor, originator_id: UUID, version: int) -> bytes:
        if version < 1:
            return GENESIS
        c.execute(f"SELECT event_hash FROM {HASHES} WHERE originator_id = ? AND "
                  "originator_version = ?", (originator_id.hex, version))
        row = c.fetchone()
        # A missing predecessor can only be tampering: chain from zeros, verify names it.
        return bytes(row[0]) if row else GENESIS

    def select_events_after(self, known: Sequence[tuple[UUID, int]]
                            ) -> dict[UUID, list[StoredEvent]]:
        """The events of each aggregate after the version given, in one read transaction."""
        found: dict[UUID, list[StoredEvent]] = {}
        with self.datastore.transaction(commit=False) as c:
            for originator_id, version in known:
                c.execute("SELECT originator_version, topic, state FROM stored_events WHERE "
                          "originator_id = ? AND originator_version > ? ORDER BY "
                          "originator_version", (originator_id.hex, version))
                rows = c.fetchall()
                if rows:
                    found[originator_id] = [StoredEvent(originator_id, r[0], r[1], r[2])
                                            for r in rows]
        return found

    def position_of(self, originator_id: UUID, version: int) -> int | None:
        """The position (notification id) an event was recorded at."""
        with self.datastore.transaction(commit=False) as c:
            c.execute("SELECT rowid FROM stored_events WHERE originator_id = ? AND "
                      "originator_version = ?", (originator_id.hex, version))
            row = c.fetchone()
            return int(row[0]) if row else None

    def select_hashes(self, after: int, upto: int | None, limit: int | None = None
                      ) -> list[HashRow]:
        """The hash rows at positions after `after` (and up to `upto`), in order."""
        sql = (f"SELECT notification_id, originator_id, originator_version, event_hash, "
               f"log_hash FROM {HASHES} WHERE notification_id > ?")
        params: list[Any] = [after]
        if upto is not None:
            sql, params = sql + " AND notification_id <= ?", [*params, upto]
        sql += " ORDER BY notification_id"
        if limit is not None:
            sql, params = sql + " LIMIT ?", [*params, limit]
        ids: dict[str, UUID] = {}  # an aggregate's id is parsed once a page, not each row
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            return [HashRow(r[0], ids.get(r[1]) or ids.setdefault(r[1], UUID(r[1])), r[2],
                            bytes(r[3]), bytes(r[4])) for r in c.fetchall()]

    def select_snapshots(self) -> list[StoredSnapshot]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT originator_id, originator_version, topic, state FROM "
                      f"{self.snapshots_table} ORDER BY originator_id, originator_version")
            return [StoredSnapshot(UUID(r[0]), r[1], r[2], bytes(r[3])) for r in c.fetchall()]

    def checkpoint(self) -> Checkpoint | None:
        """The last recorded log hash: the head of the log, sealed."""
        last = self._last_hashes()
        return Checkpoint(last[0], last[1].hex()) if last else None

    def _last_hashes(self) -> tuple[int, bytes] | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT notification_id, log_hash FROM {HASHES} "
                      "ORDER BY notification_id DESC LIMIT 1")
            row = c.fetchone()
            return (row[0], bytes(row[1])) if row else None


class PostgresChainRecorder(PostgresApplicationRecorder):
    """Inserts in one call of the insert function (the trigger hashes); reads several
    aggregates' new events at once; reads the chain for verify."""

    def __init__(self, datastore: PostgresDatastore, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        events = self._table(self.events_table_name)
        # LATERAL: one index range scan per aggregate, whatever the planner guesses of
        # the arrays' length (a plain join was seen to scan the whole table).
        self._select_after = Statement(SQL(
            "SELECT k.id, e.originator_version, e.topic, e.state "
            "FROM unnest($1::uuid[], $2::bigint[]) AS k(id, version) "
            "CROSS JOIN LATERAL (SELECT originator_version, topic, state FROM {} "
            "WHERE originator_id = k.id AND originator_version > k.version "
            "ORDER BY originator_version) AS e").format(events).as_string(),
            [arrays.UUID_ARRAY, arrays.BIGINT_ARRAY])
        self._position = SQL("SELECT notification_id FROM {} WHERE originator_id = %s "
                             "AND originator_version = %s").format(events)
        # The command path's two statements go through libpq directly (application/
        # prepared.py): psycopg's cursor cost more than everything else in them.
        self._insert_call = Statement(SQL(
            "SELECT * FROM {}($1::uuid[], $2::bigint[], $3::text[], $4::bytea[], $5::text)"
        ).format(self._table(INSERT_FUNCTION)).as_string(),
            [arrays.UUID_ARRAY, arrays.BIGINT_ARRAY, arrays.TEXT_ARRAY, arrays.BYTEA_ARRAY,
             arrays.TEXT])
        self._function_exists: bool | None = None

    def _table(self, name: str) -> Any:
        return SQL("{}.{}").format(Identifier(self.datastore.schema), Identifier(name))

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any
                      ) -> Sequence[int] | None:
        """One statement, one round trip: the function takes the insert lock (so position
        order is commit order, as the library's insert keeps it), inserts, and the trigger
        hashes; the statement's own transaction commits and releases the lock on the
        server. Without the function (a store not migrated yet) the library's insert runs."""
        if not stored_events:
            return []
        if not self._has_insert_function():
            inserted: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return inserted
        params = (arrays.uuids(e.originator_id for e in stored_events),
                  arrays.bigints(e.originator_version for e in stored_events),
                  arrays.texts(e.topic for e in stored_events),
                  arrays.byteas(e.state for e in stored_events),
                  f"{self.datastore.lock_timeout}s".encode())
        with self.datastore.get_connection() as conn:
            result = self._insert_call.run(conn, params)
            return [BIGINT.unpack(result.get_value(row, 0) or b"")[0]
                    for row in range(result.ntuples)]

    def _has_insert_function(self) -> bool:
        if self._function_exists is None:
            query = SQL("SELECT to_regproc(%s) IS NOT NULL")
            name = f"{self.datastore.schema}.{INSERT_FUNCTION}"
            with self.datastore.get_connection() as conn, \
                    conn.cursor(row_factory=tuple_row) as curs:
                row = curs.execute(query, (name,)).fetchone()
            self._function_exists = bool(row and row[0])
        return self._function_exists

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events_after(self, known: Sequence[tuple[UUID, int]]
                            ) -> dict[UUID, list[StoredEvent]]:
        """The events of each aggregate after the version given: one statement."""
        found: dict[UUID, list[StoredEvent]] = {}
        ids = {aggregate_id.bytes: aggregate_id for aggregate_id, _ in known}
        with self.datastore.get_connection() as conn:
            result = self._select_after.run(conn, (arrays.uuids(i for i, _ in known),
                                                   arrays.bigints(v for _, v in known)))
            value = result.get_value
            for row in range(result.ntuples):
                originator_id = ids[value(row, 0) or b""]
                found.setdefault(originator_id, []).append(StoredEvent(
                    originator_id, BIGINT.unpack(value(row, 1) or b"")[0],
                    (value(row, 2) or b"").decode(), value(row, 3) or b""))
        return found

    def position_of(self, originator_id: UUID, version: int) -> int | None:
        """The position (notification id) an event was recorded at."""
        rows = self._rows(self._position, (originator_id, version))
        return int(rows[0]["notification_id"]) if rows else None

    def _rows(self, query: Any, params: Sequence[Any]) -> list[Any]:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(query, params)
            return list(curs.fetchall())

    def select_hashes(self, after: int, upto: int | None, limit: int | None = None
                      ) -> list[HashRow]:
        query = SQL("SELECT notification_id, originator_id, originator_version, event_hash, "
                    "log_hash FROM {} WHERE notification_id > %s").format(self._table(HASHES))
        params: list[Any] = [after]
        if upto is not None:
            query, params = query + SQL(" AND notification_id <= %s"), [*params, upto]
        query += SQL(" ORDER BY notification_id")
        if limit is not None:
            query, params = query + SQL(" LIMIT %s"), [*params, limit]
        return [HashRow(r["notification_id"], r["originator_id"], r["originator_version"],
                        bytes(r["event_hash"]), bytes(r["log_hash"]))
                for r in self._rows(query, params)]

    def select_snapshots(self) -> list[StoredSnapshot]:
        table = self.events_table_name.removesuffix("_events") + "_snapshots"
        query = SQL("SELECT originator_id, originator_version, topic, state FROM {} "
                    "ORDER BY originator_id, originator_version").format(self._table(table))
        return [StoredSnapshot(r["originator_id"], r["originator_version"], r["topic"],
                               bytes(r["state"])) for r in self._rows(query, ())]

    def checkpoint(self) -> Checkpoint | None:
        query = SQL("SELECT notification_id, log_hash FROM {} ORDER BY notification_id DESC "
                    "LIMIT 1").format(self._table(HASHES))
        rows = self._rows(query, ())
        return Checkpoint(rows[0]["notification_id"], bytes(rows[0]["log_hash"]).hex()) \
            if rows else None


def checkpoint(ledger: Any) -> Checkpoint | None:
    """The ledger's latest checkpoint, or None (an empty log, or the in-memory store)."""
    reader = getattr(ledger.recorder, "checkpoint", None)
    return reader() if reader is not None else None
