"""Webhook receivers that are slow, dead, or on the service's own network (API.md
Additions, "Service under hostile clients"): one attempt, connecting included, ends within
PONTOON_WEBHOOK_TIMEOUT; a slow or dead receiver delays only its own subscription; an
address on the service's network is refused when subscribing and again when delivering.
Real receivers on loopback, on both stores."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from flask import Flask

from tests.api.helpers import TREASURER, Club, build_app, close_app, eventually, ok
from tests.api.test_webhooks import Receiver, receiver, subscribe  # noqa: F401

TIMEOUT = 3.0  # PONTOON_WEBHOOK_TIMEOUT here


@dataclass
class Trickler:
    """Answers `HTTP/1.1 200 OK` and then one byte every half second, for ever: each read
    of the sender's finds a byte well within any per-read timeout."""

    attempts: list[tuple[float, float]] = field(default_factory=list)  # opened, closed
    stop: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def serve(self, listener: socket.socket) -> None:
        listener.settimeout(0.2)
        while not self.stop.is_set():
            with contextlib.suppress(TimeoutError):
                conn, _ = listener.accept()
                threading.Thread(target=self.trickle, args=(conn,), daemon=True).start()

    def trickle(self, conn: socket.socket) -> None:
        opened = time.monotonic()
        with conn, contextlib.suppress(OSError):
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not self.stop.wait(0.5):
                conn.sendall(b"X")
        self.attempts.append((opened, time.monotonic()))


@pytest.fixture
def trickler() -> Iterator[Trickler]:
    found = Trickler()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        found.url = f"http://127.0.0.1:{listener.getsockname()[1]}/hooks"
        thread = threading.Thread(target=found.serve, args=(listener,), daemon=True)
        thread.start()
        yield found
        found.stop.set()
        thread.join(timeout=5)


@pytest.fixture
def dead_url() -> Iterator[str]:
    """A receiver that never takes a connection: its one place in the queue is taken, so
    connecting hangs."""
    with socket.socket() as listener, socket.socket() as filler:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        filler.connect(listener.getsockname())
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hooks"


def app_with(store_settings: Any, **changes: Any) -> Flask:
    return build_app(replace(store_settings, webhook_retry_base=0.05, webhook_retry_for=600.0,
                             webhook_timeout=TIMEOUT, **changes))


@pytest.fixture
def club(store_settings: Any) -> Iterator[Club]:
    app = app_with(store_settings, webhook_allow_private=True)
    yield Club(app.test_client())
    close_app(app)


def hook(club: Club, url: str) -> str:
    made = ok(club.client.post("/v1/webhooks", json={"url": url, "events": ["chips.issued"]},
                               headers=TREASURER), 201)
    return str(made["id"])


def last_errors(club: Club, webhook_id: str) -> list[str | None]:
    items = ok(club.client.get(f"/v1/webhooks/{webhook_id}/deliveries", headers=TREASURER))
    return [i["last_error"] for i in items["items"]]


def test_slow_and_dead_receivers_delay_only_their_own_subscriptions(
        club: Club, receiver: Receiver, trickler: Trickler, dead_url: str) -> None:  # noqa: F811
    """Six subscriptions to a receiver that trickles its answer and two to one that never
    accepts, beside one good receiver: the good one gets every event at once, each slow
    or dead attempt ends within the timeout, and is recorded as failed."""
    slow = [hook(club, trickler.url) for _ in range(6)] + [hook(club, dead_url) for _ in range(2)]
    subscribe(club, receiver, ["chips.issued"])
    pat = club.player("Pat", 0)

    club.buy_in(pat, 1)
    eventually(lambda: receiver.accepted, "the good receiver's first delivery")
    first_good = time.monotonic()
    for _ in range(5):
        club.buy_in(pat, 1)
    eventually(lambda: len(receiver.accepted) == 6, "every event at the good receiver",
               deadline=TIMEOUT * 4)
    eventually(lambda: len(trickler.attempts) >= 6, "the slow attempts ended")

    # The good receiver was not kept waiting behind any slow attempt.
    assert first_good < min(opened for opened, _ in trickler.attempts) + TIMEOUT
    assert [b["data"]["balance"] for _, b in receiver.accepted] == [1, 2, 3, 4, 5, 6]
    assert all(closed - opened <= TIMEOUT + 1.5 for opened, closed in trickler.attempts)
    errors = {e for webhook_id in slow for e in last_errors(club, webhook_id)}
    assert f"no answer within {TIMEOUT:g} s" in " ".join(map(str, errors))
    assert f"no connection within {TIMEOUT:g} s" in " ".join(map(str, errors))


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:5432/", "http://[::1]:8000/hooks", "http://169.254.169.254/latest",
    "http://localhost/hooks", "http://10.0.0.7/hooks", "http://192.168.1.1/",
    "http://224.0.0.251/hooks", "http://0.0.0.0:8000/", "http://[::ffff:127.0.0.1]/"])
def test_a_subscription_to_the_services_own_network_is_422(store_settings: Any,
                                                           url: str) -> None:
    app = app_with(store_settings)
    try:
        answer = Club(app.test_client()).client.post(
            "/v1/webhooks", json={"url": url, "events": ["chips.issued"]}, headers=TREASURER)

        assert answer.status_code == 422, answer.get_json()
        assert "may not reach" in answer.get_json()["errors"]["url"][0]
    finally:
        close_app(app)


def test_a_name_that_resolves_elsewhere_when_delivering_is_refused_then(
        store_settings: Any, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """DNS rebinding: the name resolved to a public address when subscribed, and to
    loopback when the delivery is made; the sender checks what it connects to, so the
    receiver hears nothing and the delivery names the address."""
    port = int(receiver.url.rsplit(":", 1)[1].split("/")[0])
    lookups: list[str] = []
    real = socket.getaddrinfo

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebound.example":
            return real(host, *args, **kwargs)
        lookups.append(host)
        address = "93.184.216.34" if len(lookups) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    app = app_with(store_settings)
    try:
        club = Club(app.test_client())
        webhook_id = hook(club, f"http://rebound.example:{port}/hooks")
        club.buy_in(club.player("Pat", 0), 5)

        errors = eventually(lambda: [e for e in last_errors(club, webhook_id) if e],
                            "the delivery refused")
        assert "127.0.0.1 is a loopback address" in errors[0]
        assert receiver.attempts == [] and len(lookups) >= 2
    finally:
        close_app(app)
