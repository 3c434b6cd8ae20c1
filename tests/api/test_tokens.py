"""API.md Additions, Tokens: the treasurer lists tokens (never the token itself), revokes
them (refused at once by every worker: here a second app on the same store), and issues
them with a label and an expiry; repeated failed authentication from one address is 429
with Retry-After while a token already in use from that address still works. Both stores."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from api import create_app
from api.web.pages.session import COOKIE
from domain.aggregates import Token
from tests.api.helpers import UNKNOWN, Club, app, bearer, ok, problem, send_sign_in
from tests.conftest import TREASURER_TOKEN

__all__ = ["app"]

ITEM_KEYS = {"id", "role", "label", "player_id", "created_at", "expires_at", "revoked"}


@pytest.fixture
def club(client: FlaskClient) -> Club:
    return Club(client)


def issue(club: Club, **body: Any) -> dict[str, Any]:
    return ok(club.client.post("/v1/tokens", json={"role": "operator", **body},
                               headers=club.treasurer), 201)


def listed(club: Club, **query: Any) -> dict[str, Any]:
    return ok(club.client.get("/v1/tokens", query_string={"min_position": club.head(),
                                                          **query}, headers=club.treasurer))


def test_the_treasurer_lists_tokens_without_the_tokens_themselves(club: Club) -> None:
    """API.md: GET /v1/tokens answers {"items": [{"id", "role", "label", "player_id",
    "created_at", "expires_at", "revoked"}], "next"}: never the token."""
    expires = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)
    made = issue(club, label="door staff", expires_at=expires.isoformat())
    player = club.player("Pat", chips=0)

    response = club.client.get("/v1/tokens", query_string={"min_position": club.head()},
                               headers=club.treasurer)

    body = ok(response)
    assert set(body) == {"items", "next"} and body["next"] is None
    assert all(set(item) == ITEM_KEYS for item in body["items"])
    mine = {item["id"]: item for item in body["items"]}[made["id"]]
    assert (mine["role"], mine["label"], mine["revoked"]) == ("operator", "door staff", False)
    assert datetime.fromisoformat(mine["expires_at"]) == expires
    assert [i["player_id"] for i in body["items"] if i["role"] == "player"] == [player.id]
    text = response.get_data(as_text=True)
    for secret in (made["token"], player.token, TREASURER_TOKEN):
        assert secret not in text
        assert hashlib.sha256(secret.encode()).hexdigest() not in text


def test_the_token_list_pages_with_a_cursor(club: Club) -> None:
    """API.md: lists page with `limit` and the cursor `next`."""
    for n in range(3):
        issue(club, label=f"t{n}")

    first = listed(club, limit=2)
    second = listed(club, limit=2, after=first["next"])
    third = listed(club, limit=2, after=second["next"])

    ids = [i["id"] for i in first["items"] + second["items"]]
    assert len(ids) == 4 and len(set(ids)) == 4  # the bootstrap treasurer and three
    assert third == {"items": [], "next": None}


def test_a_revoked_token_is_refused_at_once_by_every_worker(club: Club, app: Any,
                                                            store_settings: Any) -> None:
    """API.md: DELETE /v1/tokens/{id} is 204 and the token is refused from then on, also by
    another worker (a second app on the same store) that had it cached as valid."""
    made = issue(club)
    other = create_app(replace(store_settings, treasurer_token=TREASURER_TOKEN,
                               projections="off"))
    try:
        elsewhere = other.test_client()
        ok(elsewhere.get("/v1/events", headers=bearer(made["token"])))

        revoked = club.client.delete(f"/v1/tokens/{made['id']}", headers=club.treasurer)

        assert revoked.status_code == 204 and revoked.get_data() == b""
        for client in (club.client, elsewhere):
            body = problem(client.get("/v1/events", headers=bearer(made["token"])), 401)
            assert "revoked" in body["detail"]
        assert {i["id"]: i["revoked"] for i in listed(club)["items"]}[made["id"]] is True
        again = club.client.delete(f"/v1/tokens/{made['id']}", headers=club.treasurer)
        assert again.status_code == 204
    finally:
        other.extensions["pontoon"].close()


@pytest.mark.parametrize("command", ["buy-in", "new player", "malformed"])
def test_a_token_revoked_elsewhere_is_refused_by_a_command_and_records_nothing(
        club: Club, app: Any, store_settings: Any, command: str) -> None:
    """API.md, Tokens: a worker that last saw a token valid checks it again with a command's
    own read of the store, before saving. Revoked in another worker, the token's first
    command there is refused 401 and records nothing, whether it reads the store (a buy-in),
    reads nothing before saving (a new player), or is refused before it decides (a malformed
    body: 401, not 400)."""
    made = issue(club, role="treasurer")
    other = create_app(replace(store_settings, treasurer_token=TREASURER_TOKEN,
                               projections="off"))
    try:
        elsewhere = other.test_client()
        player = ok(elsewhere.post("/v1/players", json={"name": "Rae"},
                                   headers=bearer(made["token"])), 201)
        ok(elsewhere.post(f"/v1/players/{player['id']}/buy-ins", json={"amount": 5},
                          headers=bearer(made["token"])), 201)
        ledger = app.extensions["pontoon"].ledger
        assert club.client.delete(f"/v1/tokens/{made['id']}",
                                  headers=club.treasurer).status_code == 204
        head = ledger.recorder.max_notification_id()
        path, body = {"buy-in": (f"/v1/players/{player['id']}/buy-ins", {"amount": 5}),
                      "new player": ("/v1/players", {"name": "Sid"}),
                      "malformed": ("/v1/players", {"nom": "Sid"})}[command]

        response = elsewhere.post(path, json=body, headers=bearer(made["token"]))

        assert "revoked" in problem(response, 401)["detail"]
        assert ledger.recorder.max_notification_id() == head
        assert ledger.player_account(player["id"]).balance == 5
    finally:
        other.extensions["pontoon"].close()


def test_an_expired_token_is_refused(club: Club, app: Any) -> None:
    """API.md: a token with `expires_at` is refused from that time on."""
    ledger = app.extensions["pontoon"].ledger
    secret = "pt_expired_token_for_the_test"
    ledger.save(Token.issue(hashlib.sha256(secret.encode()).hexdigest(), "operator", None,
                            expires_at=datetime.now(UTC) - timedelta(seconds=1)))

    body = problem(club.client.get("/v1/events", headers=bearer(secret)), 401)

    assert "expired" in body["detail"]


@pytest.mark.parametrize(("expires_at", "status"), [
    ("2001-01-01T00:00:00Z", 422),  # in the past
    ("2999-01-01T00:00:00", 400),  # no time zone
    ("tomorrow", 400),
])
def test_an_expiry_must_be_a_future_time_with_a_zone(club: Club, expires_at: str,
                                                     status: int) -> None:
    response = club.client.post("/v1/tokens", json={"role": "operator",
                                                    "expires_at": expires_at},
                                headers=club.treasurer)

    problem(response, status)


def test_only_the_treasurer_lists_and_revokes_and_an_unknown_id_is_404(club: Club) -> None:
    made = issue(club)

    problem(club.client.get("/v1/tokens", headers=club.operator), 403)
    problem(club.client.delete(f"/v1/tokens/{made['id']}", headers=club.operator), 403)
    problem(club.client.delete(f"/v1/tokens/{made['id'][:-4]}ffff", headers=club.treasurer),
            404)
    ok(club.client.get("/v1/events", headers=bearer(made["token"])))


def test_repeated_failed_authentication_is_429_with_retry_after(store_settings: Any) -> None:
    """API.md: failed authentication from one address is limited (429 with Retry-After),
    guesses at the sign-in page included; a token already in use from that address still
    works, a success never counts, and requests with no credentials are never limited."""
    limited = create_app(replace(store_settings, treasurer_token=TREASURER_TOKEN,
                                 projections="off", auth_failure_limit="5 per minute"))
    try:
        client = limited.test_client()
        treasurer = bearer(TREASURER_TOKEN)
        for _ in range(10):
            ok(client.get("/v1/events", headers=treasurer))
        answers = [client.get("/v1/events", headers=UNKNOWN) for _ in range(7)]

        assert [a.status_code for a in answers] == [401] * 5 + [429] * 2
        assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60
        problem(answers[-1], 429)
        ok(client.get("/v1/events", headers=treasurer))
        problem(client.get("/v1/events"), 401)  # no credentials: nothing guessed
        ok(client.get("/v1/health"))  # public answers are never limited
        assert client.post("/web/sign-in", data={"token": "pt_a_guess"}).status_code == 429
    finally:
        limited.extensions["pontoon"].close()


def test_a_valid_token_is_never_refused_by_the_failed_authentication_limit(
        store_settings: Any) -> None:
    """API.md Additions: after the limit of guesses from one address, a valid token this
    worker has never seen (a club's members behind one NAT) is still served; guesses,
    and a revoked token, still get 429."""
    limited = create_app(replace(store_settings, treasurer_token=TREASURER_TOKEN,
                                 projections="off", auth_failure_limit="5 per minute"))
    try:
        ledger = limited.extensions["pontoon"].ledger
        fresh = ledger.create_token("operator").result["token"]
        revoked = ledger.create_token("operator").result["token"]
        known = ledger.principal(revoked)
        ledger.revoke_token(known.id, known.principal_id)
        client = limited.test_client()
        guesses = [client.get("/v1/events", headers=UNKNOWN).status_code for _ in range(6)]

        assert guesses == [401] * 5 + [429]
        ok(client.get("/v1/events", headers=bearer(fresh)))
        ok(client.post("/v1/players", json={"name": "Nat"}, headers=bearer(fresh)), 201)
        problem(client.get("/v1/events", headers=bearer(revoked)), 429)
        problem(client.get("/v1/events", headers=UNKNOWN), 429)
    finally:
        limited.extensions["pontoon"].close()


@pytest.mark.parametrize("proxies", [0, 1])
def test_behind_a_trusted_proxy_failed_authentication_is_counted_by_forwarded_address(
        store_settings: Any, proxies: int) -> None:
    """API.md: the limit is per client address. Behind a proxy every request comes from the
    proxy's address; told to trust one proxy (PONTOON_TRUSTED_PROXIES=1), the service counts
    guesses by the address it forwards, so one guesser does not lock the club out. Not told,
    X-Forwarded-For is anybody's to write and is ignored."""
    limited = create_app(replace(store_settings, treasurer_token=TREASURER_TOKEN,
                                 projections="off", auth_failure_limit="3 per minute",
                                 trusted_proxies=proxies))
    try:
        client = limited.test_client()

        def guess(address: str) -> int:
            return client.get("/v1/events", headers={**UNKNOWN, "X-Forwarded-For": address},
                              environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code

        guesser = [guess("203.0.113.7") for _ in range(4)]
        other = guess("198.51.100.2")

        assert guesser == [401] * 3 + [429]
        assert other == (401 if proxies else 429)
    finally:
        limited.extensions["pontoon"].close()


def test_pages_visited_with_a_wrong_sign_in_cookie_count_as_failed_authentication(
        store_settings: Any) -> None:
    """A page answers a wrong cookie by sending its visitor to sign in (302), but the cookie
    was a guess all the same: after the limit of them, 429 (decision 31)."""
    limited = create_app(replace(store_settings, treasurer_token=TREASURER_TOKEN,
                                 projections="off", auth_failure_limit="5 per minute"))
    try:
        browser = limited.test_client()
        browser.set_cookie(COOKIE, "pt_a_guessed_cookie", path="/web")

        answers = [browser.get("/web/balances") for _ in range(7)]

        assert [a.status_code for a in answers] == [302] * 5 + [429] * 2
        assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60
    finally:
        limited.extensions["pontoon"].close()


def test_the_balances_page_shows_the_latest_checkpoint(club: Club, app: Any) -> None:
    """R11.4: the treasurer's balances page shows the checkpoint sealing the log, to keep
    outside the database."""
    club.player("Pat", chips=10)
    browser = app.test_client()
    send_sign_in(browser, TREASURER_TOKEN)

    html = browser.get("/web/balances").get_data(as_text=True)

    sealed = app.extensions["pontoon"].ledger.recorder.checkpoint()
    assert sealed is not None and sealed.position == club.head()
    assert f"Checkpoint: <code>{sealed}</code>" in html
    assert "keep a copy outside the database" in html
