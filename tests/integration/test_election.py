"""The election of the one process that runs the read models (projections/election.py):
a file lock with SQLite, a PostgreSQL advisory lock held on a session of its own."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path
from uuid import uuid4

import pytest

from api import create_app
from config import Settings
from projections.election import election_for
from tests.integration.projection_session import PONTOON, pontoon_env

DEADLINE = 30.0


def wait_for(log: Path, text: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while text not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"{text!r} not in {log.name}:\n{log.read_text()}"
        time.sleep(0.1)


def run(settings: Settings, tmp_path: Path, name: str) -> subprocess.Popen[bytes]:
    with open(tmp_path / name, "wb") as log:
        return subprocess.Popen([str(PONTOON), "projections", "run"], stdout=log,
                                stderr=subprocess.STDOUT, env=pontoon_env(settings),
                                cwd=tmp_path)


def test_one_process_is_elected_and_another_takes_over_when_it_lets_go(store_settings):
    first, second = election_for(store_settings), election_for(store_settings)

    assert first.acquire() and first.alive()
    assert not second.acquire()
    first.release()
    assert second.acquire() and second.alive()
    second.release()


@pytest.mark.postgres
def test_each_store_on_one_server_has_an_election_of_its_own(postgres_schema: str):
    """Schemas of one database are separate stores: their locks are separate too."""
    other = f"{postgres_schema.partition('?')[0]}?schema=other_{uuid4().hex[:12]}"
    mine, theirs = election_for(Settings(database_url=postgres_schema)), \
        election_for(Settings(database_url=other))

    try:
        assert mine.acquire() and theirs.acquire()
    finally:
        mine.release()
        theirs.release()


def test_projections_run_says_when_another_runner_holds_the_lock_and_takes_over_at_its_death(
        store_settings, tmp_path):
    """Issue 12: `pontoon projections run` stays, and says so when another runner already
    holds the lock; killed with SIGKILL, the holder lets go and the other takes over."""
    holder = run(store_settings, tmp_path, "a.log")
    try:
        wait_for(tmp_path / "a.log", "elected to run the read models")
        waiting = run(store_settings, tmp_path, "b.log")
        try:
            wait_for(tmp_path / "b.log", "another runner holds the lock; standing by")
            holder.kill()
            holder.wait(timeout=DEADLINE)
            wait_for(tmp_path / "b.log", "elected to run the read models")
        finally:
            waiting.terminate()
            assert waiting.wait(timeout=DEADLINE) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=DEADLINE)


def test_a_service_with_projections_off_stays_out_of_the_election(store_settings):
    """PONTOON_PROJECTIONS=off: the process never takes the lock, so another may."""
    app = create_app(replace(store_settings, projections="off"))
    try:
        other = election_for(store_settings)

        assert not any(t.name == "projections-election" for t in threading.enumerate())
        assert other.acquire()
        other.release()
    finally:
        app.extensions["pontoon"].close()


def test_the_service_stands_in_the_election_on_every_store_unless_told_off():
    for url in ("sqlite:///x.sqlite3", "postgresql://u@h/db"):
        assert Settings(database_url=url).projections_in_process
        assert Settings(database_url=url, projections="in-process").projections_in_process
        assert not Settings(database_url=url, projections="off").projections_in_process
