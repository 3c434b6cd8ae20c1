"""`pontoon projections run` as a real process, killed with SIGKILL while commands are being
written, then restarted: every read-model table ends exactly as a rebuild from the log makes
it, so no event was applied twice and none was missed (exactly once, docs/architecture.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from application.store import build_ledger
from projections.runner import Projections
from projections.store import read_store
from tests.integration.ledger_views import head
from tests.integration.projection_session import (
    PONTOON,
    aggregate_balances,
    dump,
    play_session,
    pontoon,
    pontoon_env,
    read_balances,
    same_balances,
    total,
)

SESSIONS = 2  # at least; each about 160 events. The writer goes on until the last kill.
PAUSE = 0.004  # between commands
KILLS = 2


def wait_until(condition: Callable[[], bool], timeout: float, what: str,
               logs: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            told = "" if logs is None else "\n".join(
                f"{log.name}: {log.read_text(errors='replace')[-1500:]}"
                for log in sorted(logs.glob("runner-*.log")))
            raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{told}")
        time.sleep(0.02)


def start_runner(settings, tmp_path: Path, n: int) -> subprocess.Popen[bytes]:  # type: ignore[no-untyped-def]
    with open(tmp_path / f"runner-{n}.log", "wb") as log:  # the child keeps its own handle
        return subprocess.Popen([str(PONTOON), "projections", "run"],
                                env=pontoon_env(settings), cwd=tmp_path, stdout=log,
                                stderr=subprocess.STDOUT)


def test_a_runner_killed_while_commands_are_written_resumes_exactly_where_it_stopped(
        store_settings, ledger, tmp_path):
    """Exactly once (R11.1): SIGKILL the runner twice in the middle of a stream of commands,
    restart it each time, let it catch up and stop it (SIGTERM): the tables equal a rebuild
    of the same log, the balances are the aggregates' and sum to zero, and `pontoon
    projections status` shows every read model at lag 0."""
    store = read_store(ledger, store_settings)
    assert store is not None
    watcher = Projections(ledger, store)
    writer = build_ledger(store_settings)
    written, all_killed, failures = threading.Event(), threading.Event(), []

    def write() -> None:
        try:
            for n in range(20):
                if n >= SESSIONS and all_killed.is_set():
                    break
                play_session(writer, after_command=lambda: time.sleep(PAUSE))
        except BaseException as error:  # noqa: BLE001 (reported below)
            failures.append(error)
        finally:
            written.set()

    def positions() -> list[int]:
        return [state["position"] for state in watcher.status().values()]

    thread = threading.Thread(target=write, daemon=True)
    runner = start_runner(store_settings, tmp_path, 0)
    killed: list[tuple[bool, list[int]]] = []
    try:
        thread.start()
        for n in range(1, KILLS + 1):
            reached = max(positions())
            wait_until(lambda r=reached: max(positions()) > r, 20, "the runner to apply events",
                       tmp_path)
            os.kill(runner.pid, signal.SIGKILL)
            runner.wait(timeout=10)
            killed.append((written.is_set(), positions()))
            runner = start_runner(store_settings, tmp_path, n)
        all_killed.set()
        thread.join(timeout=60)
        assert not thread.is_alive() and failures == []
        wait_until(lambda: set(watcher.lags().values()) == {0}, 30, "the runner to catch up",
                   tmp_path)
        runner.send_signal(signal.SIGTERM)
        stopped = runner.wait(timeout=10)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait(timeout=10)
        writer.close()
    followed = dump(store)
    Projections(ledger, store).rebuild()
    rebuilt = dump(store)
    status = pontoon(store_settings, "projections", "status", cwd=tmp_path)

    assert stopped == 0
    assert [was_written for was_written, _ in killed] == [False] * KILLS
    assert all(min(at) < head(ledger) for _, at in killed)
    assert head(ledger) > SESSIONS * 150
    assert followed == rebuilt
    assert same_balances(read_balances(store), aggregate_balances(ledger))
    assert total(store) == 0
    assert status.returncode == 0, status.stderr
    cells = [[cell.strip() for cell in line.strip("│ ").split("│")]
             for line in status.stdout.splitlines()]
    rows = {row[0]: row[1:] for row in cells if row[0] in watcher.lags()}
    assert rows == {name: [str(head(ledger)), "0"] for name in watcher.lags()}, status.stdout


def test_projections_rebuild_on_the_command_line_gives_identical_tables(
        store_settings, ledger, tmp_path):
    """R11.4 (read models are derived, never the record): `pontoon projections rebuild`
    drops every row and applies the log again: the same tables the runner built."""
    store = read_store(ledger, store_settings)
    assert store is not None
    play_session(ledger)
    Projections(ledger, store).catch_up()
    before = dump(store)

    rebuilt = pontoon(store_settings, "projections", "rebuild", cwd=tmp_path)

    assert rebuilt.returncode == 0, rebuilt.stderr
    assert f"from {head(ledger)} events" in \
        rebuilt.stdout
    assert dump(store) == before
