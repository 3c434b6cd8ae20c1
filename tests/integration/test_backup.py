"""`pontoon backup PATH`: a copy of the SQLite store taken while commands are being written
is a whole store: `pontoon verify` passes on it and its read models agree with its events."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from application.store import build_ledger, migrate
from config import Settings
from projections.runner import Projections
from projections.store import read_store
from tests.integration.projection_session import (
    aggregate_balances,
    play_session,
    pontoon,
    read_balances,
    same_balances,
    total,
)

BACKUPS = 2


def keep_playing(writer: Any, stop: threading.Event, failures: list[BaseException]) -> None:
    """Play sessions until `stop`, as a club would under a backup; errors are kept."""
    try:
        while not stop.is_set():
            play_session(writer, after_command=lambda: time.sleep(0.002))
    except BaseException as error:  # noqa: BLE001 (reported by the test)
        failures.append(error)


def test_a_backup_taken_while_commands_are_written_restores_and_verifies(tmp_path: Path):
    """Issue 12: backups taken during a stream of commands (and the read models
    following it) each serve as a store: verify passes, every event is readable, the read
    models of the copy catch up and their balances are its aggregates' and sum to zero."""
    settings = Settings(database_url=f"sqlite:///{tmp_path}/live.sqlite3")
    migrate(settings)
    writer, follower = build_ledger(settings), build_ledger(settings)
    runner = Projections(follower, read_store(follower, settings))  # type: ignore[arg-type]
    stop = threading.Event()
    failures: list[BaseException] = []

    threads = [threading.Thread(target=keep_playing, args=(writer, stop, failures)),
               threading.Thread(target=runner.follow, args=(stop,))]
    for thread in threads:
        thread.start()
    copies = []
    try:
        for n in range(BACKUPS):
            time.sleep(0.3)  # let some commands land between two copies
            copy = tmp_path / f"copy-{n}.sqlite3"
            made = pontoon(settings, "backup", str(copy), cwd=tmp_path)
            assert made.returncode == 0, made.stdout + made.stderr
            copies.append(copy)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        writer.close()
        follower.close()
    assert failures == []

    heads = []
    for copy in copies:
        restored = Settings(database_url=f"sqlite:///{copy}")
        verified = pontoon(restored, "verify", cwd=tmp_path)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        ledger = build_ledger(restored)
        try:
            store = read_store(ledger, restored)
            assert store is not None
            Projections(ledger, store).catch_up()
            assert same_balances(read_balances(store), aggregate_balances(ledger))
            assert total(store) == 0
            heads.append(ledger.recorder.max_notification_id())
        finally:
            ledger.close()
    assert heads == sorted(heads) and heads[0] > 0 and len(set(heads)) == BACKUPS


def test_backup_will_not_overwrite_a_file(tmp_path: Path):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/live.sqlite3")
    migrate(settings)
    (tmp_path / "taken.sqlite3").write_text("something else")

    refused = pontoon(settings, "backup", str(tmp_path / "taken.sqlite3"), cwd=tmp_path)

    assert refused.returncode != 0 and "exists already" in refused.stderr
    assert (tmp_path / "taken.sqlite3").read_text() == "something else"


@pytest.mark.postgres
def test_backup_of_postgresql_points_to_pg_dump(postgres_schema: str, tmp_path: Path):
    refused = pontoon(Settings(database_url=postgres_schema), "backup",
                      str(tmp_path / "x.dump"), cwd=tmp_path)

    assert refused.returncode != 0 and "pg_dump" in refused.stderr
    assert not (tmp_path / "x.dump").exists()


def _postgres_tool(name: str) -> str:
    found = shutil.which(name) or next(
        (str(p) for p in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))), None)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


@pytest.mark.postgres
def test_the_readmes_pg_dump_recipe_taken_while_commands_are_written_restores_and_verifies(
        postgres_schema: str, tmp_path: Path):
    """Issue 12: the README's PostgreSQL backup (pg_dump of the store's schema, pg_restore
    into a new database) taken during a stream of commands passes `pontoon verify`."""
    import psycopg

    settings = Settings(database_url=postgres_schema, pool_size=2)
    migrate(settings)
    base, _, query = postgres_schema.partition("?")
    schema = query.removeprefix("schema=")
    writer, stop = build_ledger(settings), threading.Event()
    failures: list[BaseException] = []

    thread = threading.Thread(target=keep_playing, args=(writer, stop, failures))
    thread.start()
    try:
        time.sleep(0.5)
        dumped = subprocess.run([_postgres_tool("pg_dump"), "--format=custom", "--no-owner",
                                 f"--schema={schema}", f"--file={tmp_path / 'x.dump'}", base],
                                capture_output=True, text=True, timeout=120)
    finally:
        stop.set()
        thread.join(timeout=60)
        writer.close()
    assert dumped.returncode == 0 and failures == [], dumped.stderr
    restored_db = f"restored_{uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{restored_db}"')
    try:
        restored = f"{base.rsplit('/', 1)[0]}/{restored_db}"
        loaded = subprocess.run([_postgres_tool("pg_restore"), "--no-owner", "--clean",
                                 "--if-exists", f"--dbname={restored}", str(tmp_path / "x.dump")],
                                capture_output=True, text=True, timeout=120)
        assert loaded.returncode == 0, loaded.stderr
        checked = pontoon(Settings(database_url=f"{restored}?schema={schema}"), "verify",
                          cwd=tmp_path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "checked 0 events" not in checked.stdout
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{restored_db}" WITH (FORCE)')
