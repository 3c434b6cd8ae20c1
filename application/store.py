"""Building the ledger application on the configured store, and creating its tables."""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from urllib.parse import quote

from yoyo import get_backend, read_migrations

from application.ledger import Ledger
from config import Settings
from domain.aggregates.clock import Now

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def build_ledger(settings: Settings, *, create_tables: bool = False,
                 clock: Now | None = None) -> Ledger:
    """One application object per process, built after any fork (docs/architecture.md).
    `clock`: what stamps its events, the real clock unless a simulator gives its own
    (application/clock.py)."""
    if settings.store == "sqlite":
        settings.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    return Ledger(env=settings.ledger_env(create_tables=create_tables), clock=clock)


def migrate(settings: Settings) -> list[str]:
    """Create the event store's tables and apply the versioned SQL of `migrations/`, once,
    as a deploy step (`pontoon migrate`). Returns the migrations applied now."""
    build_ledger(settings, create_tables=True).close()
    applied = apply_migrations(settings)
    ledger = build_ledger(settings)
    try:
        ledger.reserve_table_names()  # for tables opened before names were held
    finally:
        ledger.close()
    return applied


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


def backup(settings: Settings, target: Path) -> Path:
    """A consistent copy of the SQLite store (events, read models, webhook deliveries) made
    while it is served, with SQLite's online backup API: it copies one committed state of the
    file, and writers go on meanwhile (WAL). Written beside `target`, then moved into place,
    so a copy cut short never looks whole. PostgreSQL is backed up with pg_dump (README)."""
    if settings.store != "sqlite":
        raise ValueError("only the SQLite store is backed up by `pontoon backup`; back up "
                         "PostgreSQL with pg_dump (README, Backups)")
    if not settings.sqlite_path.exists():
        raise FileNotFoundError(f"there is no store at {settings.sqlite_path}")
    if target.exists():
        raise FileExistsError(f"{target} exists already; name a new file")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(settings.sqlite_path, timeout=30)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    partial.replace(target)
    return target


APPLIED_MIGRATIONS = "SELECT migration_id FROM _yoyo_migration"  # yoyo's own record


def pending_migrations(settings: Settings) -> list[str]:
    """The migrations this code knows that the store has not applied (all of them for a
    store never migrated). Raises what the driver raises if the store cannot be opened. It
    creates nothing, not even SQLite's file."""
    if settings.store == "memory":
        return []
    if settings.store == "sqlite" and not settings.sqlite_path.exists():
        return list(migration_ids())
    backend = get_backend(_yoyo_url(settings))
    try:
        cursor = backend.connection.cursor()
        try:
            cursor.execute(APPLIED_MIGRATIONS)
            applied = {row[0] for row in cursor.fetchall()}
        except Exception:  # no migration table: never migrated
            applied = set()
    finally:
        backend.connection.close()
    return not_applied(applied)


def not_applied(applied: set[str]) -> list[str]:
    """The migrations this code knows, in order, that are not among `applied` (the ids
    APPLIED_MIGRATIONS reads)."""
    return [name for name in migration_ids() if name not in applied]


@functools.cache
def migration_ids() -> tuple[str, ...]:
    """Every migration this code knows (`migrations/`), applied or not: readiness compares
    them with those the store has applied."""
    return tuple(m.id for m in read_migrations(str(MIGRATIONS)))


def _yoyo_url(settings: Settings) -> str:
    if settings.store == "sqlite":
        return f"sqlite:///{settings.sqlite_path}"
    env = settings.ledger_env()
    auth = quote(env["POSTGRES_USER"]) + (
        ":" + quote(env["POSTGRES_PASSWORD"]) if env["POSTGRES_PASSWORD"] else "")
    return (f"postgresql+psycopg://{auth}@{env['POSTGRES_HOST']}:{env['POSTGRES_PORT']}/"
            f"{env['POSTGRES_DBNAME']}?schema={env['POSTGRES_SCHEMA']}")
