"""Errors are application/problem+json (API.md, Errors): `type`, `title`, `status`,
`detail`, plus `rule` when a rule refused and `errors` for invalid fields. 400 malformed,
401 no or bad token, 403 not allowed, 404 unknown id, 405 wrong method, 409 not expected
now, 422 a rule refuses what is asked; never a 500. A refused
command records nothing: the deal's ETag and version, the balances and the head of the
event log stay as they were.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import uuid4

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.api.helpers import (
    PROBLEM,
    UNKNOWN,
    Club,
    Game,
    etag_version,
    game,
    problem,
    shared_client,
)

__all__ = ["shared_client"]


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


@contextmanager
def records_nothing(g: Game) -> Iterator[None]:
    """The deal's ETag and version, every balance and the event log head are unchanged."""
    club = g.club

    def state() -> tuple[Any, ...]:
        deal = club.client.get(f"/v1/deals/{g.deal_id}", headers=club.treasurer)
        table = club.client.get(f"/v1/tables/{g.table_id}", headers=club.treasurer)
        return (deal.headers["ETag"], deal.get_json()["version"], table.headers["ETag"],
                club.balances(*g.players), club.head())

    before = state()
    yield
    assert state() == before


def invalid(response: TestResponse, *fields: str) -> dict[str, Any]:
    body = problem(response, 400)
    assert isinstance(body.get("errors"), dict), body
    assert set(fields) <= set(body["errors"]), body
    return body


def with_ids(body: Any, player_id: str) -> Any:
    return json.loads(json.dumps(body).replace("{p}", player_id))


# --- 400 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["{not json", '{"name": "Pat",}', "[1, 2", "\x00\xff"])
def test_malformed_json_is_400_problem(club: Club, text: str) -> None:
    """API.md: 400 for a malformed body."""
    response = club.client.post("/v1/players", data=text, content_type="application/json",
                                headers=club.treasurer)

    body = problem(response, 400)
    assert "errors" in body


@pytest.mark.parametrize("body", [[], "Pat", 7, None], ids=["list", "string", "number", "null"])
def test_a_json_body_that_is_not_an_object_is_400(club: Club, body: Any) -> None:
    """API.md: 400 for a malformed body."""
    response = club.client.post("/v1/players", data=json.dumps(body),
                                content_type="application/json", headers=club.treasurer)

    problem(response, 400)


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/v1/players", {"name": 5}, "name"),
    ("/v1/tokens", {"role": ["operator"]}, "role"),
    ("/v1/players/{p}/buy-ins", {"amount": "5"}, "amount"),
    ("/v1/players/{p}/buy-ins", {"amount": 5.5}, "amount"),
    ("/v1/players/{p}/buy-ins", {"amount": True}, "amount"),
    ("/v1/players/{p}/cash-outs", {"amount": None}, "amount"),
    ("/v1/tables", {"name": "t", "seats": "{p}"}, "seats"),
    ("/v1/tables", {"name": "t", "seats": ["not-a-uuid", "{p}"]}, "seats"),
    ("/v1/tables", {"name": "t", "seats": ["{p}", "{p}"], "rules": {"shoot": "maybe"}},
     "rules"),
    ("/v1/tables", {"name": "t", "seats": ["{p}", "{p}"], "pack": {"mode": "stacked"}},
     "pack"),
], ids=["name-int", "role-list", "amount-string", "amount-float", "amount-bool",
        "amount-null", "seats-string", "seat-not-uuid", "rules-shoot-string", "pack-mode"])
def test_wrong_types_are_400_with_field_errors(club: Club, path: str, body: dict[str, Any],
                                               field: str) -> None:
    """API.md: invalid input is 400 with `errors` naming each field."""
    pat = club.player("Pat", 0)
    payload = with_ids(body, pat.id)

    response = club.client.post(path.replace("{p}", pat.id), json=payload,
                                headers=club.treasurer)

    invalid(response, field)


def test_wrong_types_in_an_action_are_400_and_record_nothing(club: Club) -> None:
    """API.md: 400 with field errors; a refused command records nothing."""
    g = game(club)

    with records_nothing(g):
        responses = {
            "amount": g.send(g.pat, "stake", amount="5"),
            "action": g.send(g.pat, "bet", amount=5),
            "hand": g.send(g.pat, "stake", amount=5, hand="0"),
            "player_id": club.client.post(f"/v1/deals/{g.deal_id}/actions",
                                          json={"player_id": 12, "action": "stake"},
                                          headers=club.treasurer),
        }

    for field, response in responses.items():
        invalid(response, field)


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/v1/players", {"name": "Pat", "nickname": "P"}, "nickname"),
    ("/v1/tokens", {"role": "operator", "expires": "never"}, "expires"),
    ("/v1/players/{p}/buy-ins", {"amount": 5, "currency": "chips"}, "currency"),
    ("/v1/tables", {"name": "t", "seats": ["{p}", "{p}"], "colour": "green"}, "colour"),
    ("/v1/tables", {"name": "t", "seats": ["{p}", "{p}"], "rules": {"jokers": True}},
     "rules"),
], ids=["player", "token", "buy-in", "table", "table-rules"])
def test_unknown_fields_are_400_naming_the_field(club: Club, path: str, body: dict[str, Any],
                                                 field: str) -> None:
    """API.md: invalid input is 400 with `errors`; an unknown field is not silently dropped."""
    pat = club.player("Pat", 0)
    payload = with_ids(body, pat.id)

    response = club.client.post(path.replace("{p}", pat.id), json=payload,
                                headers=club.treasurer)

    invalid(response, field)


def test_an_unknown_field_in_an_action_is_400_and_records_nothing(club: Club) -> None:
    """API.md: invalid input is 400 with `errors`; nothing is recorded."""
    g = game(club)

    with records_nothing(g):
        response = g.send(g.pat, "stake", amount=5, tip=1)

    invalid(response, "tip")


@pytest.mark.parametrize(("path", "body", "fields"), [
    ("/v1/players", {}, ["name"]),
    ("/v1/tokens", {}, ["role"]),
    ("/v1/players/{p}/buy-ins", {}, ["amount"]),
    ("/v1/players/{p}/cash-outs", {}, ["amount"]),
    ("/v1/tables", {}, ["name", "seats"]),
], ids=["player", "token", "buy-in", "cash-out", "table"])
def test_missing_fields_are_400_naming_each_field(club: Club, path: str, body: dict[str, Any],
                                                  fields: list[str]) -> None:
    """API.md: invalid input is 400 with `errors` naming each missing field."""
    pat = club.player("Pat", 0)

    response = club.client.post(path.replace("{p}", pat.id), json=body,
                                headers=club.treasurer)

    invalid(response, *fields)


def test_missing_fields_of_table_commands_are_400(club: Club) -> None:
    """API.md: seats need `player_id`, kitty `amount`, bank sales `buyer_id` and `price`,
    bids `player_id` and `price`."""
    g = game(club, rules={"shoot": True}, start=False)
    table = f"/v1/tables/{g.table_id}"

    responses = {
        ("player_id",): club.client.post(f"{table}/seats", json={}, headers=club.treasurer),
        ("amount",): club.client.post(f"{table}/kitty", json={}, headers=club.treasurer),
        ("buyer_id", "price"): club.client.post(f"{table}/bank-sales", json={},
                                                headers=club.treasurer),
        ("player_id", "price"): club.client.post(f"{table}/auction/bids", json={},
                                                 headers=club.treasurer),
    }

    for fields, response in responses.items():
        invalid(response, *fields)


def test_missing_fields_of_an_action_are_400_and_record_nothing(club: Club) -> None:
    """API.md: an action needs `player_id` and `action`; nothing is recorded."""
    g = game(club)

    with records_nothing(g):
        response = club.client.post(f"/v1/deals/{g.deal_id}/actions", json={},
                                    headers=club.treasurer)

    invalid(response, "player_id", "action")


# --- 401, 403 -------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, UNKNOWN, {"Authorization": "Basic dXNlcjpwdw=="},
                                     {"Authorization": "Bearer "}, {"Authorization": "Bearer"}],
                         ids=["none", "unknown", "basic", "empty-bearer", "bare-bearer"])
def test_no_or_a_bad_token_is_401_problem_with_a_bearer_challenge(
        club: Club, headers: dict[str, str]) -> None:
    """API.md: 401 for no or a bad token."""
    response = club.client.post("/v1/players", json={"name": "Pat"}, headers=headers)

    problem(response, 401)
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_role_that_may_not_is_403_problem_and_records_nothing(club: Club) -> None:
    """API.md: 403 when the role or seat is not allowed; nothing is recorded."""
    g = game(club)
    operator = club.operator

    with records_nothing(g):
        buy_in = club.client.post(f"/v1/players/{g.pat.id}/buy-ins", json={"amount": 50},
                                  headers=operator)
        for_quinn = club.send(g.deal_id, g.quinn, "stake", headers=g.pat.headers, amount=5)

    problem(buy_in, 403)
    problem(for_quinn, 403)


# --- 404, 405 -------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), [
    ("GET", "/v1/players/{x}", None),
    ("GET", "/v1/players/{x}/balance", None),
    ("POST", "/v1/players/{x}/buy-ins", {"amount": 5}),
    ("POST", "/v1/players/{x}/cash-outs", {"amount": 5}),
    ("GET", "/v1/tables/{x}", None),
    ("POST", "/v1/tables/{x}/seats", {"player_id": "{p}"}),
    ("DELETE", "/v1/tables/{x}/seats/{p}", None),
    ("POST", "/v1/tables/{x}/kitty", {"amount": 20}),
    ("POST", "/v1/tables/{x}/bank-sales", {"buyer_id": "{p}", "price": 5}),
    ("POST", "/v1/tables/{x}/auction", {}),
    ("POST", "/v1/tables/{x}/auction/bids", {"player_id": "{p}", "price": 5}),
    ("POST", "/v1/tables/{x}/auction/close", {}),
    ("POST", "/v1/tables/{x}/deals", {}),
    ("GET", "/v1/deals/{x}", None),
    ("POST", "/v1/deals/{x}/actions", {"player_id": "{p}", "action": "stake", "amount": 5}),
    ("GET", "/v1/players/{x}/statement", None),
    ("GET", "/v1/tables/{x}/kitty-history", None),
    ("GET", "/v1/deals/{x}/audit", None),
    ("POST", "/v1/deals/{x}/disputes", {"reason": "a card was missed"}),
    ("POST", "/v1/disputes/{x}/resolution", {"decision": "rejected", "note": "stands"}),
])
def test_an_unknown_id_is_404_problem(club: Club, method: str, path: str,
                                      body: dict[str, Any] | None) -> None:
    """API.md: 404 for an unknown id (a well-formed UUID that names nothing)."""
    pat = club.player("Pat", 0)
    missing = str(uuid4())
    payload = None if body is None else {
        k: v.replace("{p}", pat.id) if isinstance(v, str) else v for k, v in body.items()}

    response = club.client.open(path.replace("{x}", missing).replace("{p}", pat.id),
                                method=method, json=payload, headers=club.treasurer)

    body_ = problem(response, 404)
    assert missing in body_["detail"]


@pytest.mark.parametrize("path", [
    "/v1/players/not-a-uuid", "/v1/players/123/balance", "/v1/tables/x", "/v1/deals/%00",
    "/v1/deals/1234567890123456789012345678901234567/actions", "/v1/nowhere", "/v2/players",
])
def test_a_path_that_is_not_an_id_is_404_problem(club: Club, path: str) -> None:
    """API.md: ids are UUIDs; any other path segment names nothing (404, never 500)."""
    response = club.client.get(path, headers=club.treasurer)

    problem(response, 404)


@pytest.mark.parametrize(("method", "path"), [
    ("DELETE", "/v1/players"), ("PUT", "/v1/players/{x}"), ("PUT", "/v1/tokens"),
    ("PATCH", "/v1/tables/{x}"), ("GET", "/v1/deals/{x}/actions"), ("POST", "/v1/health"),
])
def test_a_method_the_path_does_not_take_is_405_problem_with_allow(
        club: Club, method: str, path: str) -> None:
    """RFC 9110: 405 names the methods allowed; still problem+json (API.md, Errors)."""
    response = club.client.open(path.replace("{x}", str(uuid4())), method=method,
                                headers=club.treasurer)

    problem(response, 405)
    assert response.headers.get("Allow")


# --- 409 ------------------------------------------------------------------------------------


def test_acting_out_of_turn_is_409_naming_r3_1_and_records_nothing(club: Club) -> None:
    """R3.1: stakes go clockwise from the banker's left; Quinn may not stake before Pat."""
    g = game(club)

    with records_nothing(g):
        response = g.send(g.quinn, "stake", amount=5)

    problem(response, 409, "R3.1")


def test_an_action_after_the_deal_is_over_is_409_and_records_nothing(club: Club) -> None:
    """docs/decisions.md 3: a command after the deal ended is 409 (the deal is over)."""
    g = game(club, top=["10H", "10S", "KD", "8H", "9S", "7D"])
    g.stakes()
    g.act(g.pat, "stick")
    g.act(g.quinn, "stick")
    g.act(g.banker, "stay")

    with records_nothing(g):
        response = g.send(g.banker, "draw")

    problem(response, 409)


def test_starting_a_deal_while_one_is_open_is_409_naming_r3_4(club: Club) -> None:
    """API.md: 409 for a deal already open."""
    g = game(club)

    with records_nothing(g):
        response = club.client.post(f"/v1/tables/{g.table_id}/deals", json={},
                                    headers=club.treasurer)

    problem(response, 409, "R3.4")


def test_a_deal_at_a_shoot_table_without_a_kitty_is_409_naming_r9_1(club: Club) -> None:
    """R9.1 and API.md: a kitty is needed first; the refused start records nothing."""
    g = game(club, rules={"shoot": True}, start=False)
    before = (club.get_table(g.table_id)["version"], club.head())

    response = club.client.post(f"/v1/tables/{g.table_id}/deals", json={},
                                headers=club.treasurer)

    problem(response, 409, "R9.1")
    assert (club.get_table(g.table_id)["version"], club.head()) == before


def test_a_command_with_if_match_of_an_old_version_is_409_and_records_nothing(
        club: Club) -> None:
    """API.md: a command sent with If-Match is refused with 409 (or 412) if the version
    moved on; api-notes.md: this service answers 409."""
    g = game(club)
    old = etag_version(club.client.get(f"/v1/deals/{g.deal_id}", headers=club.treasurer))
    g.act(g.pat, "stake", amount=5)

    with records_nothing(g):
        response = club.send(g.deal_id, g.quinn, "stake", amount=5,
                             headers={**g.quinn.headers, "If-Match": f'"{old}"'})

    problem(response, 409)


# --- 422 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("amount", [0, 11, -3], ids=["zero", "above-max", "negative"])
def test_a_stake_out_of_range_is_422_naming_r3_5(club: Club, amount: int) -> None:
    """R3.5: an initial stake is between the table's minimum (1) and maximum (10)."""
    g = game(club)

    with records_nothing(g):
        response = g.send(g.pat, "stake", amount=amount)

    problem(response, 422, "R3.5")


@pytest.mark.parametrize("amount", [4, 11], ids=["below-stake", "above-twice-stake"])
def test_a_buy_out_of_range_is_422_naming_r4_3(club: Club, amount: int) -> None:
    """R4.3: the third card costs the initial stake (5) to twice it (10)."""
    g = game(club, top=["2H", "10S", "KD", "3H", "9S", "7D"])
    g.stakes()

    with records_nothing(g):
        response = g.send(g.pat, "buy", amount=amount)

    problem(response, 422, "R4.3")


def test_sticking_under_15_is_422_naming_r4_6(club: Club) -> None:
    """R4.6: a hand under 15 may not stick (Pat holds 7 + 5 = 12)."""
    g = game(club, top=["7H", "10S", "KD", "5H", "9S", "7D"])
    g.stakes()

    with records_nothing(g):
        response = g.send(g.pat, "stick")

    problem(response, 422, "R4.6")


def test_splitting_unequal_ranks_is_422_naming_r5_1(club: Club) -> None:
    """R5.1: ten-cards split only if they are the same rank: Q-J does not split."""
    g = game(club, top=["QH", "10S", "KD", "JH", "9S", "7D"])
    g.stakes()

    with records_nothing(g):
        response = g.send(g.pat, "split")

    problem(response, 422, "R5.1")


def test_buying_after_twisting_is_422_naming_r4_5(club: Club) -> None:
    """R4.5: once a hand has twisted it can no longer buy."""
    g = game(club, top=["2H", "10S", "KD", "3H", "9S", "7D", "4C"])
    g.stakes()
    g.act(g.pat, "twist")

    with records_nothing(g):
        response = g.send(g.pat, "buy", amount=5)

    problem(response, 422, "R4.5")


def test_staking_chips_not_held_is_422_naming_r11_2(club: Club) -> None:
    """R11.2: Pat holds 3 chips and may not stake 5."""
    g = game(club, chips={"Pat": 3})

    with records_nothing(g):
        response = g.send(g.pat, "stake", amount=5)

    problem(response, 422, "R11.2")


def test_burning_at_a_table_with_burn_off_is_422_naming_r10_8(club: Club) -> None:
    """R10.8: burning is a table option, off by default (Pat holds a hard 13)."""
    g = game(club, top=["6H", "10S", "KD", "7H", "9S", "7D"])
    g.stakes()

    with records_nothing(g):
        response = g.send(g.pat, "burn")

    problem(response, 422, "R10.8")


def test_a_kitty_at_a_table_without_shoot_is_422_naming_r9_12(club: Club) -> None:
    """R9.12: at a table without Shoot Pontoon kitties are refused; nothing is recorded."""
    g = game(club, start=False)
    before = (club.get_table(g.table_id)["version"], club.balance(g.banker), club.head())

    response = club.client.post(f"/v1/tables/{g.table_id}/kitty", json={"amount": 20},
                                headers=g.banker.headers)

    problem(response, 422, "R9.12")
    assert (club.get_table(g.table_id)["version"], club.balance(g.banker),
            club.head()) == before


def test_a_cash_out_above_the_balance_is_422_and_records_nothing(club: Club) -> None:
    """API.md: 422 if more than the balance (R11.2: chips not held)."""
    pat = club.player("Pat", 30)
    head = club.head()

    response = club.client.post(f"/v1/players/{pat.id}/cash-outs", json={"amount": 31},
                                headers=club.treasurer)

    problem(response, 422, "R11.2")
    assert club.balance(pat) == 30
    assert club.head() == head


def test_the_same_idempotency_key_with_another_body_is_422(club: Club) -> None:
    """API.md: the same key with a different body gets 422."""
    pat = club.player("Pat", 0)
    key = {**club.treasurer, "Idempotency-Key": f"k-{uuid4()}"}
    club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 5}, headers=key)

    response = club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 6},
                                headers=key)

    problem(response, 422)
    assert club.balance(pat) == 5


# --- reads backed by projections, and never 500 ---------------------------------------------


@pytest.mark.parametrize("query", [
    {"after": -1}, {"limit": 0}, {"limit": 100_000}, {"after": "x"}, {"min_position": -5},
    {"min_position": "soon"},
], ids=["after-negative", "limit-zero", "limit-huge", "after-text", "min-position-negative",
        "min-position-text"])
@pytest.mark.parametrize("path", ["/v1/players/{p}/statement", "/v1/events",
                                  "/v1/tables/{t}/kitty-history"])
def test_a_malformed_cursor_or_min_position_is_400_naming_the_field(
        club: Club, path: str, query: dict[str, Any]) -> None:
    """API.md: `after`, `limit` (cursor) and `min_position` are whole numbers; anything else
    is 400 with `errors` naming the field."""
    g = game(club, start=False)
    url = path.replace("{p}", g.pat.id).replace("{t}", g.table_id)

    response = club.client.get(url, query_string=query, headers=club.treasurer)

    invalid(response, *query)


def test_a_dispute_status_other_than_open_or_resolved_is_400(club: Club) -> None:
    """API.md: GET /v1/disputes takes `status=open|resolved`."""
    response = club.client.get("/v1/disputes", query_string={"status": "closed"},
                               headers=club.treasurer)

    invalid(response, "status")


@pytest.mark.parametrize("body", [
    {"player_id": "{p}", "action": "stake", "amount": 10 ** 30},
    {"player_id": "{p}", "action": "stake", "amount": -(10 ** 30)},
    {"player_id": "{p}", "action": "stake", "amount": 5, "hand": 99},
    {"player_id": "{p}", "action": "stake", "amount": 5, "card": "ZZZZ"},
    {"player_id": "{p}", "action": "stake", "amount": 5, "cards": [None]},
    {"player_id": "{p}", "action": "", "amount": 5},
    {"player_id": "{p}", "action": None},
], ids=["huge", "hugely-negative", "hand-99", "long-card", "null-card", "empty-action",
        "null-action"])
def test_odd_action_bodies_are_refused_without_a_500(club: Club, body: dict[str, Any]) -> None:
    """API.md: no input, however malformed, yields a 500; a refusal records nothing."""
    g = game(club)
    payload = {k: g.pat.id if v == "{p}" else v for k, v in body.items()}

    with records_nothing(g):
        response = club.client.post(f"/v1/deals/{g.deal_id}/actions", json=payload,
                                    headers=g.pat.headers)

    assert 400 <= response.status_code < 500, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
