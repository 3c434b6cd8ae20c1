"""Every endpoint of API.md that is not projection-backed (statements, balances, kitty
history, audits, disputes and the event feed are in test_reads.py), over HTTP on both
stores, with the documented shapes (api-notes.md adds `position`, `version`, `auction`, `kitty`,
`commitment`, `void_reason`). Also /openapi.json describes every path of API.md and /docs
serves its assets itself.
Seats are Bea (banker), Pat, Quinn: cards go Pat, Quinn, Bea in each round.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import Club, app, game, kitty_emptied_game, ok, problem

__all__ = ["app"]  # safe closing of the app (tests/api/helpers.py `close_app`)

RULE_DEFAULTS = {"min_stake": 1, "max_stake": 10, "shoot": False, "kitty_min": 10,
                 "kitty_max": 100, "packs": 1, "split": "pairs", "stick_minimum": 15,
                 "banker_may_double": False, "pontoon_pays": 2, "banker_pontoon_collects": 2,
                 "no_fifth_card_buy_on_low_four": False, "royal_pontoon": False,
                 "pontoon_kinds": "plain", "burn": "off"}
TABLE_KEYS = {"id", "name", "seats", "banker", "rules", "kitty", "deal_id", "deals_played",
              "pack"}
DEAL_KEYS = {"id", "table_id", "number", "phase", "turn", "banker", "players", "settlement",
             "version", "position"}
HAND_KEYS = {"cards", "stake", "shoot_bet", "status", "bought", "twisted"}
POSTING_KEYS = {"id", "at", "position", "from_account", "to_account", "amount", "rule",
                "deal_id", "hand", "reason"}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

API_MD_PATHS = {
    ("post", "/v1/players"), ("get", "/v1/players/{}"), ("post", "/v1/players/{}/buy-ins"),
    ("post", "/v1/players/{}/cash-outs"), ("get", "/v1/players/{}/balance"),
    ("get", "/v1/players/{}/statement"), ("get", "/v1/balances"), ("post", "/v1/tokens"),
    ("post", "/v1/tables"), ("get", "/v1/tables/{}"), ("post", "/v1/tables/{}/seats"),
    ("delete", "/v1/tables/{}/seats/{}"), ("post", "/v1/tables/{}/kitty"),
    ("post", "/v1/tables/{}/bank-sales"), ("post", "/v1/tables/{}/auction"),
    ("post", "/v1/tables/{}/auction/bids"), ("post", "/v1/tables/{}/auction/close"),
    ("get", "/v1/tables/{}/kitty-history"), ("post", "/v1/tables/{}/deals"),
    ("get", "/v1/deals/{}"), ("post", "/v1/deals/{}/actions"), ("get", "/v1/deals/{}/audit"),
    ("post", "/v1/deals/{}/disputes"), ("get", "/v1/disputes"),
    ("post", "/v1/disputes/{}/resolution"), ("get", "/v1/events"), ("get", "/v1/health"),
}


@pytest.fixture
def club(client: FlaskClient, treasurer: dict[str, str]) -> Club:
    return Club(client, treasurer)


def assert_table_view(view: dict[str, Any]) -> None:
    assert view.keys() >= TABLE_KEYS, view
    assert {"mode", "commitment"} <= view["pack"].keys()
    assert UUID.match(view["id"]) and view["banker"] in view["seats"]
    assert RULE_DEFAULTS.keys() == view["rules"].keys()


def assert_deal_view(view: dict[str, Any]) -> None:
    assert view.keys() >= DEAL_KEYS, view
    assert {"player_id", "cards", "doubled"} <= view["banker"].keys()
    assert view["turn"] is None or set(view["turn"]) == {"player_id", "hand"}
    for seat in view["players"]:
        assert {"player_id", "hands"} <= seat.keys()
        for hand in seat["hands"]:
            assert hand.keys() >= HAND_KEYS, hand
    if view["settlement"] is not None:
        for posting in view["settlement"]["postings"]:
            assert posting.keys() >= POSTING_KEYS, posting


# --- players and chips ----------------------------------------------------------------------


def test_a_player_is_registered_with_a_token_shown_once_and_read_back_with_a_balance(
        club: Club) -> None:
    """API.md: POST /v1/players answers 201 {"id", "name", "token"}; GET shows the balance."""
    created = ok(club.client.post("/v1/players", json={"name": "Pat"},
                                  headers=club.treasurer), 201)

    read = ok(club.client.get(f"/v1/players/{created['id']}", headers=club.treasurer))
    own = ok(club.client.get(f"/v1/players/{created['id']}",
                             headers={"Authorization": f"Bearer {created['token']}"}))

    assert {"id", "name", "token"} <= created.keys()
    assert UUID.match(created["id"]) and created["name"] == "Pat" and created["token"]
    assert {k: read[k] for k in ("id", "name", "balance")} == {
        "id": created["id"], "name": "Pat", "balance": 0}
    assert own == read


def test_buy_ins_and_cash_outs_move_chips_and_answer_the_new_balance(club: Club) -> None:
    """API.md and R11.1: 201 {"posting_id", "balance", "position"}; a cash-out may not
    exceed the balance (422)."""
    pat = club.player("Pat", 0)

    bought = ok(club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 120},
                                 headers=club.treasurer), 201)
    cashed = ok(club.client.post(f"/v1/players/{pat.id}/cash-outs", json={"amount": 45},
                                 headers=club.treasurer), 201)
    too_much = club.client.post(f"/v1/players/{pat.id}/cash-outs", json={"amount": 76},
                                headers=club.treasurer)

    for answer in (bought, cashed):
        assert {"posting_id", "balance", "position"} <= answer.keys()
        assert isinstance(answer["posting_id"], str) and isinstance(answer["position"], int)
    assert (bought["balance"], cashed["balance"]) == (120, 75)
    assert bought["posting_id"] != cashed["posting_id"]
    assert cashed["position"] > bought["position"]
    problem(too_much, 422)
    assert club.balance(pat) == 75


def test_the_balance_is_read_now_at_a_log_position_and_as_of_a_time(club: Club) -> None:
    """API.md: GET .../balance answers {"player_id", "balance", "position"}; `position=N`
    or `as_of=<time>` give the balance as it stood then."""
    pat, operator = club.player("Pat", 0), club.operator
    before_any = datetime.now(UTC).isoformat()
    time.sleep(0.01)
    first = club.buy_in(pat, 30)
    time.sleep(0.01)
    between = datetime.now(UTC).isoformat()
    time.sleep(0.01)
    club.buy_in(pat, 12)
    head = club.head()
    url = f"/v1/players/{pat.id}/balance"

    now = ok(club.client.get(url, headers=pat.headers))
    at_first = ok(club.client.get(url, query_string={"position": first["position"]},
                                  headers=club.treasurer))
    as_of_between = ok(club.client.get(url, query_string={"as_of": between},
                                       headers=operator))
    as_of_start = ok(club.client.get(url, query_string={"as_of": before_any},
                                     headers=club.treasurer))

    assert now == {"player_id": pat.id, "balance": 42, "position": head}
    assert at_first == {"player_id": pat.id, "balance": 30, "position": first["position"]}
    assert (as_of_between["player_id"], as_of_between["balance"]) == (pat.id, 30)
    assert as_of_start["balance"] == 0


def test_tokens_are_issued_for_operators_and_treasurers_and_work(club: Club) -> None:
    """API.md: POST /v1/tokens {"role"} answers 201 {"token", "role"} (shown once)."""
    operator = ok(club.client.post("/v1/tokens", json={"role": "operator"},
                                   headers=club.treasurer), 201)
    treasurer = ok(club.client.post("/v1/tokens", json={"role": "treasurer"},
                                    headers=club.treasurer), 201)
    pat = club.player("Pat", 0)

    by_operator = club.client.post("/v1/players", json={"name": "Ann"},
                                   headers={"Authorization": f"Bearer {operator['token']}"})
    by_treasurer = club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 5},
                                    headers={"Authorization": f"Bearer {treasurer['token']}"})
    bad_role = club.client.post("/v1/tokens", json={"role": "player"}, headers=club.treasurer)

    assert operator["role"] == "operator" and operator["token"]
    assert treasurer["role"] == "treasurer" and treasurer["token"] != operator["token"]
    assert by_operator.status_code == 201
    assert ok(by_treasurer, 201)["balance"] == 5
    problem(bad_role, 400)


# --- tables -----------------------------------------------------------------------------------


def test_a_table_opens_with_every_rule_defaulted_and_a_cut_for_the_bank(club: Club) -> None:
    """API.md and R10: every rules field has its default; R3.2: without `banker` the players
    cut for the bank; a shuffled pack publishes a commitment (R1.7)."""
    players = [club.player(name, 0) for name in ("Bea", "Pat", "Quinn")]

    opened = ok(club.client.post("/v1/tables", json={"name": "Friday school",
                                                     "seats": [p.id for p in players]},
                                 headers=club.operator), 201)
    read = club.get_table(opened["id"], players[1].headers)

    assert_table_view(opened)
    assert opened["rules"] == RULE_DEFAULTS
    assert opened["seats"] == [p.id for p in players]
    assert opened["banker"] in opened["seats"]
    assert (opened["kitty"], opened["deal_id"], opened["deals_played"]) == (0, None, 0)
    assert opened["pack"]["mode"] == "shuffled"
    assert re.fullmatch(r"[0-9a-f]{64}", opened["pack"]["commitment"])
    assert {k: read[k] for k in TABLE_KEYS} == {k: opened[k] for k in TABLE_KEYS}


def test_a_table_takes_a_named_banker_rules_and_an_ordered_pack(club: Club) -> None:
    """API.md: `banker` names the first banker (R3.2); given rules override defaults."""
    g = game(club, rules={"shoot": True, "min_stake": 2, "max_stake": 20, "burn": "14"},
             start=False)

    view = club.get_table(g.table_id)

    assert view["banker"] == g.banker.id
    assert view["rules"] == {**RULE_DEFAULTS, "shoot": True, "min_stake": 2, "max_stake": 20,
                             "burn": "14"}
    assert view["pack"]["mode"] == "ordered"
    assert view["kitty"] == 0


def test_players_join_after_a_named_seat_or_last_and_leave_between_deals(club: Club) -> None:
    """API.md: seats join between deals after `after` (default last) and leave (R3.1)."""
    g = game(club, start=False)
    nell, olly = club.player("Nell", 10), club.player("Olly", 10)
    seats = f"/v1/tables/{g.table_id}/seats"

    last = ok(club.client.post(seats, json={"player_id": nell.id}, headers=nell.headers))
    after_pat = ok(club.client.post(seats, json={"player_id": olly.id, "after": g.pat.id},
                                    headers=club.operator))
    left = ok(club.client.delete(f"{seats}/{g.pat.id}", headers=g.pat.headers))
    banker_leaves = club.client.delete(f"{seats}/{g.banker.id}", headers=club.treasurer)
    g.start()
    during_a_deal = club.client.post(seats, json={"player_id": g.pat.id}, headers=club.treasurer)

    assert_table_view(last)
    assert last["seats"] == [g.banker.id, g.pat.id, g.quinn.id, nell.id]
    assert after_pat["seats"] == [g.banker.id, g.pat.id, olly.id, g.quinn.id, nell.id]
    assert left["seats"] == [g.banker.id, olly.id, g.quinn.id, nell.id]
    assert left["version"] > after_pat["version"] > last["version"]
    assert left["position"] > after_pat["position"] > last["position"]
    problem(banker_leaves, 409, "R8.2")
    problem(during_a_deal, 409, "R3.1")


def test_the_banker_puts_up_and_tops_up_the_kitty(club: Club) -> None:
    """R9.1 a kitty between kitty_min and kitty_max; R9.9 a top-up before a deal."""
    g = game(club, rules={"shoot": True}, start=False)
    kitty = f"/v1/tables/{g.table_id}/kitty"

    put_up = ok(club.client.post(kitty, json={"amount": 20}, headers=g.banker.headers))
    topped = ok(club.client.post(kitty, json={"amount": 5}, headers=club.operator))

    assert_table_view(put_up)
    assert (put_up["kitty"], topped["kitty"]) == (20, 25)
    assert isinstance(topped["position"], int) and topped["position"] > put_up["position"]
    assert club.balance(g.banker) == 75
    assert club.get_table(g.table_id)["kitty"] == 25


def test_the_banker_sells_the_bank_and_the_price_moves_from_buyer_to_seller(
        club: Club) -> None:
    """R8.2: the bank is sold to a seated player; the price moves buyer to seller."""
    g = game(club, start=False)

    sold = ok(club.client.post(f"/v1/tables/{g.table_id}/bank-sales",
                               json={"buyer_id": g.pat.id, "price": 7},
                               headers=g.banker.headers))

    assert_table_view(sold)
    assert sold["banker"] == g.pat.id
    assert club.balances(g.banker, g.pat) == {"Bea": 107, "Pat": 93}


def test_an_auction_of_the_bank_takes_bids_and_sells_to_the_highest(club: Club) -> None:
    """R9.10: when the kitty ran empty the banker auctions the bank; the close answers
    {"sold_to", "price"} and the highest bid buys it."""
    g = kitty_emptied_game(club)
    table = f"/v1/tables/{g.table_id}"

    opened = ok(club.client.post(f"{table}/auction", json={}, headers=g.banker.headers))
    ok(club.client.post(f"{table}/auction/bids", json={"player_id": g.pat.id, "price": 4},
                        headers=g.pat.headers))
    bid = ok(club.client.post(f"{table}/auction/bids",
                              json={"player_id": g.quinn.id, "price": 6},
                              headers=club.operator))
    closed = ok(club.client.post(f"{table}/auction/close", json={}, headers=g.banker.headers))

    assert opened["auction"] == []
    assert bid["auction"] == [{"player_id": g.pat.id, "price": 4},
                              {"player_id": g.quinn.id, "price": 6}]
    assert {k: closed[k] for k in ("sold_to", "price")} == {"sold_to": g.quinn.id, "price": 6}
    assert isinstance(closed["position"], int)
    after = club.get_table(g.table_id)
    assert (after["banker"], after["auction"]) == (g.quinn.id, None)


def test_an_auction_without_bids_closes_unsold(club: Club) -> None:
    """R9.10 and API.md: with no bid the close answers {"sold_to": null}."""
    g = kitty_emptied_game(club)
    table = f"/v1/tables/{g.table_id}"
    ok(club.client.post(f"{table}/auction", json={}, headers=club.treasurer))

    closed = ok(club.client.post(f"{table}/auction/close", json={}, headers=club.treasurer))

    assert closed["sold_to"] is None
    assert club.get_table(g.table_id)["banker"] == g.banker.id


# --- deals and every action ---------------------------------------------------------------------


def test_a_deal_starts_with_the_first_card_to_each_player_and_the_banker(club: Club) -> None:
    """R3.4 and API.md: POST .../deals answers 201 with the deal view; the table shows it."""
    g = game(club, top=["9H", "4C", "KD"], start=False)

    dealt = g.start(club.operator)
    read = g.view(g.pat.headers)

    assert_deal_view(dealt)
    assert (dealt["table_id"], dealt["number"], dealt["phase"]) == (g.table_id, 1, "staking")
    assert dealt["turn"] == {"player_id": g.pat.id, "hand": 0}
    assert dealt["banker"]["player_id"] == g.banker.id and not dealt["banker"]["doubled"]
    assert [seat["player_id"] for seat in dealt["players"]] == [g.pat.id, g.quinn.id]
    assert dealt["settlement"] is None and isinstance(dealt["position"], int)
    assert read["id"] == dealt["id"] and read["position"] is None
    assert club.get_table(g.table_id)["deal_id"] == dealt["id"]


def test_stake_double_buy_twist_stick_draw_and_stay_play_a_deal_to_settlement(
        club: Club) -> None:
    """R3.5 stakes, R10.3 the banker doubles, R4.3 buy, R4.4 twist, R4.8 five card trick,
    R4.6 stick, R6.3 the banker draws and stays, R7 settlement."""
    g = game(club, rules={"banker_may_double": True},
             top=["2H", "10S", "10D", "3H", "8S", "6D", "4H", "5H", "6S", "2D"])

    staked = g.stakes(pat=5, quinn=4)
    doubled = g.act(g.banker, "double")
    bought = g.act(g.pat, "buy", amount=5)
    g.act(g.pat, "twist")
    trick = g.act(g.pat, "twist")
    stuck = g.act(g.quinn, "stick")
    drawn = g.act(g.banker, "draw")
    settled = g.act(g.banker, "stay")

    assert (staked["phase"], staked["turn"]["player_id"]) == ("doubling", g.banker.id)
    assert doubled["banker"]["doubled"] and doubled["phase"] == "playing"
    assert g.hand(bought, g.pat)["bought"] == [5] and g.hand(bought, g.pat)["stake"] == 10
    pat_hand = g.hand(trick, g.pat)
    assert (pat_hand["status"], pat_hand["twisted"]) == ("five_card_trick", True)
    assert stuck["phase"] == "banker" and stuck["turn"]["player_id"] == g.banker.id
    assert g.cards(drawn, g.banker) == ["10D", "6D", "2D"]
    assert settled["phase"] == "settled" and settled["turn"] is None
    assert_deal_view(settled)
    postings = settled["settlement"]["postings"]
    assert postings and all(p["deal_id"] == g.deal_id for p in postings)
    assert club.get_table(g.table_id)["deal_id"] is None


def test_decline_split_and_burn_are_played_over_http(club: Club) -> None:
    """R10.3 the banker declines, R5.1/R5.2 a pair splits into two hands played in turn
    (R4.9), R10.8 a hard 13 burns for two new cards."""
    g = game(club, rules={"banker_may_double": True, "burn": "13"},
             top=["8H", "6C", "10D", "8D", "7C", "9D", "10H", "10S", "10C", "9C"])
    g.stakes()

    declined = g.act(g.banker, "decline")
    split = g.act(g.pat, "split")
    g.act(g.pat, "stick", hand=0)
    g.act(g.pat, "stick", hand=1)
    burned = g.act(g.quinn, "burn")
    g.act(g.quinn, "stick")
    settled = g.act(g.banker, "stay")

    assert not declined["banker"]["doubled"] and declined["phase"] == "playing"
    seat = next(s for s in split["players"] if s["player_id"] == g.pat.id)
    assert [h["cards"] for h in seat["hands"]] == [["8H", "10H"], ["8D", "10S"]]
    assert [h["stake"] for h in seat["hands"]] == [5, 5]
    assert g.cards(burned, g.quinn) == ["10C", "9C"]
    assert settled["phase"] == "settled"
    assert_deal_view(settled)


def test_shoot_and_pass_are_played_in_the_first_round_and_before_a_fourth_card(
        club: Club) -> None:
    """R9.3 the first shoot round (shoot, pass), R9.5 a shoot before the fourth card."""
    g = game(club, rules={"shoot": True}, start=False,
             top=["2H", "10S", "10D", "3H", "8S", "9D", "4H", "5H", "6S"])
    club.kitty(g.table_id, 20)
    g.start()
    g.stakes()

    shot = g.act(g.pat, "shoot", amount=5)
    passed = g.act(g.quinn, "pass")
    g.act(g.pat, "twist")
    fourth = g.act(g.pat, "shoot", amount=3)
    g.act(g.pat, "twist")
    g.act(g.pat, "twist")
    g.act(g.quinn, "stick")
    settled = g.act(g.banker, "stay")

    assert shot["phase"] == "shooting" and g.hand(shot, g.pat)["shoot_bet"] == 5
    assert passed["phase"] == "playing"
    assert g.hand(fourth, g.pat)["shoot_bet"] == 8
    assert settled["phase"] == "settled" and settled["kitty"] == 20 - 8
    assert club.get_table(g.table_id)["kitty"] == 12


# --- health, OpenAPI, docs ----------------------------------------------------------------------


def test_health_names_the_store_and_the_head_of_the_log(
        club: Club, request: pytest.FixtureRequest) -> None:
    """API.md: GET /v1/health with a staff token {"status", "store": "sqlite|postgres",
    "projections"}; api-notes.md adds `position`."""
    pat = club.player("Pat", 0)
    bought = club.buy_in(pat, 5)

    health = ok(club.client.get("/v1/health", headers=club.treasurer))

    assert health["store"] == request.node.callspec.params["store_settings"]
    assert health["status"] == "ok" and isinstance(health["projections"], dict)
    assert health["position"] == bought["position"]


def test_openapi_json_describes_every_path_of_api_md(club: Club) -> None:
    """API.md: the generated OpenAPI document describes exactly API.md, and may add more."""
    response = club.client.get("/openapi.json")

    assert response.status_code == 200 and response.mimetype == "application/json"
    spec = response.get_json()
    assert spec["openapi"].startswith("3.")
    described = {(method, re.sub(r"\{[^}]+\}", "{}", path))
                 for path, item in spec["paths"].items() for method in item
                 if method in ("get", "post", "put", "patch", "delete")}
    assert API_MD_PATHS - described == set()


def test_openapi_json_describes_request_bodies_and_the_balance_query(
        club: Club) -> None:
    """API.md: every POST documents its body; the balance documents `as_of` and
    `position`."""
    spec = club.client.get("/openapi.json").get_json()

    without_body = [f"{method} {path}" for path, item in spec["paths"].items()
                    for method, operation in item.items()
                    if method == "post" and "requestBody" not in operation]
    balance = spec["paths"]["/v1/players/{player_id}/balance"]["get"]

    assert without_body == []
    assert {"as_of", "position"} <= {p["name"] for p in balance.get("parameters", [])}


@pytest.mark.parametrize(("path", "status"), [
    ("/v1/players/{player_id}/buy-ins", "201"),
    ("/v1/players/{player_id}/cash-outs", "201"),
    ("/v1/deals/{deal_id}/disputes", "201"),
    ("/v1/disputes/{dispute_id}/resolution", "200"),
    ("/v1/deals/{deal_id}/actions", "200"),
    ("/v1/tables/{table_id}/deals", "201"),
])
def test_openapi_json_declares_if_match_on_every_command_that_honours_it(
        club: Club, path: str, status: str) -> None:
    """API.md Additions: If-Match applies to every command on an aggregate that shows an
    ETag, buy-ins and cash-outs included (decision 35); the document says so."""
    spec = club.client.get("/openapi.json").get_json()

    operation = spec["paths"][path]["post"]

    assert "If-Match" in {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert status in operation["responses"]


def test_openapi_json_declares_the_etags_of_a_dispute_and_of_chips_moved(club: Club) -> None:
    """The dispute's ETag is what its resolution's If-Match takes; a buy-in or cash-out
    answers the player's new ETag."""
    spec = club.client.get("/openapi.json").get_json()
    paths = spec["paths"]

    assert "ETag" in paths["/v1/disputes/{dispute_id}"]["get"]["responses"]["200"]["headers"]
    for command in ("buy-ins", "cash-outs"):
        answer = paths[f"/v1/players/{{player_id}}/{command}"]["post"]["responses"]["201"]
        assert "ETag" in answer["headers"], command


def test_docs_serve_html_whose_assets_come_from_the_app(club: Club) -> None:
    """API.md: /docs browses the OpenAPI document; its assets are served by the app (no
    CDN), and it points at /openapi.json."""
    response = club.client.get("/docs")
    page = response.get_data(as_text=True)

    assets = re.findall(r'(?:src|href)="([^"]+)"', page)

    assert response.status_code == 200 and response.mimetype == "text/html"
    assert "/openapi.json" in page
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page), page
    assert assets
    for asset in assets:
        assert asset.startswith("/"), asset
        with club.client.get(asset) as served:
            assert served.status_code == 200, asset
            assert len(served.get_data()) > 1000, asset
