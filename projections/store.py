"""Where the read models live: the ledger's own database, beside its events.

Each store is the eventsourcing library's tracking recorder for its database, extended to
write a batch of read-model rows and the tracking position in one transaction (so every
event is applied exactly once) and to answer queries. The tables are created by the SQL in
`migrations/`, applied with yoyo-migrations by `pontoon migrate`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from eventsourcing.persistence import IntegrityError, Tracking
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder
from psycopg.sql import SQL, Identifier
from yoyo import get_backend, read_migrations

from domain.application import Ledger

if TYPE_CHECKING:
    from api.config import Settings

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
TABLES = ("accounts", "postings", "deals", "deal_events", "shuffles", "disputes", "tables")

Statement = tuple[str, Sequence[Any]]


class ReadStore(Protocol):
    def write(self, statements: Iterable[Statement], tracking: Tracking,
              after: int | None = None) -> None: ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    def max_tracking_id(self, application_name: str) -> int | None: ...

    def wait(self, application_name: str, notification_id: int | None,
             timeout: float = 1.0) -> None: ...

    def clear(self, tables: Sequence[str], application_names: Sequence[str]) -> None: ...


class _Rows:
    """Writing rows with their tracking position, and reading them, on either database."""

    datastore: Any
    placeholder = "%s"
    if TYPE_CHECKING:  # provided by the library's tracking recorders
        def _insert_tracking(self, cursor: Any, tracking: Tracking) -> None: ...

    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "%s" else sql.replace("%s", self.placeholder)

    def _begin(self, cursor: Any) -> None:
        """Before the first statement of a transaction (PostgreSQL sets its schema)."""

    lock_row = ""

    def write(self, statements: Iterable[Statement], tracking: Tracking,
              after: int | None = None) -> None:
        """Rows and position in one transaction. `after`: the position the page follows;
        if the model has moved elsewhere since it was read, nothing is written, so two
        runners never apply an overlapping page twice."""
        with self.datastore.transaction(commit=True) as cursor:
            self._begin(cursor)
            if after is not None:
                cursor.execute(self._sql("SELECT notification_id FROM tracking WHERE "
                                         "application_name = %s" + self.lock_row),
                               (tracking.application_name,))
                row = cursor.fetchone()
                now = (row["notification_id"] if row else None) or 0
                if now != after:
                    raise IntegrityError(f"{tracking.application_name} is at {now}, not "
                                         f"{after}: the page was applied by another runner")
            for sql, params in statements:
                cursor.execute(self._sql(sql), params)
            self._insert_tracking(cursor, tracking)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.datastore.transaction(commit=False) as cursor:
            self._begin(cursor)
            cursor.execute(self._sql(sql), params)
            return [dict(row) for row in cursor.fetchall()]

    def clear(self, tables: Sequence[str], application_names: Sequence[str]) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            self._begin(cursor)
            for table in tables:
                cursor.execute(f"DELETE FROM {table}")  # noqa: S608 (fixed names)
            for name in application_names:
                cursor.execute(self._sql("DELETE FROM tracking WHERE application_name = %s"),
                               (name,))


class SQLiteReadStore(_Rows, SQLiteTrackingRecorder):
    placeholder = "?"


class PostgresReadStore(_Rows, PostgresTrackingRecorder):
    lock_row = " FOR UPDATE"  # SQLite writes are serialised already
    def _begin(self, cursor: Any) -> None:
        # The read models live in the store's schema (`?schema=`), like its events.
        cursor.execute(SQL("SET LOCAL search_path TO {}").format(
            Identifier(self.datastore.schema)))


def read_store(ledger: Ledger, settings: Settings) -> ReadStore | None:
    """The read store beside the ledger's events; None for the in-memory test store."""
    datastore = getattr(ledger.factory, "datastore", None)
    if settings.store == "sqlite":
        return SQLiteReadStore(datastore=datastore)
    if settings.store == "postgres":
        return PostgresReadStore(datastore=datastore, tracking_table_name="tracking")
    return None


def apply_migrations(settings: Settings) -> list[str]:
    """Apply every migration not yet applied; returns their ids."""
    if settings.store == "memory":
        return []
    backend = get_backend(_yoyo_url(settings))
    try:
        migrations = read_migrations(str(MIGRATIONS))
        with backend.lock():
            pending = backend.to_apply(migrations)
            backend.apply_migrations(pending)
        return [m.id for m in pending]
    finally:
        backend.connection.close()


def _yoyo_url(settings: Settings) -> str:
    if settings.store == "sqlite":
        return f"sqlite:///{settings.sqlite_path}"
    env = settings.ledger_env()
    auth = quote(env["POSTGRES_USER"]) + (
        ":" + quote(env["POSTGRES_PASSWORD"]) if env["POSTGRES_PASSWORD"] else "")
    return (f"postgresql+psycopg://{auth}@{env['POSTGRES_HOST']}:{env['POSTGRES_PORT']}/"
            f"{env['POSTGRES_DBNAME']}?schema={env['POSTGRES_SCHEMA']}")
