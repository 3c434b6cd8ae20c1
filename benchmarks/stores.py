"""What the benchmarks share: the machine's description and throwaway stores."""

from __future__ import annotations

import os
import platform
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import uuid4

from application.store import migrate
from config import Settings


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = ""
    try:
        with open("/proc/meminfo") as info:
            kib = int(next(line.split()[1] for line in info if line.startswith("MemTotal")))
        memory = f", {kib / 1024 / 1024:.1f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = ", load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    return (f"machine: {cpu}, {os.cpu_count()} cores{memory}, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}, "
            f"SQLite {sqlite3.sqlite_version}{load}")


def postgres_url() -> str | None:
    """The server to measure PostgreSQL on (PONTOON_TEST_POSTGRES_URL), or None, said."""
    url = os.environ.get("PONTOON_TEST_POSTGRES_URL")
    if not url:
        print("PostgreSQL: SKIPPED (set PONTOON_TEST_POSTGRES_URL=postgresql://user@host:"
              "port/db to measure it)")
    return url


@contextmanager
def sqlite_store() -> Iterator[Settings]:
    """A migrated store in a temporary file, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="pontoon-bench-") as folder:
        settings = Settings(database_url=f"sqlite:///{folder}/ledger.sqlite3")
        migrate(settings)
        yield settings


@contextmanager
def postgres_store(url: str) -> Iterator[Settings]:
    """A migrated store in a fresh schema of the server at `url`, dropped afterwards."""
    import psycopg

    schema = f"bench_{uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        version = conn.execute("SHOW server_version").fetchone()
    print(f"PostgreSQL {version[0] if version else '?'}, psycopg {psycopg.__version__} "
          f"({psycopg.pq.__impl__}), schema {schema}")
    try:
        settings = Settings(database_url=f"{url}?schema={schema}")
        migrate(settings)
        yield settings
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        print(f"schema {schema} dropped")
