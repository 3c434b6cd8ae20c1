"""Reading pages of the event log as plain rows, for the read models and for verify.

The recorders' `select_notifications` builds a frozen `Notification` dataclass and a `UUID`
for every event: on SQLite that costs several times the fetch itself. The read side runs
the same query on the same table and keeps each row as a named tuple, with one `UUID` per
aggregate of a page. Other recorders (the in-memory store of the tests) are read through
`select_notifications` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from eventsourcing.utils import retry
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from projections.decoding import Row

_COLUMNS = "originator_id, originator_version, topic, state"


class Log:
    """`page(start, limit, stop)`: the events at positions from `start` (inclusive) up to
    `stop` if given, at most `limit` of them, in order; as `select_notifications`."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        if isinstance(recorder, SQLiteApplicationRecorder) \
                and recorder.datastore.originator_id_type == "uuid":
            self._read: Callable[[int, int, int | None], list[Any]] = self._sqlite
        elif isinstance(recorder, PostgresApplicationRecorder):
            self._read = self._postgres
        else:
            self._read = self._notifications

    def page(self, start: int, limit: int, stop: int | None = None) -> list[Any]:
        return self._read(start, limit, stop)

    def _notifications(self, start: int, limit: int, stop: int | None = None) -> list[Any]:
        return list(self.recorder.select_notifications(start=start, limit=limit, stop=stop))

    def _sqlite(self, start: int, limit: int, stop: int | None = None) -> list[Row]:
        sql = f"SELECT rowid, {_COLUMNS} FROM {self.recorder.events_table_name} " \
              "WHERE rowid >= ?"  # noqa: S608 (the library's table name)
        params: tuple[int, ...] = (start,)
        if stop is not None:
            sql, params = sql + " AND rowid <= ?", (*params, stop)
        with self.recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(sql + " ORDER BY rowid LIMIT ?", (*params, limit))
            rows = cursor.fetchall()
        ids: dict[str, UUID] = {}
        return [Row(r[0], ids.get(r[1]) or ids.setdefault(r[1], UUID(r[1])), r[2], r[3], r[4])
                for r in rows]

    # As the library's own select_notifications: a dropped connection is tried again.
    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def _postgres(self, start: int, limit: int, stop: int | None = None) -> list[Row]:
        recorder = self.recorder
        query = SQL("SELECT notification_id, " + _COLUMNS + " FROM {}.{} "
                    "WHERE notification_id >= %s").format(
            Identifier(recorder.datastore.schema), Identifier(recorder.events_table_name))
        params: tuple[int, ...] = (start,)
        if stop is not None:
            query, params = query + SQL(" AND notification_id <= %s"), (*params, stop)
        query += SQL(" ORDER BY notification_id LIMIT %s")
        with recorder.datastore.get_connection() as conn, \
                conn.cursor(row_factory=tuple_row) as cursor:
            cursor.execute(query, (*params, limit), prepare=True)
            return [Row(r[0], r[1], r[2], r[3], bytes(r[4])) for r in cursor.fetchall()]
