"""Webhooks (API.md, Webhooks; Standard Webhooks) delivered to a real receiver on loopback
(PONTOON_WEBHOOK_ALLOW_PRIVATE=true: loopback is refused otherwise, as
tests/api/test_webhook_receivers.py shows).

The receiver checks every signature with the reference verifier (`standardwebhooks`), and
fails on command: the service must retry with backoff, keep each subscription's events in
log order, and disable a subscription whose deliveries fail for the whole retry period.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from flask import Flask
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.api.helpers import (
    TREASURER,
    Club,
    build_app,
    close_app,
    eventually,
    kitty_emptied_game,
    ok,
)

ALL_TYPES = ["deal.settled", "chips.issued", "chips.redeemed", "dispute.opened",
             "dispute.resolved", "kitty.changed"]


@dataclass
class Receiver:
    """An integrating app: verifies each delivery, answers 500 `failures` times, then 204."""

    failures: int = 0
    secret: str | None = None
    attempts: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)
    accepted: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    forged: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def receive(self, body: bytes, headers: dict[str, str]) -> int:
        with self.lock:
            try:
                assert self.secret is not None
                data = Webhook(self.secret).verify(body, headers)
            except (WebhookVerificationError, AssertionError) as error:
                self.forged.append(str(error))
                return 400
            status = 500 if len(self.attempts) < self.failures else 204
            self.attempts.append((headers["webhook-id"], data, status))
            if status == 204:
                self.accepted.append((headers["webhook-id"], data))
            return status


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(found.receive(body, {k.lower(): v for k, v in self.headers.items()}))
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()
    server.server_close()


@pytest.fixture
def app(store_settings: Any) -> Iterator[Flask]:
    flask_app = build_app(replace(store_settings, webhook_retry_base=0.05,
                                  webhook_retry_for=600.0, webhook_allow_private=True))
    yield flask_app
    close_app(flask_app)


@pytest.fixture
def club(app: Flask) -> Club:
    return Club(app.test_client())


def subscribe(club: Club, receiver: Receiver, events: list[str]) -> dict[str, Any]:
    made = ok(club.client.post("/v1/webhooks", json={"url": receiver.url, "events": events},
                               headers=TREASURER), 201)
    receiver.secret = made["secret"]
    return made


def test_deliveries_are_signed_retried_with_backoff_and_arrive_once_in_log_order(
        club: Club, receiver: Receiver) -> None:
    """API.md Webhooks: the first delivery fails three times, then every event of the
    subscription arrives, signed, in log order, with the same webhook-id on each retry;
    the deliveries list shows the attempts and the answers."""
    receiver.failures = 3
    made = subscribe(club, receiver, ["chips.issued", "chips.redeemed"])
    pat = club.player("Pat", 0)
    positions = [club.buy_in(pat, 10)["position"], club.buy_in(pat, 5)["position"],
                 ok(club.client.post(f"/v1/players/{pat.id}/cash-outs", json={"amount": 3},
                                     headers=TREASURER), 201)["position"]]

    eventually(lambda: len(receiver.accepted) == 3, "three deliveries accepted")

    assert made["secret"].startswith("whsec_") and receiver.forged == []
    bodies = [body for _, body in receiver.accepted]
    assert [b["type"] for b in bodies] == ["chips.issued", "chips.issued", "chips.redeemed"]
    # Each is the player's own entry, one of the events its command recorded.
    bounds = zip([0, *positions], positions, strict=False)
    assert all(low < b["position"] <= high for b, (low, high) in zip(bodies, bounds,
                                                                       strict=True))
    assert [(b["data"]["player_id"], b["data"]["amount"], b["data"]["balance"])
            for b in bodies] == [(pat.id, 10, 10), (pat.id, 5, 15), (pat.id, 3, 12)]
    assert {b["at"] for b in bodies} and all(b.keys() == {"type", "position", "at", "data"}
                                             for b in bodies)
    first_ids = [webhook_id for webhook_id, _, _ in receiver.attempts[:4]]
    assert len(set(first_ids)) == 1 and [s for _, _, s in receiver.attempts[:4]] == \
        [500, 500, 500, 204]
    assert len({webhook_id for webhook_id, _ in receiver.accepted}) == 3
    # The receiver has answered; the sender records the answer just after.
    items = eventually(lambda: (found := ok(club.client.get(
        f"/v1/webhooks/{made['id']}/deliveries", headers=TREASURER))["items"])
        and all(i["delivered_at"] for i in found) and found, "the answers recorded")
    assert [(i["event_position"], i["type"], i["attempts"], i["last_status"]) for i in items] \
        == [(bodies[0]["position"], "chips.issued", 4, 204),
            (bodies[1]["position"], "chips.issued", 1, 204),
            (bodies[2]["position"], "chips.redeemed", 1, 204)]
    assert all(i["delivered_at"] and i["next_attempt_at"] is None for i in items)


def test_a_settled_deal_its_kitty_and_its_dispute_are_delivered_without_secrets(
        club: Club, receiver: Receiver) -> None:
    """API.md Webhooks: deal.settled, kitty.changed, dispute.opened and dispute.resolved;
    a payload never carries a pack's order or a seed, nor a face-down card before the deal
    is settled."""
    made = subscribe(club, receiver, ALL_TYPES)
    game = kitty_emptied_game(club)
    dispute = ok(club.client.post(f"/v1/deals/{game.deal_id}/disputes",
                                  json={"reason": "the shoot was late"}, headers=TREASURER), 201)
    ok(club.client.post(f"/v1/disputes/{dispute['id']}/resolution",
                        json={"decision": "rejected", "note": "it was in time",
                              "corrections": []}, headers=TREASURER))

    types = eventually(lambda: (t := [b["type"] for _, b in receiver.accepted])
                       and t[-1] == "dispute.resolved" and t, "the resolution delivered")

    assert {"chips.issued", "kitty.changed", "deal.settled", "dispute.opened"} <= set(types)
    assert [b["position"] for _, b in receiver.accepted] == \
        sorted(b["position"] for _, b in receiver.accepted)
    [settled] = [b for _, b in receiver.accepted if b["type"] == "deal.settled"]
    assert settled["data"]["deal_id"] == game.deal_id and settled["data"]["results"]
    # API.md Additions: the table and the deal's number too.
    assert {k: settled["data"][k] for k in ("table_id", "table_name", "deal_number", "void")} \
        == {"table_id": game.table_id, "table_name": "Friday school", "deal_number": 1,
            "void": False}
    assert settled["data"]["postings"]
    text = json.dumps([b for _, b in receiver.accepted])
    assert "pack" not in text and "seed" not in text
    kitty = [b["data"] for _, b in receiver.accepted if b["type"] == "kitty.changed"]
    assert kitty[0]["table_id"] == game.table_id and kitty[0]["change"] == 10
    assert receiver.forged == [] and made["id"]


def test_the_secret_is_shown_once_and_nowhere_else(
        club: Club, receiver: Receiver, caplog: pytest.LogCaptureFixture) -> None:
    """API.md Webhooks: the secret is in the 201 answer only: not in the subscription's
    views, not in a repeat of the same request, not in the event feed, not in a log line."""
    caplog.set_level(logging.DEBUG)
    key = {"Idempotency-Key": "hook-1", **TREASURER}
    body = {"url": receiver.url, "events": ["chips.issued"]}
    made = ok(club.client.post("/v1/webhooks", json=body, headers=key), 201)
    repeat = ok(club.client.post("/v1/webhooks", json=body, headers=key), 201)
    receiver.secret = made["secret"]
    club.buy_in(club.player("Pat", 0), 5)
    eventually(lambda: receiver.accepted, "a delivery")

    shown = [club.client.get(f"/v1/webhooks?min_position={made['position']}",
                             headers=TREASURER),
             club.client.get(f"/v1/webhooks/{made['id']}", headers=TREASURER),
             club.client.get(f"/v1/webhooks/{made['id']}/deliveries", headers=TREASURER),
             club.client.get("/v1/events?limit=500", headers=TREASURER)]

    assert repeat["id"] == made["id"] and repeat["secret"] is None
    for answer in shown:
        assert answer.status_code == 200 and made["secret"] not in answer.get_data(as_text=True)
    listed = shown[0].get_json()["items"]
    assert [(w["id"], w["url"], w["events"], w["status"]) for w in listed] == \
        [(made["id"], receiver.url, ["chips.issued"], "active")]
    secret_key = made["secret"].removeprefix("whsec_")
    assert secret_key not in caplog.text


def test_a_subscription_whose_deliveries_fail_for_the_whole_retry_period_is_disabled(
        store_settings: Any, receiver: Receiver) -> None:
    """API.md Webhooks: retried for the retry period (a day; a second here), then the
    subscription is disabled and nothing more is sent to it until it is enabled again."""
    app = build_app(replace(store_settings, webhook_retry_base=0.05, webhook_retry_for=1.0,
                            webhook_allow_private=True))
    try:
        club = Club(app.test_client())
        receiver.failures = 10**6
        made = subscribe(club, receiver, ["chips.issued"])
        pat = club.player("Pat", 0)
        club.buy_in(pat, 5)

        eventually(lambda: ok(club.client.get(f"/v1/webhooks/{made['id']}",
                                              headers=TREASURER))["status"] == "disabled",
                   "the subscription disabled")
        tried = len(receiver.attempts)
        club.buy_in(pat, 5)
        eventually(lambda: ok(club.client.get("/v1/health", headers=TREASURER))
                   ["projections"]["webhooks"] == 0, "the outbox at the head of the log")

        # The event after it waits too (enabled again, it resumes from the first).
        first, waiting = ok(club.client.get(f"/v1/webhooks/{made['id']}/deliveries",
                                            headers=TREASURER))["items"]
        assert first["attempts"] == tried >= 2 and first["last_status"] == 500
        assert first["next_attempt_at"] is None and first["delivered_at"] is None
        assert (waiting["attempts"], waiting["delivered_at"]) == (0, None)
        assert len(receiver.attempts) == tried
    finally:
        close_app(app)


def test_a_deleted_subscription_is_gone_and_gets_nothing_more(club: Club,
                                                              receiver: Receiver) -> None:
    made = subscribe(club, receiver, ["chips.issued"])

    deleted = club.client.delete(f"/v1/webhooks/{made['id']}", headers=TREASURER)
    position = club.buy_in(club.player("Pat", 0), 5)["position"]

    assert deleted.status_code == 204 and deleted.get_data() == b""
    assert club.client.get(f"/v1/webhooks/{made['id']}", headers=TREASURER).status_code == 404
    assert club.client.delete(f"/v1/webhooks/{made['id']}",
                              headers=TREASURER).status_code == 404
    assert ok(club.client.get(f"/v1/webhooks?min_position={position}",
                              headers=TREASURER))["items"] == []
    assert receiver.attempts == []


def test_a_deletion_with_a_malformed_if_match_is_400_and_deletes_nothing(
        club: Club, receiver: Receiver) -> None:
    """API.md Additions: a malformed If-Match is 400 on every command, as on DELETE
    /v1/tokens/{id}; a repeat with the same Idempotency-Key answers 204 again."""
    made = subscribe(club, receiver, ["chips.issued"])
    path = f"/v1/webhooks/{made['id']}"

    malformed = club.client.delete(path, headers={**TREASURER, "If-Match": "x"})
    kept = club.client.get(path, headers=TREASURER)
    keyed = {**TREASURER, "Idempotency-Key": f"delete-{made['id']}"}
    deleted, repeated = club.client.delete(path, headers=keyed), club.client.delete(
        path, headers=keyed)

    assert malformed.status_code == 400 and malformed.get_json()["errors"].keys() == {
        "If-Match"}
    assert kept.status_code == 200
    assert deleted.status_code == repeated.status_code == 204


@pytest.mark.parametrize(("body", "status"), [
    ({"url": "ftp://example.test/x", "events": ["chips.issued"]}, 422),
    ({"url": "http://user:pw@example.test/x", "events": ["chips.issued"]}, 422),
    ({"url": "http://example.test:port/x", "events": ["chips.issued"]}, 422),
    ({"url": "http://example.test/x", "events": ["chips.stolen"]}, 400),
    ({"url": "http://example.test/x", "events": []}, 400),
    ({"url": "http://example.test/x"}, 400),
])
def test_a_subscription_needs_an_http_url_and_known_event_types(
        club: Club, body: dict[str, Any], status: int) -> None:
    answer = club.client.post("/v1/webhooks", json=body, headers=TREASURER)

    assert answer.status_code == status, answer.get_json()


def test_only_the_treasurer_manages_webhooks(club: Club, receiver: Receiver) -> None:
    body = {"url": receiver.url, "events": ["chips.issued"]}

    assert club.client.post("/v1/webhooks", json=body,
                            headers=club.operator).status_code == 403
    assert club.client.get("/v1/webhooks", headers=club.operator).status_code == 403
    assert club.client.get("/v1/webhooks").status_code == 401


def test_a_disabled_subscription_enabled_again_resumes_where_it_stopped(
        store_settings: Any, receiver: Receiver) -> None:
    """API.md Additions: PATCH {"enabled": true} brings back a subscription its failures
    disabled; the event it stopped at and every one since arrive, in log order, once."""
    app = build_app(replace(store_settings, webhook_retry_base=0.05, webhook_retry_for=0.5,
                            webhook_allow_private=True))
    try:
        club = Club(app.test_client())
        receiver.failures = 10**6
        made = subscribe(club, receiver, ["chips.issued"])
        path = f"/v1/webhooks/{made['id']}"
        pat = club.player("Pat", 0)
        club.buy_in(pat, 1)
        eventually(lambda: ok(club.client.get(path, headers=TREASURER))["status"] == "disabled",
                   "the subscription disabled")
        for _ in range(2):
            club.buy_in(pat, 1)  # while it is disabled
        receiver.failures = 0

        enabled = ok(club.client.patch(path, json={"enabled": True}, headers=TREASURER))

        assert enabled["status"] == "active" and enabled["position"] > made["position"]
        eventually(lambda: len(receiver.accepted) == 3, "every delivery, resumed")
        assert [b["data"]["balance"] for _, b in receiver.accepted] == [1, 2, 3]
        assert ok(club.client.get(path, headers=TREASURER))["status"] == "active"
        # The treasurer may also pause it; deliveries wait, then resume.
        ok(club.client.patch(path, json={"enabled": False}, headers=TREASURER))
        eventually(lambda: ok(club.client.get(path, headers=TREASURER))["status"] ==
                   "disabled", "paused")
        club.buy_in(pat, 1)
        ok(club.client.patch(path, json={"enabled": True}, headers=TREASURER))
        eventually(lambda: len(receiver.accepted) == 4, "the paused delivery")
        assert receiver.forged == []
    finally:
        close_app(app)


def test_a_replay_sends_again_every_delivery_from_a_position(club: Club,
                                                             receiver: Receiver) -> None:
    """API.md Additions: POST /v1/webhooks/{id}/replay {"from_position": N} sends again,
    in log order and with their first webhook-ids, the deliveries from N."""
    made = subscribe(club, receiver, ["chips.issued"])
    pat = club.player("Pat", 0)
    for amount in (1, 2, 3):
        club.buy_in(pat, amount)
    eventually(lambda: len(receiver.accepted) == 3, "three deliveries")
    second = receiver.accepted[1][1]["position"]

    replayed = club.client.post(f"/v1/webhooks/{made['id']}/replay",
                                json={"from_position": second}, headers=TREASURER)

    assert replayed.status_code == 202, replayed.get_json()
    assert replayed.get_json()["from_position"] == second
    eventually(lambda: len(receiver.accepted) == 5, "the replayed deliveries")
    assert [b["data"]["balance"] for _, b in receiver.accepted] == [1, 3, 6, 3, 6]
    assert [i for i, _ in receiver.accepted[3:]] == [i for i, _ in receiver.accepted[1:3]]


@pytest.mark.parametrize(("body", "status"), [
    ({"from_position": 0}, 422), ({"from_position": "1"}, 400), ({}, 400),
    ({"from_position": 10**9}, 409)])
def test_a_replay_needs_a_position_of_the_log(club: Club, receiver: Receiver,
                                              body: dict[str, Any], status: int) -> None:
    made = subscribe(club, receiver, ["chips.issued"])

    answer = club.client.post(f"/v1/webhooks/{made['id']}/replay", json=body,
                              headers=TREASURER)

    assert answer.status_code == status, answer.get_json()


def test_enabling_needs_a_boolean_and_a_subscription_that_exists(
        club: Club, receiver: Receiver) -> None:
    made = subscribe(club, receiver, ["chips.issued"])
    path = f"/v1/webhooks/{made['id']}"

    assert club.client.patch(path, json={"enabled": "yes"}, headers=TREASURER
                             ).status_code == 400
    assert club.client.patch(path, json={}, headers=TREASURER).status_code == 400
    assert club.client.patch(path, json={"enabled": True}, headers=club.operator
                             ).status_code == 403
    club.client.delete(path, headers=TREASURER)
    assert club.client.patch(path, json={"enabled": True}, headers=TREASURER
                             ).status_code == 404
