"""Where the read models live: the ledger's own database, beside its events.

Each store is the eventsourcing library's tracking recorder for its database, extended to
write a batch of read-model rows and the tracking position in one transaction (so every
event is applied exactly once) and to answer queries. The tables are created by the SQL in
`migrations/`, applied with yoyo-migrations by `pontoon migrate` (application/store.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from eventsourcing.persistence import IntegrityError, Tracking
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder
from psycopg.sql import SQL, Identifier

if TYPE_CHECKING:
    from config import Settings

TABLES = ("accounts", "postings", "deals", "deal_events", "shuffles", "disputes", "tables",
          "tokens", "pack_contributions", "merkle_leaves", "activity", "account_hours")


class PageAlreadyApplied(IntegrityError):
    """A read model moved on since its page was read: another runner applied it first.

    Distinct from the IntegrityError of a row a model's SQL cannot write (a real failure)."""

Statement = tuple[str, Sequence[Any]]
# What a text column cannot hold on one store or the other: NUL (PostgreSQL) and lone
# surrogates (not encodable as UTF-8). The API refuses both; an event recorded before it did
# must still not stop a read model, so such a character is shown as U+FFFD instead.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_PLAIN_INSERT = re.compile(r"INSERT INTO (?P<table>\w+) \((?P<columns>[\w, ]+)\) VALUES "
                           r"\([%s, ]+\)$")


class ReadStore(Protocol):
    def write(self, statements: Iterable[Statement], tracking: Tracking,
              after: int | None = None) -> None: ...

    def write_pages(self, pages: Iterable[tuple[Iterable[Statement], Tracking, int | None]]
                    ) -> None: ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    def values(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def run(self, statements: Iterable[Statement]) -> None: ...

    def max_tracking_id(self, application_name: str) -> int | None: ...

    def positions(self, application_names: Sequence[str]) -> dict[str, int]: ...

    def wait(self, application_name: str, notification_id: int | None,
             timeout: float = 1.0) -> None: ...

    def clear(self, tables: Sequence[str], application_names: Sequence[str]) -> None: ...


class _Rows:
    """Writing rows with their tracking position, and reading them, on either database."""

    datastore: Any
    placeholder = "%s"
    lock_row = ""
    if TYPE_CHECKING:  # provided by the library's tracking recorders
        def _insert_tracking(self, cursor: Any, tracking: Tracking) -> None: ...

    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "%s" else sql.replace("%s", self.placeholder)

    def _begin(self, cursor: Any) -> None:
        """Before the first statement of a transaction (PostgreSQL sets its schema)."""

    def _begin_write(self, cursor: Any) -> None:
        """Before the first statement of a transaction that writes."""
        self._begin(cursor)

    def write(self, statements: Iterable[Statement], tracking: Tracking,
              after: int | None = None) -> None:
        self.write_pages([(statements, tracking, after)])

    def write_pages(self, pages: Iterable[tuple[Iterable[Statement], Tracking, int | None]]
                    ) -> None:
        """Each read model's rows and position, all in one transaction.

        `after` is the position each page follows: if a model has moved since it was read,
        nothing at all is written, so two runners never apply an overlapping page twice.
        """
        pages = list(pages)
        with self.datastore.transaction(commit=True) as cursor:
            self._begin_write(cursor)
            self._check_positions(cursor, {tracking.application_name: after
                                           for _, tracking, after in pages
                                           if after is not None})
            for statements, _, _ in pages:
                self._execute_runs(cursor, statements)
            self._insert_trackings(cursor, [tracking for _, tracking, _ in pages])

    def positions(self, application_names: Sequence[str]) -> dict[str, int]:
        """Each named model's position (absent: none yet), in one query."""
        with self.datastore.transaction(commit=False) as cursor:
            self._begin(cursor)
            return self._positions(cursor, application_names)

    def _positions(self, cursor: Any, names: Sequence[str], lock: str = "") -> dict[str, int]:
        if not names:
            return {}
        marks = ", ".join(["%s"] * len(names))
        cursor.execute(self._sql(f"SELECT application_name, notification_id FROM tracking "
                                 f"WHERE application_name IN ({marks})" + lock), list(names))
        found: dict[str, int] = {}
        for row in cursor.fetchall():  # one row a model (legacy stores: many, the highest)
            name, position = row["application_name"], row["notification_id"] or 0
            found[name] = max(found.get(name, 0), position)
        return found

    def _check_positions(self, cursor: Any, after: dict[str, int]) -> None:
        """Every model still where its page follows on (locked until the commit on
        PostgreSQL), or nothing is written."""
        now = self._positions(cursor, list(after), self.lock_row)
        for name, expected in after.items():
            if now.get(name, 0) != expected:
                raise PageAlreadyApplied(f"{name} is at {now.get(name, 0)}, not {expected}: "
                                         "the page was applied by another runner")

    def _insert_trackings(self, cursor: Any, trackings: list[Tracking]) -> None:
        for tracking in trackings:
            self._insert_tracking(cursor, tracking)

    def _execute_runs(self, cursor: Any, statements: Iterable[Statement]) -> None:
        """Consecutive statements of the same SQL go together (executemany), in order."""
        sql: str | None = None
        run: list[Sequence[Any]] = []
        for next_sql, params in [*statements, ("", ())]:
            if next_sql != sql:
                if sql is not None:
                    self._execute_run(cursor, sql, run)
                sql, run = next_sql, []
            run.append(storable(params))

    def _execute_run(self, cursor: Any, sql: str, run: list[Sequence[Any]]) -> None:
        if len(run) == 1:
            cursor.execute(self._sql(sql), run[0])
        else:
            cursor.executemany(self._sql(sql), run)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.datastore.transaction(commit=False) as cursor:
            self._begin(cursor)
            cursor.execute(self._sql(sql), params)
            return [dict(row) for row in cursor.fetchall()]

    def values(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """As `rows`, each row its values in the columns' order, no dict made: for reading
        a whole table (verify)."""
        with self.datastore.transaction(commit=False) as cursor:
            self._begin(cursor)
            cursor.execute(self._sql(sql), params)
            return [tuple(row.values()) if isinstance(row, dict) else tuple(row)
                    for row in cursor.fetchall()]

    def run(self, statements: Iterable[Statement]) -> None:
        """Statements in one transaction, with no tracking position: the bookkeeping of the
        runner and of webhook deliveries, which is not a projection of the log."""
        with self.datastore.transaction(commit=True) as cursor:
            self._begin_write(cursor)
            self._execute_runs(cursor, statements)

    def clear(self, tables: Sequence[str], application_names: Sequence[str]) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            self._begin_write(cursor)
            for table in tables:
                cursor.execute(f"DELETE FROM {table}")  # noqa: S608 (fixed names)
            for name in application_names:
                cursor.execute(self._sql("DELETE FROM tracking WHERE application_name = %s"),
                               (name,))


def storable(params: Sequence[Any]) -> Sequence[Any]:
    """The parameters with every text made storable on both databases (see _UNSTORABLE)."""
    texts = "".join([value for value in params if type(value) is str])
    if "\x00" not in texts and (texts.isascii() or not _UNSTORABLE.search(texts)):
        return params  # nearly always: one pass in C over the row's texts
    return tuple(_UNSTORABLE.sub("\ufffd", value) if isinstance(value, str) else value
                 for value in params)


class SQLiteReadStore(_Rows, SQLiteTrackingRecorder):
    placeholder = "?"

    def _begin_write(self, cursor: Any) -> None:
        """Take the write lock first, waiting for it (the busy timeout): a transaction that
        read before writing would fail at once ("database is locked") if another writer
        committed in between, since SQLite cannot wait for a newer snapshot."""
        cursor.execute("UPDATE tracking SET notification_id = notification_id WHERE 0")


class PostgresReadStore(_Rows, PostgresTrackingRecorder):
    lock_row = " FOR UPDATE"  # SQLite writes are serialised already

    def _execute_run(self, cursor: Any, sql: str, run: list[Sequence[Any]]) -> None:
        """Long runs of plain inserts go by COPY: one round trip instead of one a row."""
        copy_sql = _copy_of(sql) if len(run) > 20 else None
        if copy_sql is not None:
            with cursor.copy(copy_sql) as copy:
                for params in run:
                    copy.write_row(params)
            return
        super()._execute_run(cursor, sql, run)

    def _insert_trackings(self, cursor: Any, trackings: list[Tracking]) -> None:
        """Every model's new position in one statement, each only moving forward (as the
        library's own insert does, one model at a time)."""
        if len(trackings) < 2:
            super()._insert_trackings(cursor, trackings)
            return
        cursor.execute(
            "INSERT INTO tracking (application_name, notification_id) "
            "SELECT * FROM unnest(%s::text[], %s::bigint[]) ON CONFLICT (application_name) "
            "DO UPDATE SET notification_id = EXCLUDED.notification_id "
            "WHERE tracking.notification_id < EXCLUDED.notification_id "
            "RETURNING application_name",
            ([t.application_name for t in trackings], [t.notification_id for t in trackings]),
            prepare=True)
        moved = {row["application_name"] for row in cursor.fetchall()}
        missed = [t for t in trackings if t.application_name not in moved]
        if missed:
            raise IntegrityError(f"Failed to record tracking for {missed[0].application_name} "
                                 f"{missed[0].notification_id}")

    def _begin(self, cursor: Any) -> None:
        # The read models live in the store's schema (`?schema=`), like its events.
        cursor.execute(SQL("SET LOCAL search_path TO {}").format(
            Identifier(self.datastore.schema)))


@functools.lru_cache(maxsize=256)
def _copy_of(sql: str) -> bytes | None:
    """The COPY that does what a plain INSERT of one row does for many (None: not plain).
    The models' SQL texts are a few dozen constants: each is looked at once."""
    plain = _PLAIN_INSERT.match(sql)
    if plain is None:
        return None
    return SQL("COPY {} ({}) FROM STDIN").format(
        Identifier(plain["table"]),
        SQL(", ").join(Identifier(c.strip()) for c in plain["columns"].split(","))).as_bytes()


def read_store(ledger: Any, settings: Settings) -> ReadStore | None:
    """The read store beside the ledger's events; None for the in-memory test store."""
    datastore: Any = getattr(ledger.factory, "datastore", None)
    if settings.store == "sqlite":
        return SQLiteReadStore(datastore=datastore)
    if settings.store == "postgres":
        return PostgresReadStore(datastore=datastore, tracking_table_name="tracking")
    return None
