"""The service as an operator runs it on PostgreSQL (issue 12): `pontoon migrate`, then
`pontoon serve` on several hosts (here two processes on two ports), nothing else.

- Two hosts under conflicting load; the one running the read models is killed with SIGKILL:
  the other takes over, reads catch up, every acknowledged command is recorded once,
  balances total zero, the read models equal a rebuild and `pontoon verify` passes.
- One host stopped with SIGTERM under load: it answers what it accepted, finishes its page
  and exits 0; nothing acknowledged is lost and no page was applied twice. Its log lines
  are JSON with request ids, and its metrics add up every worker's counters.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from application.store import build_ledger
from config import Settings
from projections.election import lock_key
from projections.runner import Projections
from projections.store import read_store
from tests.e2e.load import (
    PONTOON,
    TOKEN,
    Load,
    Server,
    call,
    environment,
    free_port,
    read_until,
    statement,
)
from tests.e2e.test_serve import SERVED_UNDER_LOAD, _stop, _wait_until_healthy
from tests.integration.projection_session import dump

pytestmark = [pytest.mark.postgres, pytest.mark.slow, SERVED_UNDER_LOAD]
CLIENTS = 4
LOAD_SECONDS = 1.5  # before the kill, and again after it
TAKEOVER = 30.0  # seconds, generous: the lock is free as soon as the holder's socket closes


def start(database_url: str, tmp_path: Path, name: str, **env: str) -> Server:
    port = free_port()
    log = tmp_path / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(PONTOON), "serve", "--port", str(port), "--workers", "2", "--threads", "4"],
            env=environment(database_url, **env), stdout=out, stderr=subprocess.STDOUT,
            cwd=tmp_path, start_new_session=True)
    server = Server(f"http://127.0.0.1:{port}", process, log)
    _wait_until_healthy(server)
    return server


@pytest.fixture
def database(postgres_schema: str, tmp_path: Path) -> str:
    migrated = subprocess.run([str(PONTOON), "migrate"], env=environment(postgres_schema),
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    return postgres_schema


@pytest.fixture
def servers(database: str, tmp_path: Path) -> Iterator[list[Server]]:
    started: list[Server] = []
    try:
        for name in ("host-a", "host-b"):
            started.append(start(database, tmp_path, name))
        yield started
    finally:
        for server in started:
            if server.process.poll() is None:
                _stop(server.process)


def players(server: Server, count: int = 3) -> list[str]:
    ids = []
    for n in range(count):
        status, player = call(server.base, "POST", "/v1/players", {"name": f"P{n}"})
        assert status == 201, player
        status, bought = call(server.base, "POST", f"/v1/players/{player['id']}/buy-ins",
                              {"amount": 50})
        assert status == 201, bought
        ids.append(player["id"])
    return ids


def holder_pid(database_url: str) -> int | None:
    """The worker process holding the read models' advisory lock (its application_name)."""
    import psycopg

    base, _, query = database_url.partition("?")
    schema = dict(q.split("=", 1) for q in query.split("&") if q).get("schema", "public")
    key = lock_key(schema) & 0xFFFF_FFFF_FFFF_FFFF
    with psycopg.connect(base, autocommit=True) as conn:
        row = conn.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
            "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.classid = %s AND l.objid = %s", (key >> 32, key & 0xFFFF_FFFF)).fetchone()
    return int(row[0].rsplit(" ", 1)[1]) if row else None


def run_load(load: Load, seconds: float, stop: threading.Event) -> list[threading.Thread]:
    threads = [threading.Thread(target=load.run, args=(stop, n), daemon=True)
               for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    return threads


def assert_each_acknowledged_once(server: Server, load: Load) -> int:
    """Every acknowledged command's posting is on its player's statement exactly once, and
    nothing else is (besides the opening buy-ins); returns the last position."""
    last = max(a.position for a in load.acknowledged)
    read_until(server, f"/v1/balances?min_position={last}")
    for player in load.players:
        entries = statement(server, player, last)
        counted = Counter(entry["id"] for entry in entries)
        mine = {a.posting_id for a in load.acknowledged if a.player == player}
        assert all(counted[posting] == 1 for posting in mine), \
            [p for p in mine if counted[p] != 1]
        assert max(counted.values()) == 1
        assert len(entries) >= len(mine) + 1  # the opening buy-in too
    return last


def assert_read_models_equal_a_rebuild(database_url: str) -> None:
    settings = Settings(database_url=database_url, pool_size=1, pool_overflow=2)
    ledger = build_ledger(settings)
    try:
        store = read_store(ledger, settings)
        assert store is not None
        runner = Projections(ledger, store)
        runner.catch_up()
        applied = dump(store)
        runner.rebuild()
        assert applied == dump(store)
    finally:
        ledger.close()


def verify(database_url: str, tmp_path: Path) -> None:
    checked = subprocess.run([str(PONTOON), "verify"], env=environment(database_url),
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_two_hosts_under_conflicting_load_survive_the_kill_of_the_one_running_the_read_models(
        database: str, servers: list[Server], tmp_path: Path) -> None:
    """Issue 12, many hosts: no second process to remember, no command lost or doubled."""
    load = Load(servers, players(servers[0]))
    stop = threading.Event()
    threads = run_load(load, LOAD_SECONDS, stop)
    holder = holder_pid(database)
    assert holder is not None, "no serve process runs the read models"
    killed = next(s for s in servers if os.getpgid(holder) == s.process.pid)
    survivor = next(s for s in servers if s is not killed)

    os.killpg(killed.process.pid, signal.SIGKILL)
    killed.process.wait(timeout=30)
    time.sleep(LOAD_SECONDS)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    deadline = time.monotonic() + TAKEOVER
    while (new := holder_pid(database)) is None or os.getpgid(new) != survivor.process.pid:
        assert time.monotonic() < deadline, "no survivor took the read models over"
        time.sleep(0.2)
    assert load.errors == [] and len(load.acknowledged) > 20, (load.errors, survivor.log_tail())
    last = assert_each_acknowledged_once(survivor, load)
    balances = read_until(survivor, f"/v1/balances?min_position={last}")
    assert balances["total"] == 0
    expected = {p: 50 + sum(a.change for a in load.acknowledged if a.player == p)
                for p in load.players}
    shown = {a["account"].removeprefix("player:"): a["balance"] for a in balances["accounts"]
             if a["account"].startswith("player:")}
    assert shown == expected
    assert _stop(survivor.process) == 0
    assert_read_models_equal_a_rebuild(database)
    verify(database, tmp_path)


def test_sigterm_finishes_what_it_accepted_and_exits_without_losing_or_doubling_anything(
        database: str, tmp_path: Path) -> None:
    """Issue 12, graceful shutdown; and its logs are JSON with request ids, its metrics
    gather every worker's."""
    server = start(database, tmp_path, "host")
    try:
        load = Load([server], players(server))
        stop = threading.Event()
        threads = run_load(load, LOAD_SECONDS, stop)
        status, metrics = call(server.base, "GET", "/metrics")
        call(server.base, "GET", "/v1/health", headers={"X-Request-Id": "e2e-request-7"})

        server.process.send_signal(signal.SIGTERM)
        code = server.process.wait(timeout=60)
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        if server.process.poll() is None:
            _stop(server.process)

    assert code == 0, server.log_tail()
    assert load.errors == [] and load.acknowledged, (load.errors, server.log_tail())
    after = start(database, tmp_path, "after")
    try:
        assert_each_acknowledged_once(after, load)
    finally:
        assert _stop(after.process) == 0
    assert_read_models_equal_a_rebuild(database)
    lines = [json.loads(line) for line in server.log.read_text().splitlines()
             if line.startswith("{")]
    assert any(line.get("request_id") == "e2e-request-7" and line.get("status") == 200
               for line in lines)
    assert any("the read models stopped at position" in line["message"] for line in lines)
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    assert TOKEN not in server.log.read_text()
    assert status == 200 and "pontoon_commands_total" in metrics
