"""Fixtures for every test folder: the stores the ledger runs on.

`store_settings` is parametrised over SQLite and PostgreSQL, so each test that uses it runs
on both. PostgreSQL needs PONTOON_TEST_POSTGRES_URL (`.ci/run` starts a throwaway server and
sets it); without it those tests skip, unless PONTOON_REQUIRE_POSTGRES=1 makes them fail.
Each test gets a store of its own, dropped afterwards: a copy of a store migrated once per
session (tests/migrated.py), a database of its own on PostgreSQL.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from application import Ledger
from application.store import build_ledger, migrate
from config import Settings
from tests import migrated

# Every command's answer is held to its schema's dump in every app the tests build,
# servers started as subprocesses included (api/common.py `_answered`).
os.environ["PONTOON_CHECK_ANSWERS"] = "1"

POSTGRES_HOW_TO = ("PostgreSQL tests need PONTOON_TEST_POSTGRES_URL=postgresql://user@host:port/db "
                   "(`bash .ci/run` starts a throwaway server and sets it)")


def postgres_url() -> str | None:
    url = os.environ.get("PONTOON_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("PONTOON_REQUIRE_POSTGRES") == "1":
            pytest.fail("PONTOON_REQUIRE_POSTGRES=1 but " + POSTGRES_HOW_TO)
        pytest.skip(POSTGRES_HOW_TO)
    return url


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any) -> Iterator[None]:
    """After pytest's own summary, just above its last line: every test skipped, grouped by
    why, so a run that quietly left out a store or the browser says so at its end."""
    yield
    groups: dict[str, list[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        where, reason = report.nodeid.split("::")[0], "skipped"
        if isinstance(report.longrepr, tuple):
            where = os.path.relpath(report.longrepr[0], terminalreporter.config.rootpath)
            reason = str(report.longrepr[2])
        groups.setdefault(reason.removeprefix("Skipped: "), []).append(where)
    total = sum(len(places) for places in groups.values())
    terminalreporter.write_sep("=", f"skipped tests, by reason: {total}")
    if not groups:
        terminalreporter.write_line("no test was skipped")
    for reason, places in sorted(groups.items(), key=lambda item: -len(item[1])):
        files = sorted(set(places))
        terminalreporter.write_line(f"{len(places):6d}  {reason}")
        terminalreporter.write_line(f"        in {len(files)} file(s): {', '.join(files[:4])}"
                                    + (", ..." if len(files) > 4 else ""))


@pytest.fixture
def postgres_schema() -> Iterator[str]:
    """A fresh schema on the test server: `postgresql://...?schema=NAME`."""
    import psycopg

    url = postgres_url()
    assert url is not None
    schema = f"test_{uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    yield f"{url}?schema={schema}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated.sqlite_template(tmp_path_factory.mktemp("migrated"))


@pytest.fixture(scope="session")
def migrated_postgres() -> Iterator[str | None]:
    url = postgres_url()
    assert url is not None
    with migrated.postgres_template(url) as template:
        yield template


@pytest.fixture(params=["sqlite", "postgres"])
def store_settings(request: pytest.FixtureRequest, tmp_path) -> Iterator[Settings]:  # type: ignore[no-untyped-def]
    """Settings for a migrated, empty store of each kind (a copy of one migrated once:
    tests/migrated.py). No signing key unless a test makes one: never the checkout's."""
    no_key = str(tmp_path / "no-signing-key")
    if request.param == "sqlite":
        url = migrated.sqlite_copy(request.getfixturevalue("migrated_sqlite"),
                                   tmp_path / "ledger.sqlite3")
        yield Settings(database_url=url, signing_key_file=no_key)
        return
    template = request.getfixturevalue("migrated_postgres")
    if template is None:  # the server's user may not create databases
        url = request.getfixturevalue("postgres_schema")
        settings = Settings(database_url=url, pool_size=2, pool_overflow=10,
                            signing_key_file=no_key)
        migrate(settings)
        yield settings
        return
    server = postgres_url()
    assert server is not None
    with migrated.postgres_copy(server, template) as url:
        yield Settings(database_url=url, pool_size=2, pool_overflow=10,
                       signing_key_file=no_key)


@pytest.fixture
def ledger(store_settings: Settings) -> Iterator[Ledger]:
    app = build_ledger(store_settings)
    yield app
    app.close()


TREASURER_TOKEN = "pt_test_treasurer_token"
# The shared test apps answer many unknown tokens on purpose (role matrices, fuzzing): the
# failed-authentication limit is tested on apps of its own (tests/api/test_tokens.py).
UNLIMITED = "1000000 per minute"


@pytest.fixture
def app(store_settings: Settings):  # type: ignore[no-untyped-def]
    """The Flask app on each store, with a bootstrap treasurer token (TREASURER_TOKEN)."""
    from dataclasses import replace

    from api import create_app

    flask_app = create_app(replace(store_settings, treasurer_token=TREASURER_TOKEN,
                                   projections="in-process", auth_failure_limit=UNLIMITED))
    yield flask_app
    flask_app.extensions["pontoon"].close()


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


@pytest.fixture
def treasurer() -> dict[str, str]:
    """Headers of the bootstrap treasurer."""
    return {"Authorization": f"Bearer {TREASURER_TOKEN}"}
