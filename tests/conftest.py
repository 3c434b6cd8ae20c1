"""Fixtures for every test folder: the stores the ledger runs on.

`store_settings` is parametrised over SQLite and PostgreSQL, so each test that uses it runs
on both. PostgreSQL needs PONTOON_TEST_POSTGRES_URL (`.ci/run` starts a throwaway server and
sets it); without it those tests skip, unless PONTOON_REQUIRE_POSTGRES=1 makes them fail.
Each PostgreSQL test gets a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from uuid import uuid4

import pytest

from application import Ledger
from application.store import build_ledger, migrate
from config import Settings

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


@pytest.fixture(params=["sqlite", "postgres"])
def store_settings(request: pytest.FixtureRequest, tmp_path) -> Iterator[Settings]:  # type: ignore[no-untyped-def]
    """Settings for a migrated, empty store of each kind."""
    if request.param == "sqlite":
        settings = Settings(database_url=f"sqlite:///{tmp_path}/ledger.sqlite3")
        migrate(settings)
        yield settings
        return
    url = request.getfixturevalue("postgres_schema")
    settings = Settings(database_url=url, pool_size=2, pool_overflow=10)
    migrate(settings)
    yield settings


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
