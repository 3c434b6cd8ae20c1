"""`pontoon serve` as a real process: gunicorn workers answering over a real socket.

Each test starts the server as a subprocess on a free port, waits (bounded) until
GET /v1/health answers, plays a short deal over HTTP with urllib, checks the answers and
always stops the server, checking it exited. On PostgreSQL the schema is created with
`pontoon migrate` first, in a fresh schema dropped afterwards.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any

import pytest

from benchmarks.service_processes import children, connections

PONTOON = Path(sys.executable).parent / "pontoon"
TOKEN = "pt_e2e_treasurer_token_of_32_characters"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
START_TIMEOUT = 30.0
# Marks the tests that time a served process under attack or load: under `make test`'s
# processes (Makefile, TEST_WORKERS) they share one group, so never two run at once.
SERVED_UNDER_LOAD = pytest.mark.xdist_group("served-under-load")
STOP_TIMEOUT = 20.0

# example_basic_deal: Pat J-8 = 18 sticks, the banker 5-Q = 15 stays: Pat wins 3.
PACK = ["JD", "5C", "8D", "QC", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S",
        "JS", "QS", "KS", "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH",
        "KH", "AD", "2D", "3D", "4D", "5D", "6D", "7D", "9D", "10D", "QD", "KD", "AC", "2C", "3C",
        "4C", "6C", "7C", "8C", "9C", "10C", "JC", "KC"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Answer:
    status: int
    headers: Message  # names are case-insensitive, as HTTP's are (the server sends them lower)
    body: Any


@dataclass
class Server:
    base: str
    process: subprocess.Popen[bytes]
    log: Path

    def call(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> Answer:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={**AUTH, **(headers or {})})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                raw = response.read()
                return Answer(response.status, response.headers, json.loads(raw))
        except urllib.error.HTTPError as error:
            with error:
                raw = error.read()
                return Answer(error.code, error.headers, json.loads(raw) if raw else None)

    def expect(self, status: int, method: str, path: str, body: Any = None,
               headers: dict[str, str] | None = None) -> Any:
        answer = self.call(method, path, body, headers)
        assert answer.status == status, \
            f"{method} {path}: {answer.status} {answer.body}\n{self.log_tail()}"
        return answer.body

    def log_tail(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "server log:\n" + "\n".join(text.splitlines()[-40:])


def _wait_until_healthy(server: Server, auth: dict[str, str] = AUTH) -> dict[str, Any]:
    """GET /v1/health until it answers 200 (with `auth`, the staff view; without, liveness)."""
    deadline = time.monotonic() + START_TIMEOUT
    last: object = None
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"pontoon serve exited with {server.process.returncode} before it "
                        f"answered\n{server.log_tail()}")
        try:
            asked = urllib.request.Request(server.base + "/v1/health", headers=auth)
            with urllib.request.urlopen(asked, timeout=2) as response:
                if response.status == 200:
                    return json.loads(response.read())  # type: ignore[no-any-return]
        except (OSError, urllib.error.URLError) as error:
            last = error
        time.sleep(0.2)
    pytest.fail(f"GET /v1/health did not answer within {START_TIMEOUT}s ({last})\n"
                f"{server.log_tail()}")


def _stop(process: subprocess.Popen[bytes]) -> int:
    """SIGTERM (gunicorn's graceful stop), then SIGKILL if it hangs; the exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT)
            raise AssertionError(f"pontoon serve ignored SIGTERM for {STOP_TIMEOUT}s") from None
    return process.returncode


def _env(database_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PONTOON_")}
    env.update(PONTOON_DATABASE_URL=database_url, PONTOON_TREASURER_TOKEN=TOKEN)
    return env


def _start(database_url: str, folder: Path, *, migrate: bool) -> Server:
    port = free_port()
    log = folder / "serve.log"
    command = [str(PONTOON), "serve", "--port", str(port), "--workers", "2", "--threads", "2"]
    if migrate:
        command.insert(2, "--migrate")
    with log.open("wb") as out:
        # A process group of its own, so a hung server's workers can be killed with it.
        process = subprocess.Popen(command, env=_env(database_url), stdout=out,
                                   stderr=subprocess.STDOUT, cwd=folder,
                                   start_new_session=True)
    return Server(f"http://127.0.0.1:{port}", process, log)


def _serve(database_url: str, tmp_path: Path, *, migrate: bool) -> Iterator[Server]:
    server = _start(database_url, tmp_path, migrate=migrate)
    try:
        yield server
    finally:
        code = _stop(server.process)
    assert code == 0, f"pontoon serve exited with {code}\n{server.log_tail()}"
    assert server.process.poll() is not None


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[Server]:
    yield from _serve(f"sqlite:///{tmp_path}/x.sqlite3", tmp_path, migrate=True)


@pytest.fixture
def postgres_server(postgres_schema: str, tmp_path: Path) -> Iterator[Server]:
    yield from serve_postgres(postgres_schema, tmp_path)


def serve_postgres(postgres_schema: str, tmp_path: Path) -> Iterator[Server]:
    """`pontoon migrate` of a fresh schema, then the server on it."""
    migrated = subprocess.run([str(PONTOON), "migrate"], env=_env(postgres_schema),
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    assert "postgres" in migrated.stdout
    yield from _serve(postgres_schema, tmp_path, migrate=False)


def play_a_short_deal(server: Server, store: str) -> None:
    health = _wait_until_healthy(server)
    assert health["status"] == "ok"
    assert health["store"] == store

    assert server.call("GET", "/v1/players/00000000-0000-0000-0000-000000000000",
                       headers={"Authorization": "Bearer nope"}).status == 401

    operator = server.expect(201, "POST", "/v1/tokens", {"role": "operator"})
    assert operator["role"] == "operator" and operator["token"]
    staff = {"Authorization": f"Bearer {operator['token']}"}

    banker = server.expect(201, "POST", "/v1/players", {"name": "Banker"}, staff)
    pat = server.expect(201, "POST", "/v1/players", {"name": "Pat"}, staff)
    assert pat["name"] == "Pat" and pat["token"]
    bought = server.expect(201, "POST", f"/v1/players/{banker['id']}/buy-ins", {"amount": 50})
    assert bought["balance"] == 50
    assert server.expect(201, "POST", f"/v1/players/{pat['id']}/buy-ins",
                         {"amount": 20})["balance"] == 20
    # An operator may not issue chips.
    refused = server.call("POST", f"/v1/players/{pat['id']}/buy-ins", {"amount": 5}, staff)
    assert refused.status == 403
    assert refused.headers["Content-Type"].startswith("application/problem+json")

    opening = {"name": "e2e", "seats": [banker["id"], pat["id"]], "banker": banker["id"],
               "pack": {"mode": "ordered", "cards": PACK}}
    # Only the treasurer opens a table with an ordered pack (API.md Additions).
    assert server.call("POST", "/v1/tables", opening, staff).status == 403
    table = server.expect(201, "POST", "/v1/tables", opening)
    assert table["banker"] == banker["id"] and table["seats"] == [banker["id"], pat["id"]]

    deal = server.expect(201, "POST", f"/v1/tables/{table['id']}/deals", {}, staff)
    assert deal["phase"] == "staking"
    assert deal["turn"] == {"player_id": pat["id"], "hand": 0}
    actions = f"/v1/deals/{deal['id']}/actions"
    staked = server.expect(200, "POST", actions,
                           {"player_id": pat["id"], "action": "stake", "amount": 3}, staff)
    assert staked["players"][0]["hands"][0]["stake"] == 3
    # The operator is not Pat: Pat's face-down cards are hidden from it.
    assert staked["players"][0]["hands"][0]["cards"] == [None, None]
    # Pat's own token sees Pat's cards.
    mine = server.expect(200, "GET", f"/v1/deals/{deal['id']}",
                         headers={"Authorization": f"Bearer {pat['token']}"})
    assert mine["players"][0]["hands"][0]["cards"] == ["JD", "8D"]
    # The banker may not draw while Pat is still to play: not expected now.
    early = server.call("POST", actions, {"player_id": banker["id"], "action": "draw"}, staff)
    assert early.status == 409, early.body
    assert early.headers["Content-Type"].startswith("application/problem+json")
    server.expect(200, "POST", actions, {"player_id": pat["id"], "action": "stick"}, staff)
    settled = server.expect(200, "POST", actions,
                            {"player_id": banker["id"], "action": "stay"}, staff)
    assert settled["phase"] == "settled"
    assert settled["players"][0]["hands"][0]["cards"] == ["JD", "8D"]
    assert settled["banker"]["cards"] == ["5C", "QC"]

    read = server.expect(200, "GET", f"/v1/deals/{deal['id']}")
    assert read["phase"] == "settled" and read["version"] == settled["version"]
    for player, chips in ((pat, 23), (banker, 47)):
        balance = server.expect(200, "GET", f"/v1/players/{player['id']}/balance")
        assert balance == {**balance, "player_id": player["id"], "balance": chips}
    table_now = server.expect(200, "GET", f"/v1/tables/{table['id']}")
    assert table_now["deals_played"] == 1 and table_now["banker"] == banker["id"]


def test_serve_plays_a_deal_over_a_real_socket_on_sqlite(sqlite_server: Server) -> None:
    play_a_short_deal(sqlite_server, "sqlite")


@pytest.mark.postgres
def test_serve_plays_a_deal_over_a_real_socket_on_postgres(postgres_server: Server) -> None:
    play_a_short_deal(postgres_server, "postgres")


def test_serve_clears_only_its_own_metrics_files_from_the_metrics_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An earlier run's counters must not add to this run's, but PONTOON_METRICS_DIR may
    name a folder that holds other files: only prometheus-client's own are removed."""
    from api.server import metrics_folder
    from config import Settings

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")
    theirs = ["counter_41.db", "histogram_41.db", "gauge_livesum_41.db", "gauge_all_7.db",
              "summary_9.db"]
    others = ["ledger.db", "counter.db", "counter_x.db", "gauge_41.db", "notes.txt"]
    for name in theirs + others:
        (tmp_path / name).write_text("kept?")

    metrics_folder(Settings(metrics_dir=str(tmp_path)))

    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(others)


def test_serve_refuses_a_port_something_already_listens_on(tmp_path: Path) -> None:
    """The workers listen with SO_REUSEPORT (so the kernel spreads connections over them),
    which would let a second service share a port silently: `pontoon serve` checks first
    and exits with the reason, starting nothing."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PONTOON_DATABASE_URL": f"sqlite:///{tmp_path / 'p.sqlite3'}"}

        done = subprocess.run([str(PONTOON), "serve", "--port", str(port)], env=env,
                              capture_output=True, text=True, timeout=STOP_TIMEOUT,
                              cwd=tmp_path)

    assert done.returncode != 0
    assert f"127.0.0.1:{port} is taken" in done.stderr
    assert "serving" not in done.stdout


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie has exited; only its parent's wait is missing (init reaps orphans).
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def _until(condition: Any, what: str, server: Server, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout}s\n{server.log_tail()}"
        time.sleep(0.1)


def test_a_worker_killed_with_sigkill_is_replaced(sqlite_server: Server) -> None:
    """One worker dies under the service (the OOM killer, say): the server starts another,
    and the service answers on."""
    _wait_until_healthy(sqlite_server)
    first = children(sqlite_server.process.pid)
    assert len(first) == 2
    os.kill(first[0], signal.SIGKILL)
    _until(lambda: len(set(children(sqlite_server.process.pid)) - set(first)) == 1,
           "no new worker", sqlite_server)
    for _ in range(20):  # whichever worker each lands on
        assert sqlite_server.call("GET", "/v1/health").status == 200


def test_workers_of_a_server_killed_with_sigkill_stop_and_free_the_port(
        tmp_path: Path) -> None:
    """kill -9 of `pontoon serve` itself leaves its workers orphaned: they notice and stop
    on their own, so the port and the read models' lock are free for the next start, which
    serves the same store."""
    url = f"sqlite:///{tmp_path}/k.sqlite3"
    server = _start(url, tmp_path, migrate=True)
    try:
        _wait_until_healthy(server)
        workers = children(server.process.pid)
        assert len(workers) == 2
        kept = server.expect(201, "POST", "/v1/players", {"name": "Kept"})

        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=STOP_TIMEOUT)
        _until(lambda: all(_gone(pid) for pid in workers),
               "the orphaned workers did not stop", server, timeout=STOP_TIMEOUT)
    finally:
        with contextlib.suppress(ProcessLookupError):  # whatever is left, if it failed
            os.killpg(server.process.pid, signal.SIGKILL)

    (tmp_path / "again").mkdir()
    for again in _serve(url, tmp_path / "again", migrate=False):
        _wait_until_healthy(again)
        assert again.expect(200, "GET", f"/v1/players/{kept['id']}")["name"] == "Kept"


def test_sigterm_while_the_workers_start_stops_the_server(tmp_path: Path) -> None:
    """SIGTERM as soon as the workers exist, while each still builds its app: the server
    stops them and exits 0 at once."""
    server = _start(f"sqlite:///{tmp_path}/s.sqlite3", tmp_path, migrate=True)
    try:
        _until(lambda: len(children(server.process.pid)) == 2, "no workers", server)
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=STOP_TIMEOUT) == 0, server.log_tail()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait()


def test_serve_refuses_a_store_that_is_not_migrated_and_creates_nothing(
        tmp_path: Path) -> None:
    """Without --migrate a store never migrated is refused at once, with what to run,
    rather than each worker failing to boot in turn; no file is made for it (exit 3: the
    store)."""
    store = tmp_path / "none.sqlite3"
    done = subprocess.run([str(PONTOON), "serve", "--port", str(free_port())],
                          env=_env(f"sqlite:///{store}"), capture_output=True, text=True,
                          timeout=STOP_TIMEOUT, cwd=tmp_path)
    assert done.returncode == 3
    assert "there is no store" in done.stderr and "pontoon migrate" in done.stderr
    assert not store.exists()


@pytest.mark.postgres
def test_serve_refuses_a_store_it_cannot_open(postgres_schema: str, tmp_path: Path) -> None:
    """A database that does not exist: the reason, at once, not workers waiting out their
    pools' 30 s one after another."""
    url = postgres_schema.rsplit("/", 1)[0] + "/pontoon_no_such_database"
    began = time.monotonic()
    done = subprocess.run([str(PONTOON), "serve", "--port", str(free_port())],
                          env=_env(url), capture_output=True, text=True,
                          timeout=STOP_TIMEOUT, cwd=tmp_path)
    assert done.returncode == 3
    assert "cannot open the postgres store" in done.stderr
    assert "pontoon_no_such_database" in done.stderr
    assert time.monotonic() - began < STOP_TIMEOUT / 2


def _held_per_worker(server_pid: int, port: int) -> list[int]:
    """Established connections to `port` each of the server's workers holds (from /proc,
    as the service benchmark counts them)."""
    return connections(children(server_pid), port)


def test_keep_alive_connections_even_out_over_the_workers(sqlite_server: Server) -> None:
    """Eight clients keeping their connections alive end four and four on two workers,
    however the kernel first spread them (api/spread.py): a worker above its share closes
    the connection it serves, and the client's next one lands afresh. Once even, none is
    closed."""
    _wait_until_healthy(sqlite_server)
    port = int(sqlite_server.base.rsplit(":", 1)[1])
    clients = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(8)]
    closed = 0
    try:
        for round_ in range(60):
            for client in clients:
                client.request("GET", "/v1/health")
                response = client.getresponse()
                response.read()
                assert response.status == 200
                if response.getheader("Connection", "").lower() == "close":
                    closed += round_ >= 40  # late closes: it did not settle
        held = _held_per_worker(sqlite_server.process.pid, port)
    finally:
        for client in clients:
            client.close()
    assert sorted(held) == [4, 4], held
    assert closed == 0
