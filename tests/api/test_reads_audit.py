"""Dispute audits over HTTP, on both stores (API.md `GET /v1/deals/{id}/audit`).

Every public scenario (tests/scenarios/data) is played over HTTP with the driver of
test_scenarios_http.py, then the audit of each of its deals is read and checked against the
deal view, the players' statements, the balances and the event feed. Then: face-down cards in
the audit of an open deal, a reshuffle that reveals the earlier pack's seed (R1.4, R1.7), and
who may read an audit.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from domain.engine.shuffle import shuffle_pack
from tests.api.test_reads import (
    NOBODY,
    RULE_ID,
    TREASURER,
    TWIST_TOP,
    Api,
    Player,
    assert_problem,
    feed,
    parse_time,
    plain_deal,
    serve,
    twist_deal_open,
)
from tests.api.test_scenarios_http import HttpClub, play_over_http
from tests.scenarios.runner import load, scenario_files

VERIFIED = {"replayed": True, "chips_conserved": True, "differences": []}
MOMENT_KEYS = {"at", "position", "actor", "action", "cards", "amount"}
POSTING_KEYS = {"id", "at", "position", "from_account", "to_account", "amount", "rule",
                "deal_id", "hand", "reason", "explanation"}
# Five players at a shuffled table: a pontoon (R1.4) is held in about one deal in four, so
# 80 deals without one would happen about once in ten billion runs.
MAX_DEALS = 80


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[Api]:
    yield from serve(request.param, tmp_path_factory)


class RecordingClub(HttpClub):
    """The scenario driver, noting each deal it starts and its last command's position."""

    def __init__(self, api: Api) -> None:
        self.deals: list[str] = []
        self.last = 0
        super().__init__(api.client, TREASURER)

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str],
             expect: int | None = None) -> Any:
        answer = super().post(path, body, headers, expect)
        if answer.status_code < 300:
            self.last = max(self.last, answer.get_json()["position"])
            if re.fullmatch(r"/v1/tables/[^/]+/deals", path):
                self.deals.append(answer.get_json()["id"])
        return answer


def audit_of(api: Api, deal_id: str, headers: dict[str, str] = TREASURER) -> dict[str, Any]:
    return api.get(f"/v1/deals/{deal_id}/audit", headers)


def check_settled_audit(api: Api, deal_id: str, names: dict[str, str]) -> dict[str, Any]:
    """The audit of a settled deal against everything else the API says about that deal."""
    audit = audit_of(api, deal_id)
    assert audit["deal_id"] == deal_id
    assert {k: audit["verification"][k] for k in VERIFIED} == VERIFIED, audit["verification"]
    view = api.get(f"/v1/deals/{deal_id}")
    assert view["phase"] in ("settled", "void")

    # The timeline: every event of the deal in order, as the feed has them.
    timeline = audit["timeline"]
    assert timeline, "a deal has events"
    positions = [m["position"] for m in timeline]
    assert positions == sorted(set(positions)), "in order of the log"
    times = [parse_time(m["at"]) for m in timeline]
    assert times == sorted(times), "in order of time"
    for moment in timeline:
        assert moment.keys() >= MOMENT_KEYS, moment
        assert isinstance(moment["actor"], str) and moment["actor"], moment
        assert isinstance(moment["action"], str) and moment["action"], moment
        assert moment["cards"] is None or all(isinstance(c, str) for c in moment["cards"]), \
            f"a settled deal shows every card: {moment}"
    events = [e for e in feed(api, positions[0] - 1)
              if e["stream_id"] == deal_id and e["position"] <= positions[-1]]
    assert [e["position"] for e in events] == positions, "every event of the deal, no other"
    assert events[0]["type"] == "Deal.DealStarted"
    assert events[-1]["type"] in ("Deal.DealSettled", "Deal.DealVoided")
    dealt = Counter(c for m in timeline for c in (m["cards"] or []))
    shown = Counter(view["banker"]["cards"]) + Counter(
        c for seat in view["players"] for hand in seat["hands"] for c in hand["cards"])
    assert not shown - dealt, f"cards in the deal view the timeline never dealt: {shown - dealt}"

    # The postings: each with its rule and an explanation naming the players it moves
    # chips between; each on the statements of those players, the same.
    postings = audit["postings"]
    escrow = f"escrow:{deal_id}"
    for posting in postings:
        assert posting.keys() >= POSTING_KEYS, posting
        assert re.fullmatch(RULE_ID, posting["rule"]), posting
        assert posting["deal_id"] == deal_id and posting["amount"] > 0
        assert posting["reason"] and posting["explanation"], posting
        for account in (posting["from_account"], posting["to_account"]):
            if account.startswith("player:"):
                name = names[account.removeprefix("player:")]
                assert name in posting["explanation"], (name, posting["explanation"])
    by_position = {p["position"]: p for p in postings}
    for moment in timeline:
        if moment["action"] in ("stake", "buy", "shoot") and moment["position"] in by_position:
            assert moment["amount"] == by_position[moment["position"]]["amount"], moment
    assert sum(p["amount"] for p in postings if p["to_account"] == escrow) == \
        sum(p["amount"] for p in postings if p["from_account"] == escrow), \
        "a finished deal leaves nothing on the table (R11.1)"
    assert api.balances().get(escrow, 0) == 0
    seated = [audit["banker"], *audit["players"]]
    assert set(seated) >= {view["banker"]["player_id"]} | {s["player_id"]
                                                           for s in view["players"]}
    for player_id in set(seated):
        account = f"player:{player_id}"
        [entries] = api.pages(f"/v1/players/{player_id}/statement", 500)
        on_statement = sorted((e["id"], e["amount"], e["rule"], e["from_account"],
                               e["to_account"]) for e in entries if e["deal_id"] == deal_id)
        in_audit = sorted((p["id"], p["amount"], p["rule"], p["from_account"], p["to_account"])
                          for p in postings if account in (p["from_account"], p["to_account"]))
        assert on_statement == in_audit, f"{names[player_id]}'s statement and the audit differ"
    live = {(p["id"], p["from_account"], p["to_account"], p["amount"], p["rule"])
            for p in (view["settlement"] or {"postings": []})["postings"]}
    assert live <= {(p["id"], p["from_account"], p["to_account"], p["amount"], p["rule"])
                    for p in postings}, "the settlement's postings are in the audit"

    # The pack: the deal's commitment, and its seed once revealed.
    assert {"commitment", "seed"} <= audit["pack"].keys()
    assert audit["pack"]["commitment"] == view["commitment"]
    return audit


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.stem)
def test_every_scenario_deal_has_an_audit_that_replays_and_explains_each_posting(
        api: Api, path: Path) -> None:
    """API.md audit, R11.1: the timeline in order with at/position/actor/action/cards/amount,
    every posting with its rule and an explanation naming the players, the pack commitment,
    and a verification that replays the deal: replayed, chips conserved, no differences."""
    club = RecordingClub(api)
    play_over_http(load(path), club)
    api.position = max(api.position, club.last)
    assert club.deals, "the scenario started a deal"
    names = {player_id: name for name, player_id in club.ids.items()}
    for deal_id in club.deals:
        check_settled_audit(api, deal_id, names)


def test_the_audit_of_an_open_deal_does_not_reveal_face_down_cards(api: Api) -> None:
    """API.md: face-down cards (R3.4, R3.7) stay null in the audit while the deal is open,
    whoever reads it; a twisted card is face up (R4.4). Once settled every card is shown."""
    game = twist_deal_open(api)
    face_down = [c for c in TWIST_TOP if c != "5S"]
    for reader in (TREASURER, api.operator, game.pat.headers):
        audit = audit_of(api, game.deal_id, reader)
        assert audit["phase"] == api.get(f"/v1/deals/{game.deal_id}")["phase"] == "playing"
        dealt = [m["cards"] for m in audit["timeline"] if m["event"] == "CardDealt"]
        assert dealt == [[None]] * 6 + [["5S"]]
        text = json.dumps(audit)
        assert not [c for c in face_down if f'"{c}"' in text], "a face-down card leaked"
        assert {k: audit["verification"][k] for k in VERIFIED} == VERIFIED
    game.act(game.quinn, "stick")
    assert game.act(game.bea, "stay")["phase"] == "settled"
    audit = check_settled_audit(api, game.deal_id,
                                {p.id: p.name for p in game.players})
    dealt = [c for m in audit["timeline"] if m["event"] == "CardDealt" for c in m["cards"]]
    assert dealt == list(TWIST_TOP)


def play_out(api: Api, deal: dict[str, Any], players: dict[str, Player]) -> dict[str, Any]:
    """Play a deal to its end: stakes of 1, stick when allowed (R4.6), else twist (R4.4);
    the banker stays (R6.3)."""
    view = deal
    for _ in range(100):
        if view["phase"] in ("settled", "void"):
            return view
        turn = view["turn"]
        who = players[turn["player_id"]]
        path = f"/v1/deals/{view['id']}/actions"
        body: dict[str, Any] = {"player_id": who.id, "hand": turn["hand"]}
        if view["phase"] == "staking":
            view = api.post(path, {**body, "action": "stake", "amount": 1}, who.headers)
        elif view["phase"] == "banker":
            view = api.post(path, {**body, "action": "stay"}, who.headers)
        else:
            assert view["phase"] == "playing", view
            answer = api.attempt(path, {**body, "action": "stick"}, who.headers)
            if answer.status_code == 422:
                answer = api.attempt(path, {**body, "action": "twist"}, who.headers)
            assert answer.status_code == 200, answer.get_data(as_text=True)
            view = answer.get_json()
    raise AssertionError(f"deal {deal['id']} did not end")


def test_a_reshuffle_reveals_the_earlier_packs_seed_in_the_audit(api: Api) -> None:
    """R1.4, R1.7: at a shuffled table the pack is committed to before it is dealt; after a
    deal with a pontoon the pack is shuffled again and the earlier seed revealed, and the
    audits of the deals dealt from it show that seed, matching its commitment, as the
    table's list of packs does; with it anyone can re-run the shuffle and find every card
    of the first deal."""
    tag = uuid4().hex[:6]
    players = [api.player(f"P{i} {tag}", 1000) for i in range(5)]
    by_id = {p.id: p for p in players}
    names = {p.id: p.name for p in players}
    table = api.table(players, pack={"mode": "shuffled"})
    first = table["pack"]["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", first) and table["pack"]["revealed"] == []
    played: list[str] = []
    for _ in range(MAX_DEALS):
        deal = api.start(table["id"])
        now = api.get(f"/v1/tables/{table['id']}")
        if now["pack"]["revealed"]:
            break
        assert deal["commitment"] == first
        played.append(deal["id"])
        if len(played) == 1:  # in play: the deal that ends the pack reveals it (decision 135)
            assert audit_of(api, deal["id"])["pack"] == \
                {"commitment": first, "seed": None, "seed_matches": None,
                 "contributions": [], "mixed_seed": None}, \
                "the seed stays secret while its pack is in play"
        play_out(api, deal, by_id)
    else:
        raise AssertionError(f"no pontoon in {MAX_DEALS} deals")

    [revealed] = now["pack"]["revealed"]
    seed = revealed["seed"]
    assert revealed["commitment"] == first
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == first
    assert now["pack"]["commitment"] not in (None, first)
    # Every pack of the table, paged: the first with its seed, the one in play without.
    packs = api.get(f"/v1/tables/{table['id']}/packs")
    assert [(p["commitment"], p["seed"]) for p in packs["items"]] == \
        [(first, seed), (now["pack"]["commitment"], None)] and packs["next"] is None
    assert packs["fair_shuffle"] is True
    one = api.get(f"/v1/tables/{table['id']}/packs", limit=1)
    assert one["items"] == packs["items"][:1] and one["next"] == one["items"][0]["position"]
    assert api.get(f"/v1/tables/{table['id']}/packs", limit=1, after=one["next"])["items"] \
        == packs["items"][1:]
    last = [e for e in feed(api, 0) if e["stream_id"] == played[-1]][-1]
    assert last["type"] == "Deal.DealVoided" or last["data"]["fact"]["pontoon_held"], last
    for deal_id in played:
        audit = check_settled_audit(api, deal_id, names)
        assert audit["pack"] == {"commitment": first, "seed": seed, "seed_matches": True,
                                 "contributions": [], "mixed_seed": seed}
    first_deal = audit_of(api, played[0])
    dealt = [c for m in first_deal["timeline"] if m["event"] == "CardDealt" for c in m["cards"]]
    assert dealt == shuffle_pack(seed, 1)[:len(dealt)], "the seed reproduces every card"
    fresh = audit_of(api, deal["id"])
    assert fresh["pack"]["commitment"] == now["pack"]["commitment"]
    assert fresh["pack"]["seed"] is None


def test_players_of_the_deal_and_staff_see_its_audit_and_other_players_do_not(
        api: Api) -> None:
    """Roles (api-notes.md): the audit is for the deal's players (the banker included),
    operators and the treasurer; another player gets 403."""
    game = plain_deal(api)
    outsider = api.player("Olly", 0)
    path = f"/v1/deals/{game.deal_id}/audit"
    audits = [api.get(path, who) for who in
              (TREASURER, api.operator, game.bea.headers, game.pat.headers, game.quinn.headers)]
    assert all(a == audits[0] for a in audits), "a settled deal's audit is the same for all"
    assert_problem(api.read(path, outsider.headers), 403)
    assert_problem(api.read(path, NOBODY), 401)
    assert_problem(api.read(f"/v1/deals/{uuid4()}/audit"), 404)
