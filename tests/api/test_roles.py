"""Who may do what (docs/api-notes.md, "Who may do what"; API.md, Authentication and roles).

Every endpoint is tried by six callers: no token and an unknown token (401), the treasurer,
an operator, a player acting for themselves and a player acting for someone else. Each scene
is one in which the request is right for whoever may send it, so an allowed caller gets the
endpoint's own success status exactly (`ANSWER`: 201 for what a POST creates, 200
otherwise), never a refusal; a refused caller gets 403 (401 without a known token).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import (
    UNKNOWN,
    Club,
    Game,
    Player,
    game,
    kitty_emptied_game,
    ok,
    problem,
    shared_client,
)

__all__ = ["shared_client"]

STAFF = frozenset({"treasurer", "operator"})
TREASURER_ONLY = frozenset({"treasurer"})
STAFF_AND_SELF = STAFF | {"self"}
EVERYONE = STAFF | {"self", "other"}
ROLES = ("none", "unknown", "treasurer", "operator", "self", "other")


@dataclass(frozen=True)
class Case:
    """One request; `me` is the player acting for themselves, `someone_else` one who is not."""

    method: str
    path: str
    body: dict[str, Any] | None
    me: Player
    someone_else: Player


@dataclass
class Scene:
    """Bea (banker), Pat and Quinn seated at a fresh table; Nell is a player not seated."""

    club: Club
    bea: Player
    pat: Player
    quinn: Player
    table_id: str

    @cached_property
    def nell(self) -> Player:
        return self.club.player("Nell", 0)

    def deal_id(self) -> str:
        return str(self.started()["id"])

    def started(self) -> dict[str, Any]:
        """A new deal at the table: its view, with the position of its start."""
        return self.club.deal(self.table_id)


def scene(club: Club, *, shoot: bool = False) -> Scene:
    bea, pat, quinn = (club.player(n, 50) for n in ("Bea", "Pat", "Quinn"))
    table = club.table([bea, pat, quinn], rules={"shoot": shoot} if shoot else None)
    return Scene(club, bea, pat, quinn, table["id"])


def _players_create(club: Club) -> Case:
    s = scene(club)
    return Case("POST", "/v1/players", {"name": "Newcomer"}, s.pat, s.quinn)


def _player_get(club: Club) -> Case:
    s = scene(club)
    return Case("GET", f"/v1/players/{s.pat.id}", None, s.pat, s.quinn)


def _balance_get(club: Club) -> Case:
    s = scene(club)
    return Case("GET", f"/v1/players/{s.pat.id}/balance", None, s.pat, s.quinn)


def _buy_in(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/players/{s.pat.id}/buy-ins", {"amount": 5}, s.pat, s.quinn)


def _cash_out(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/players/{s.pat.id}/cash-outs", {"amount": 5}, s.pat, s.quinn)


def _statement(club: Club) -> Case:
    s = scene(club)
    return Case("GET", f"/v1/players/{s.pat.id}/statement", None, s.pat, s.quinn)


def _balances(club: Club) -> Case:
    s = scene(club)
    return Case("GET", "/v1/balances", None, s.pat, s.quinn)


def _tokens(club: Club) -> Case:
    s = scene(club)
    return Case("POST", "/v1/tokens", {"role": "operator"}, s.pat, s.quinn)


def _player_tokens(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/players/{s.pat.id}/tokens", {"label": "phone"}, s.pat, s.quinn)


def _tables_create(club: Club) -> Case:
    s = scene(club)
    name = f"Saturday {s.table_id[:8]}"  # open tables have unique names (decision 143)
    return Case("POST", "/v1/tables", {"name": name, "seats": [s.pat.id, s.quinn.id]},
                s.pat, s.quinn)


def _table_get(club: Club) -> Case:
    s = scene(club)
    return Case("GET", f"/v1/tables/{s.table_id}", None, s.pat, s.nell)


def _tables_list(club: Club) -> Case:
    s = scene(club)
    return Case("GET", "/v1/tables", None, s.pat, s.nell)


def _table_deals(club: Club) -> Case:
    s = scene(club)
    s.deal_id()
    return Case("GET", f"/v1/tables/{s.table_id}/deals", None, s.pat, s.nell)


def _seat_join(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/tables/{s.table_id}/seats", {"player_id": s.nell.id},
                s.nell, s.quinn)


def _seat_leave(club: Club) -> Case:
    s = scene(club)
    return Case("DELETE", f"/v1/tables/{s.table_id}/seats/{s.pat.id}", None, s.pat, s.quinn)


def _kitty(club: Club) -> Case:
    s = scene(club, shoot=True)
    return Case("POST", f"/v1/tables/{s.table_id}/kitty", {"amount": 20}, s.bea, s.pat)


def _bank_sale(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/tables/{s.table_id}/bank-sales",
                {"buyer_id": s.pat.id, "price": 5}, s.bea, s.pat)


def _auction(club: Club) -> Case:
    g = kitty_emptied_game(club)
    return Case("POST", f"/v1/tables/{g.table_id}/auction", {}, g.banker, g.pat)


def _open_auction(club: Club) -> Game:
    g = kitty_emptied_game(club)
    ok(club.client.post(f"/v1/tables/{g.table_id}/auction", json={}, headers=club.treasurer))
    return g


def _bid(club: Club) -> Case:
    g = _open_auction(club)
    return Case("POST", f"/v1/tables/{g.table_id}/auction/bids",
                {"player_id": g.pat.id, "price": 5}, g.pat, g.quinn)


def _auction_close(club: Club) -> Case:
    g = _open_auction(club)
    ok(club.client.post(f"/v1/tables/{g.table_id}/auction/bids",
                        json={"player_id": g.quinn.id, "price": 5}, headers=g.quinn.headers))
    return Case("POST", f"/v1/tables/{g.table_id}/auction/close", {}, g.banker, g.pat)


def _kitty_history(club: Club) -> Case:
    s = scene(club, shoot=True)
    return Case("GET", f"/v1/tables/{s.table_id}/kitty-history", None, s.bea, s.nell)


def _deal_start(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/tables/{s.table_id}/deals", {}, s.bea, s.pat)


def _deal_get(club: Club) -> Case:
    s = scene(club)
    return Case("GET", f"/v1/deals/{s.deal_id()}", None, s.pat, s.nell)


def _action(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/deals/{s.deal_id()}/actions",
                {"player_id": s.pat.id, "action": "stake", "amount": 5}, s.pat, s.quinn)


def _audit(club: Club) -> Case:
    s = scene(club)
    deal = s.started()  # read once the audit model has it (read your writes)
    return Case("GET", f"/v1/deals/{deal['id']}/audit?min_position={deal['position']}", None,
                s.pat, s.nell)


def _history(club: Club) -> Case:
    """A settled deal's history (a deal in play has none yet), read once it is built."""
    played = game(club, top=("10H", "10S", "10D", "9H", "7S", "8D"))
    played.stakes()
    played.act(played.pat, "stick")
    played.act(played.quinn, "stick")
    settled = played.act(played.banker, "stay")
    return Case("GET", f"/v1/deals/{settled['id']}/history?min_position="
                f"{settled['position']}", None, played.pat, club.player("Nell", 0))


def _contribution(club: Club) -> Case:
    """A shuffled pack before its first card takes a seated player's own randomness (R1.7)."""
    bea, pat, quinn = (club.player(n, 50) for n in ("Bea", "Pat", "Quinn"))
    table = club.table([bea, pat, quinn], pack={"mode": "shuffled"})
    return Case("POST", f"/v1/tables/{table['id']}/contributions",
                {"player_id": pat.id, "value": "ab" * 32}, pat, quinn)


def _dispute(club: Club) -> Case:
    s = scene(club)
    return Case("POST", f"/v1/deals/{s.deal_id()}/disputes", {"reason": "a card was missed"},
                s.pat, s.nell)


def _disputes(club: Club) -> Case:
    s = scene(club)
    return Case("GET", "/v1/disputes?status=open", None, s.pat, s.quinn)


def _resolution(club: Club) -> Case:
    s = scene(club)
    dispute = ok(club.client.post(f"/v1/deals/{s.deal_id()}/disputes",
                                  json={"reason": "a card was missed"}, headers=s.pat.headers),
                 201)
    return Case("POST", f"/v1/disputes/{dispute['id']}/resolution",
                {"decision": "rejected", "note": "the deal stands", "corrections": []},
                s.pat, s.quinn)


def _events(club: Club) -> Case:
    s = scene(club)
    return Case("GET", "/v1/events?after=0&limit=10", None, s.pat, s.quinn)


# endpoint: (builder, who is allowed, which roles are specified by api-notes.md)
MATRIX: dict[str, tuple[Callable[[Club], Case], frozenset[str], tuple[str, ...]]] = {
    "POST /v1/players": (_players_create, STAFF, ROLES),
    "GET /v1/players/{id}": (_player_get, STAFF_AND_SELF, ROLES),
    "GET /v1/players/{id}/balance": (_balance_get, STAFF_AND_SELF, ROLES),
    "POST /v1/players/{id}/buy-ins": (_buy_in, TREASURER_ONLY, ROLES),
    "POST /v1/players/{id}/cash-outs": (_cash_out, TREASURER_ONLY, ROLES),
    "GET /v1/players/{id}/statement": (_statement, TREASURER_ONLY | {"self"}, ROLES),
    "GET /v1/balances": (_balances, TREASURER_ONLY, ROLES),
    "POST /v1/tokens": (_tokens, TREASURER_ONLY, ROLES),
    "POST /v1/players/{id}/tokens": (_player_tokens, TREASURER_ONLY, ROLES),
    "POST /v1/tables": (_tables_create, STAFF, ROLES),
    "GET /v1/tables/{id}": (_table_get, EVERYONE, ROLES),
    # Lists of every table and of a table's deals are the staff's (decision 80)
    "GET /v1/tables": (_tables_list, STAFF, ROLES),
    "GET /v1/tables/{id}/deals": (_table_deals, STAFF, ROLES),
    "POST /v1/tables/{id}/seats": (_seat_join, STAFF_AND_SELF, ROLES),
    "DELETE /v1/tables/{id}/seats/{player_id}": (_seat_leave, STAFF_AND_SELF, ROLES),
    "POST /v1/tables/{id}/kitty": (_kitty, STAFF_AND_SELF, ROLES),
    "POST /v1/tables/{id}/bank-sales": (_bank_sale, STAFF_AND_SELF, ROLES),
    "POST /v1/tables/{id}/auction": (_auction, STAFF_AND_SELF, ROLES),
    "POST /v1/tables/{id}/auction/bids": (_bid, STAFF_AND_SELF, ROLES),
    "POST /v1/tables/{id}/auction/close": (_auction_close, STAFF_AND_SELF, ROLES),
    # kitty-history is not in the matrix of api-notes.md: only the token and staff are checked
    "GET /v1/tables/{id}/kitty-history": (_kitty_history, STAFF,
                                          ("none", "unknown", "treasurer", "operator")),
    "POST /v1/tables/{id}/deals": (_deal_start, STAFF, ROLES),
    # A contribution is the player's own randomness: staff may not add one for them (R1.7).
    "POST /v1/tables/{id}/contributions": (_contribution, frozenset({"self"}), ROLES),
    "GET /v1/deals/{id}": (_deal_get, STAFF_AND_SELF, ROLES),
    "POST /v1/deals/{id}/actions": (_action, STAFF_AND_SELF, ROLES),
    "GET /v1/deals/{id}/audit": (_audit, STAFF_AND_SELF, ROLES),
    "GET /v1/deals/{id}/history": (_history, STAFF_AND_SELF, ROLES),
    "POST /v1/deals/{id}/disputes": (_dispute, STAFF_AND_SELF, ROLES),
    # A player lists the disputes on their own deals (decision 142).
    "GET /v1/disputes": (_disputes, TREASURER_ONLY | {"self", "other"}, ROLES),
    "POST /v1/disputes/{id}/resolution": (_resolution, TREASURER_ONLY, ROLES),
    "GET /v1/events": (_events, STAFF, ROLES),
}

# The success status of each endpoint, for every caller the matrix allows.
ANSWER: dict[str, int] = {
    **{endpoint: 200 for endpoint in MATRIX},
    **{endpoint: 201 for endpoint in ("POST /v1/players", "POST /v1/players/{id}/buy-ins",
                                      "POST /v1/players/{id}/cash-outs", "POST /v1/tokens",
                                      "POST /v1/tables", "POST /v1/tables/{id}/deals",
                                      "POST /v1/deals/{id}/disputes",
                                      "POST /v1/players/{id}/tokens",
                                      "POST /v1/tables/{id}/contributions")}}

CASES = [pytest.param(endpoint, role, id=f"{endpoint}-{role}")
         for endpoint, (_, _, roles) in MATRIX.items() for role in roles]


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


@pytest.fixture(scope="module")
def refused_cases(club: Club) -> dict[str, Case]:
    """A request that should be refused changes nothing, so its scene is built once per
    store."""
    return {}


def _headers(club: Club, case: Case, role: str) -> dict[str, str]:
    return {"none": {}, "unknown": UNKNOWN, "treasurer": club.treasurer,
            "operator": club.operator, "self": case.me.headers,
            "other": case.someone_else.headers}[role]


@pytest.mark.parametrize(("endpoint", "role"), CASES)
def test_each_role_is_allowed_or_refused_as_the_role_matrix_says(
        club: Club, refused_cases: dict[str, Case], endpoint: str, role: str) -> None:
    """api-notes.md "Who may do what": 401 without a known token, 403 for a role or seat that
    may not, and the endpoint's success status for one that may."""
    build, allowed, _ = MATRIX[endpoint]
    if role in allowed:
        case = build(club)
    else:
        case = refused_cases.get(endpoint) or refused_cases.setdefault(endpoint, build(club))
    headers = _headers(club, case, role)

    response = club.client.open(case.path, method=case.method, json=case.body,
                                headers=headers)

    if role in ("none", "unknown"):
        body = problem(response, 401)
        assert "Bearer" in response.headers.get("WWW-Authenticate", ""), body
    elif role in allowed:
        assert response.status_code == ANSWER[endpoint], response.get_data(as_text=True)
    else:
        problem(response, 403)


@pytest.mark.parametrize("path", ["/v1/health", "/openapi.json", "/docs"])
@pytest.mark.parametrize("role", ["none", "treasurer", "operator", "player"])
def test_health_openapi_and_docs_need_no_token(club: Club, path: str, role: str) -> None:
    """API.md: every request but GET /v1/health, /openapi.json and /docs carries a token."""
    headers = {"none": {}, "treasurer": club.treasurer, "operator": club.operator}.get(role)
    if headers is None:
        headers = club.player("Walk-in", 0).headers

    response = club.client.get(path, headers=headers)

    assert response.status_code == 200, response.get_data(as_text=True)


def test_a_player_may_act_for_themselves_but_not_for_another_seat_of_the_same_deal(
        club: Club) -> None:
    """api-notes.md: a player acts only with their own `player_id`; the refusal records
    nothing (the deal's version is unchanged)."""
    s = scene(club)
    deal_id = s.deal_id()
    before = club.view(deal_id)["version"]

    refused = club.send(deal_id, s.pat, "stake", headers=s.quinn.headers, amount=5)
    after_refusal = club.view(deal_id)["version"]
    allowed = club.send(deal_id, s.pat, "stake", amount=5)

    problem(refused, 403)
    assert after_refusal == before
    assert allowed.status_code == 200, allowed.get_data(as_text=True)


def test_a_player_token_is_refused_by_the_staff_only_reads_of_other_players(
        club: Club) -> None:
    """api-notes.md: a player sees only their own player record and balance."""
    s = scene(club)

    own = club.client.get(f"/v1/players/{s.pat.id}/balance", headers=s.pat.headers)
    others = club.client.get(f"/v1/players/{s.quinn.id}/balance", headers=s.pat.headers)

    assert own.status_code == 200
    assert own.get_json()["balance"] == 50
    problem(others, 403)
