"""Conflicting load for the e2e tests of the service: clients that post buy-ins and
cash-outs on the same few players through any of several `pontoon serve` processes, each
with an Idempotency-Key, sent again to another host when one stops answering. A command is
acknowledged when a host answered it 201; each must then be in the ledger exactly once."""

from __future__ import annotations

import http.client
import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.test_serve import AUTH, PONTOON, TOKEN, Server, _env, free_port  # noqa: F401

GIVE_UP = 30.0  # seconds a client keeps trying one command on the hosts still up


@dataclass(frozen=True)
class Acknowledged:
    key: str
    player: str
    change: int
    posting_id: str
    position: int


@dataclass
class Load:
    servers: list[Server]
    players: list[str]
    acknowledged: list[Acknowledged] = field(default_factory=list)
    unanswered: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, stop: threading.Event, client: int) -> None:
        rng = random.Random(client)
        sent = 0
        while not stop.is_set():
            player = rng.choice(self.players)
            kind = rng.choice(["buy-ins", "buy-ins", "cash-outs"])
            amount = rng.randint(1, 5)
            key = f"client-{client}-{sent}"
            sent += 1
            answer = send(self.servers, rng.randrange(len(self.servers)), "POST",
                          f"/v1/players/{player}/{kind}", {"amount": amount},
                          {"Idempotency-Key": key})
            with self.lock:
                if answer is None:
                    self.unanswered += 1
                elif answer[0] == 201:
                    self.acknowledged.append(Acknowledged(
                        key, player, amount if kind == "buy-ins" else -amount,
                        answer[1]["posting_id"], answer[1]["position"]))
                elif answer[0] >= 500:
                    self.errors.append(f"{answer[0]} {answer[1]}")


def send(servers: list[Server], first: int, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any] | None:
    """The answer of the first host that answers, trying each in turn (the same request,
    the same Idempotency-Key); None if none did within GIVE_UP seconds."""
    deadline = time.monotonic() + GIVE_UP
    turn = first
    while time.monotonic() < deadline:
        if all(s.process.poll() is not None for s in servers):
            return None
        server = servers[turn % len(servers)]
        turn += 1
        if server.process.poll() is not None:
            continue
        try:
            return call(server.base, method, path, body, headers)
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)  # this host is gone or going: another one, or it again
    return None


def call(base: str, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={**AUTH, **(headers or {})})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, _body(response.read(), response.headers)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, _body(error.read(), error.headers)


def _body(raw: bytes, headers: Any) -> Any:
    if not raw:
        return None
    return json.loads(raw) if "json" in headers.get("Content-Type", "") else raw.decode()


def read_until(server: Server, path: str, deadline: float = 60.0) -> Any:
    """A read with min_position, asked again while the read models catch up (503)."""
    until = time.monotonic() + deadline
    while True:
        status, body = call(server.base, "GET", path)
        if status == 200:
            return body
        assert status == 503 and time.monotonic() < until, (status, body, server.log_tail())
        time.sleep(0.2)


def statement(server: Server, player: str, min_position: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    after = 0
    while True:
        page = read_until(server, f"/v1/players/{player}/statement?limit=500&after={after}"
                                  f"&min_position={min_position}")
        items += page["items"]
        if page["next"] is None:
            return items
        after = page["next"]


def environment(database_url: str, **extra: str) -> dict[str, str]:
    env = _env(database_url)
    env.update(extra)
    return env


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
