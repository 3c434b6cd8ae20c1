"""Migrated, empty stores for the tests, copied from one migrated once per session (per
process under `make test`, pytest-xdist).

Migrating a store applies every migration through yoyo: about 0.5 s on PostgreSQL and
0.1 s on SQLite, paid by each of the ~1,100 tests that ask for a store. A copy of a store
migrated once is the same store (no migration writes anything random or dated; the
PostgreSQL functions name their schema, which the copies keep): a SQLite file copied in a
millisecond, a PostgreSQL database made from a template database in about 35 ms
(`STRATEGY FILE_COPY`). The migrations themselves are still applied here once a session on each
store, and by every test that migrates a store of its own (the API modules' shared stores,
the stateful tests, `pontoon migrate` in the CLI and e2e tests, the table names' migration
of older stores in tests/integration/test_table_names.py).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import uuid4

from application.store import migrate
from config import Settings

SCHEMA = "ledger"  # the schema of every PostgreSQL copy


def sqlite_template(folder: Path) -> Path:
    """A migrated SQLite store in `folder`, its log folded into the file so one copy of
    the file is the whole store."""
    path = folder / "migrated.sqlite3"
    migrate(Settings(database_url=f"sqlite:///{path}"))
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def sqlite_copy(template: Path, path: Path) -> str:
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


@contextmanager
def postgres_template(url: str) -> Iterator[str | None]:
    """A migrated database on the test server, named for this session; None when the
    server's user may not create databases (each test then migrates a schema of its own)."""
    import psycopg

    name = f"pontoon_template_{uuid4().hex[:12]}"
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.errors.InsufficientPrivilege:
        yield None
        return
    try:
        base = url.split("?")[0].rsplit("/", 1)[0]
        with psycopg.connect(f"{base}/{name}", autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{SCHEMA}"')
        migrate(Settings(database_url=f"{base}/{name}?schema={SCHEMA}"))
        yield name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def postgres_copy(url: str, template: str) -> Iterator[str]:
    """A database of its own, copied from the template: `postgresql://.../NAME?schema=`."""
    import psycopg

    name = f"test_{uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
    try:
        yield f"{url.split('?')[0].rsplit('/', 1)[0]}/{name}?schema={SCHEMA}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
