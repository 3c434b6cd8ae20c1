"""`pontoon backup PATH`: a copy of the SQLite store taken while commands are being written
is a whole store: `pontoon verify` passes on it and its read models agree with its events."""

from __future__ import annotations

import threading
import time
from pathlib import Path

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

BACKUPS = 3


def test_a_backup_taken_while_commands_are_written_restores_and_verifies(tmp_path: Path):
    """Issue 12: three backups taken during a stream of commands (and the read models
    following it) each serve as a store: verify passes, every event is readable, the read
    models of the copy catch up and their balances are its aggregates' and sum to zero."""
    settings = Settings(database_url=f"sqlite:///{tmp_path}/live.sqlite3")
    migrate(settings)
    writer, follower = build_ledger(settings), build_ledger(settings)
    runner = Projections(follower, read_store(follower, settings))  # type: ignore[arg-type]
    stop, failures = threading.Event(), []

    def write() -> None:
        try:
            while not stop.is_set():
                play_session(writer, after_command=lambda: time.sleep(0.002))
        except BaseException as error:  # noqa: BLE001 (reported below)
            failures.append(error)

    threads = [threading.Thread(target=write), threading.Thread(target=runner.follow,
                                                                args=(stop,))]
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
