"""Idempotency keys, ETags and If-Match, positions (API.md, Idempotency and concurrency;
api-notes.md, Additions).

A POST repeated with the same `Idempotency-Key` and body gets the original status and body
(its `position` included) and changes nothing: no balance moves and the head of the event
log (GET /v1/health `position`) stays put. Keys are scoped to the principal that sends
them. GETs of players, tables and deals carry `ETag: "<version>"`; a command with `If-Match`
of an old version is 409. Every command answer carries `position`, and it increases.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.api.helpers import Club, app, etag_version, game, ok, problem

__all__ = ["app"]  # safe closing of the app (tests/api/helpers.py `close_app`)


@pytest.fixture
def club(client: FlaskClient, treasurer: dict[str, str]) -> Club:
    return Club(client, treasurer)


def keyed(headers: dict[str, str], key: str | None = None) -> dict[str, str]:
    return {**headers, "Idempotency-Key": key or f"key-{uuid4()}"}


def same_answer(first: TestResponse, again: TestResponse) -> dict[str, Any]:
    assert again.status_code == first.status_code, again.get_data(as_text=True)
    assert again.get_json() == first.get_json()
    return again.get_json()  # type: ignore[no-any-return]


def test_a_repeated_buy_in_answers_the_same_and_moves_no_chips(club: Club) -> None:
    """API.md: a repeat with the same key and body gets the original response (posting id,
    balance and position) and changes nothing."""
    pat = club.player("Pat", 0)
    headers = keyed(club.treasurer)
    first = club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 40},
                             headers=headers)
    head = club.head()

    again = club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 40},
                             headers=headers)

    body = same_answer(first, again)
    assert again.status_code == 201
    assert body["balance"] == 40 and isinstance(body["position"], int)
    assert club.balance(pat) == 40
    assert club.head() == head


def test_a_repeated_action_answers_the_same_deal_view_and_records_nothing(club: Club) -> None:
    """API.md: a repeated stake with the same key is the original answer; the deal's
    version, Pat's balance and the event log head are unchanged."""
    g = game(club)
    headers = keyed(g.pat.headers)
    first = club.send(g.deal_id, g.pat, "stake", headers=headers, amount=5)
    state = (g.view()["version"], club.balance(g.pat), club.head())

    again = club.send(g.deal_id, g.pat, "stake", headers=headers, amount=5)

    body = same_answer(first, again)
    assert body["players"][0]["hands"][0]["stake"] == 5
    assert (g.view()["version"], club.balance(g.pat), club.head()) == state
    assert state[1] == 95


def test_a_repeat_after_later_commands_still_answers_the_original_response(
        club: Club) -> None:
    """API.md: the repeat gets the original response, even after the deal moved on."""
    g = game(club)
    headers = keyed(g.pat.headers)
    first = club.send(g.deal_id, g.pat, "stake", headers=headers, amount=5)
    g.act(g.quinn, "stake", amount=7)
    now = g.view()

    again = club.send(g.deal_id, g.pat, "stake", headers=headers, amount=5)

    body = same_answer(first, again)
    assert body["phase"] == "staking"
    assert g.view() == now
    assert club.balance(g.pat) == 95


def test_a_repeated_registration_answers_the_same_player_with_the_token_withheld(
        club: Club) -> None:
    """api-notes.md: a repeated request that created a token answers `token: null` (only
    its hash is stored); the id, name and position are the original ones."""
    headers = keyed(club.treasurer)
    first = ok(club.client.post("/v1/players", json={"name": "Pat"}, headers=headers), 201)
    head = club.head()

    again = ok(club.client.post("/v1/players", json={"name": "Pat"}, headers=headers), 201)

    assert again == {**first, "token": None}
    assert first["token"]
    assert club.head() == head


def test_a_repeated_token_creation_answers_the_role_with_the_token_withheld(
        club: Club) -> None:
    """api-notes.md: a repeated token creation answers `token: null`; no second token."""
    headers = keyed(club.treasurer)
    first = ok(club.client.post("/v1/tokens", json={"role": "operator"}, headers=headers), 201)
    head = club.head()

    again = ok(club.client.post("/v1/tokens", json={"role": "operator"}, headers=headers), 201)

    assert again == {**first, "token": None}
    assert club.head() == head


def test_a_repeated_table_opening_answers_the_same_table(club: Club) -> None:
    """API.md: every POST accepts an Idempotency-Key; the repeat opens no second table."""
    bea, pat = club.player("Bea", 0), club.player("Pat", 0)
    body = {"name": "Friday school", "seats": [bea.id, pat.id], "banker": bea.id}
    headers = keyed(club.treasurer)
    first = club.client.post("/v1/tables", json=body, headers=headers)
    head = club.head()

    again = club.client.post("/v1/tables", json=body, headers=headers)

    assert same_answer(first, again)["id"] == first.get_json()["id"]
    assert club.head() == head


def test_the_same_key_with_another_body_or_on_another_endpoint_is_422_and_changes_nothing(
        club: Club) -> None:
    """API.md: the same key with a different body gets 422."""
    pat = club.player("Pat", 0)
    headers = keyed(club.treasurer)
    club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 40}, headers=headers)
    head = club.head()

    other_amount = club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 41},
                                    headers=headers)
    other_endpoint = club.client.post(f"/v1/players/{pat.id}/cash-outs", json={"amount": 40},
                                      headers=headers)

    problem(other_amount, 422)
    problem(other_endpoint, 422)
    assert club.balance(pat) == 40
    assert club.head() == head


def test_keys_of_different_principals_do_not_collide(club: Club) -> None:
    """api-notes.md: idempotency keys are scoped to the principal that sends them."""
    g = game(club)
    shared = "the-same-key"

    by_treasurer = club.client.post("/v1/players", json={"name": "Ann"},
                                    headers=keyed(club.treasurer, shared))
    by_operator = club.client.post("/v1/players", json={"name": "Ben"},
                                   headers=keyed(club.operator, shared))
    pat_stake = club.send(g.deal_id, g.pat, "stake", headers=keyed(g.pat.headers, shared),
                          amount=5)
    quinn_stake = club.send(g.deal_id, g.quinn, "stake",
                            headers=keyed(g.quinn.headers, shared), amount=6)

    ann, ben = ok(by_treasurer, 201), ok(by_operator, 201)
    assert ann["id"] != ben["id"] and (ann["name"], ben["name"]) == ("Ann", "Ben")
    ok(pat_stake)
    view = ok(quinn_stake)
    assert [seat["hands"][0]["stake"] for seat in view["players"]] == [5, 6]
    assert club.balances(g.pat, g.quinn) == {"Pat": 95, "Quinn": 94}


def test_gets_of_tables_deals_and_players_carry_their_version_as_etag(club: Club) -> None:
    """API.md: responses that show an aggregate carry its version as an ETag."""
    g = game(club)
    player_before = etag_version(club.client.get(f"/v1/players/{g.pat.id}",
                                                 headers=club.treasurer))

    table = club.client.get(f"/v1/tables/{g.table_id}", headers=club.treasurer)
    deal = club.client.get(f"/v1/deals/{g.deal_id}", headers=club.treasurer)
    club.buy_in(g.pat, 5)
    player_after = etag_version(club.client.get(f"/v1/players/{g.pat.id}",
                                                headers=club.treasurer))

    assert etag_version(table) == table.get_json()["version"]
    assert etag_version(deal) == deal.get_json()["version"]
    assert player_after > player_before


def test_command_answers_carry_the_new_version_as_etag(club: Club) -> None:
    """API.md: the answer of a command showing a table or deal carries its new version."""
    g = game(club, start=False)
    joiner = club.player("Nell", 10)

    seated = club.client.post(f"/v1/tables/{g.table_id}/seats", json={"player_id": joiner.id},
                              headers=club.treasurer)
    started = club.client.post(f"/v1/tables/{g.table_id}/deals", json={},
                               headers=club.treasurer)
    staked = club.send(started.get_json()["id"], g.pat, "stake", amount=5)

    for response in (seated, started, staked):
        assert etag_version(response) == response.get_json()["version"]


def test_if_match_with_the_current_version_succeeds_and_with_an_old_one_is_409(
        club: Club) -> None:
    """API.md: a command sent with If-Match is refused with 409 (api-notes.md: 409, not
    412) when the version moved on; with the current version it succeeds."""
    g = game(club)
    current = etag_version(club.client.get(f"/v1/deals/{g.deal_id}", headers=club.treasurer))

    fresh = club.send(g.deal_id, g.pat, "stake", amount=5,
                      headers={**g.pat.headers, "If-Match": f'"{current}"'})
    stale = club.send(g.deal_id, g.quinn, "stake", amount=5,
                      headers={**g.quinn.headers, "If-Match": f'"{current}"'})

    assert ok(fresh)["version"] > current
    problem(stale, 409)
    assert g.view()["version"] == fresh.get_json()["version"]
    assert club.balance(g.quinn) == 100


def test_if_match_guards_table_commands_too(club: Club) -> None:
    """API.md: If-Match on seats, leaving and starting a deal (a stale version is 409)."""
    g = game(club, start=False)
    nell = club.player("Nell", 10)
    version = etag_version(club.client.get(f"/v1/tables/{g.table_id}", headers=club.treasurer))
    at = {**club.treasurer, "If-Match": f'"{version}"'}

    joined = club.client.post(f"/v1/tables/{g.table_id}/seats", json={"player_id": nell.id},
                              headers=at)
    stale_leave = club.client.delete(f"/v1/tables/{g.table_id}/seats/{nell.id}", headers=at)
    stale_deal = club.client.post(f"/v1/tables/{g.table_id}/deals", json={}, headers=at)
    now = {**club.treasurer, "If-Match": joined.headers["ETag"]}
    left = club.client.delete(f"/v1/tables/{g.table_id}/seats/{nell.id}", headers=now)

    assert nell.id in ok(joined)["seats"]
    problem(stale_leave, 409)
    problem(stale_deal, 409)
    assert nell.id not in ok(left)["seats"]


def test_if_match_star_matches_any_version(club: Club) -> None:
    """RFC 9110: `If-Match: *` matches whatever version the deal has."""
    g = game(club)

    response = club.send(g.deal_id, g.pat, "stake", amount=5,
                         headers={**g.pat.headers, "If-Match": "*"})

    ok(response)


def test_every_command_answer_carries_a_position_that_increases(club: Club) -> None:
    """API.md: every command response carries `position`, the place of its last event in
    the global event log; the last one is the head GET /v1/health shows."""
    c, t = club.client, club.treasurer
    answers = []

    answers.append(ok(c.post("/v1/tokens", json={"role": "operator"}, headers=t), 201))
    bea = ok(c.post("/v1/players", json={"name": "Bea"}, headers=t), 201)
    pat = ok(c.post("/v1/players", json={"name": "Pat"}, headers=t), 201)
    answers += [bea, pat]
    for player in (bea, pat):
        answers.append(ok(c.post(f"/v1/players/{player['id']}/buy-ins", json={"amount": 50},
                                 headers=t), 201))
    answers.append(ok(c.post(f"/v1/players/{pat['id']}/cash-outs", json={"amount": 5},
                             headers=t), 201))
    table = ok(c.post("/v1/tables", json={"name": "t", "seats": [bea["id"], pat["id"]],
                                          "banker": bea["id"], "rules": {"shoot": True}},
                      headers=t), 201)
    answers.append(table)
    answers.append(ok(c.post(f"/v1/tables/{table['id']}/kitty", json={"amount": 20},
                             headers=t)))
    deal = ok(c.post(f"/v1/tables/{table['id']}/deals", json={}, headers=t), 201)
    answers.append(deal)
    answers.append(ok(c.post(f"/v1/deals/{deal['id']}/actions",
                             json={"player_id": pat["id"], "action": "stake", "amount": 5},
                             headers=t)))

    positions = [answer["position"] for answer in answers]
    assert all(isinstance(p, int) for p in positions), answers
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert positions[-1] == club.head()
