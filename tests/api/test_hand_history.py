"""Hand histories over HTTP, on both stores (API.md "Hand history", docs/decisions.md
136-137): what they hold, who reads them and when, and that a history the service gives
passes every check of the reference checker (tests/api/history_reference.py, the checks of
the page /verify/) while each forged one is refused.

The signed checkpoint and the inclusion proofs are made here, over the store's own hash
rows, with the reference's RFC 6962 tree and Ed25519 key: the service adds its own once the
signed Merkle log of issue 26 is merged (projections/history_proofs.py)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.api import history_reference as ref
from tests.api.test_players_entropy import VALUES, api, contribute, four, open_table
from tests.api.test_reads import Api, Player, assert_problem
from tests.api.test_reads_audit import MAX_DEALS, play_out

__all__ = ["api"]

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
ORIGIN = "pontoon.example/log"
HISTORY_KEYS = {"format", "deal", "table", "pack", "draws", "actions", "postings", "events",
                "checkpoint", "inclusion"}


@dataclass
class Played:
    api: Api
    players: list[Player]
    table_id: str
    revealed: list[str]  # the deals of the first pack, whose seed is revealed
    unrevealed: str  # a settled deal of a pack still in play

    def history(self, deal_id: str) -> dict[str, Any]:
        return self.api.get(f"/v1/deals/{deal_id}/history")

    def signed(self, history: dict[str, Any]) -> dict[str, Any]:
        """The history with a checkpoint of the whole log and each event's proof."""
        recorder = self.api.app.extensions["pontoon"].ledger.recorder
        log = [(row.position, row.event_hash) for row in recorder.select_hashes(0, None)]
        return ref.with_proofs(history, log, origin=ORIGIN, name=ORIGIN, key=KEY)


@pytest.fixture(scope="module")
def played(api: Api) -> Played:
    """Four players at a shuffled table; two add to the first pack; deals until a pontoon
    ends it (its seed revealed), then deals until one keeps the next pack in play."""
    players = four(api)
    by_id = {p.id: p for p in players}
    table = open_table(api, players)
    contribute(api, table["id"], players[3], VALUES[0])
    contribute(api, table["id"], players[1], VALUES[1])
    revealed: list[str] = []
    for _ in range(MAX_DEALS):
        revealed.append(play_out(api, api.start(table["id"]), by_id)["id"])
        if api.get(f"/v1/tables/{table['id']}")["pack"]["revealed"]:
            break
    for _ in range(MAX_DEALS):
        committed = api.get(f"/v1/tables/{table['id']}")["pack"]["commitment"]
        deal = play_out(api, api.start(table["id"]), by_id)["id"]
        if api.get(f"/v1/tables/{table['id']}")["pack"]["commitment"] == committed:
            return Played(api, players, table["id"], revealed, deal)
    raise AssertionError(f"no deal kept its pack in {MAX_DEALS} deals")


def test_a_settled_deals_history_holds_every_event_with_its_stored_bytes(played: Played
                                                                          ) -> None:
    """API.md: every event of the deal's aggregate from version 1, base64 of its stored
    bytes with its recorded hash and its leaf index (its 0-based order in the log); the
    pack; a draw for every card dealt; the actions; the postings."""
    deal_id = played.revealed[0]
    history = played.history(deal_id)
    audit = played.api.get(f"/v1/deals/{deal_id}/audit")
    recorder = played.api.app.extensions["pontoon"].ledger.recorder
    order = {row.position: index for index, row in enumerate(recorder.select_hashes(0, None))}

    assert set(history) == HISTORY_KEYS and history["format"] == "pontoon-hand-history-v1"
    assert [e["version"] for e in history["events"]] == \
        [m["version"] for m in audit["timeline"]] == list(range(1, len(history["events"]) + 1))
    assert [e["position"] for e in history["events"]] == \
        [m["position"] for m in audit["timeline"]]
    assert all(e["index"] == order[e["position"]] for e in history["events"])
    assert all(e["withheld"] is None and e["aggregate_id"] == deal_id
               for e in history["events"])
    facts = ref.facts_of(history)
    assert [json.loads(base64.b64decode(e["state"]))["fact"] for e in history["events"]] == facts
    assert [d["card"] for d in history["draws"]] == \
        [c for m in audit["timeline"] if m["event"] == "CardDealt" for c in m["cards"]]
    assert [d["pack_index"] for d in history["draws"]] == list(range(len(history["draws"])))
    assert history["postings"] == audit["postings"]
    assert [a["action"] for a in history["actions"]][:3] == ["stake", "stake", "stake"]
    assert history["pack"] == {
        "commitment": audit["pack"]["commitment"], "server_seed": audit["pack"]["seed"],
        "contributions": audit["pack"]["contributions"], "algorithm": "pontoon-shuffle-v1",
        "packs": 1}
    assert (history["checkpoint"], history["inclusion"]) == (None, [])


def test_every_check_of_a_revealed_deals_history_passes(played: Played) -> None:
    """Decision 136: each deal of the revealed pack passes every check: the signature, each
    event's hash and inclusion, the commitment, the mixed seed and each draw against the
    shuffle, later deals' draws continuing the pack's order where the earlier left it."""
    vkey = ref.vkey_of(ORIGIN, KEY)
    places = []
    for deal_id in played.revealed:
        history = played.signed(played.history(deal_id))
        places.append([d["pack_index"] for d in history["draws"]])

        assert ref.check(history, vkey) == dict.fromkeys(
            ("events", "signature", "inclusion", "commitment", "mixed seed", "draws"), ref.PASS)
    flat = [place for deal in places for place in deal]
    assert flat == list(range(len(flat)))


@pytest.mark.parametrize("forgery", list(ref.FORGERIES))
def test_a_forged_history_is_refused(played: Played, forgery: str) -> None:
    """Issue 26: a proof with one hash changed, a draw's card changed, a contribution dropped
    or an event's bytes edited each fail the check it forges."""
    history = played.signed(played.history(played.revealed[0]))
    _, fails = ref.FORGERIES[forgery]

    found = ref.check(ref.forged(history, forgery), ref.vkey_of(ORIGIN, KEY))

    assert found[fails] == ref.FAIL, found


def test_a_checkpoint_signed_by_another_key_is_refused(played: Played) -> None:
    """Issue 26: the same checkpoint signed under the log's name by another key fails the
    signature check against the log's verifier key (and passes against its own)."""
    history = played.signed(played.history(played.revealed[0]))
    impostor = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
    body = history["checkpoint"].split("\n\n")[0] + "\n"
    resigned = dict(history, checkpoint=ref.signed_note(body, ORIGIN, impostor))

    found = ref.check(resigned, ref.vkey_of(ORIGIN, KEY))

    assert found["signature"] == ref.FAIL
    assert ref.check(resigned, ref.vkey_of(ORIGIN, impostor))["signature"] == ref.PASS


def test_r1_7_before_its_seed_is_revealed_the_pack_order_stays_secret(played: Played) -> None:
    """Decision 137: a settled deal of a pack still in play gives its events, but the bytes
    of those that hold the pack's order are withheld (their hashes given), the seed is null,
    and the draws cannot be checked yet; everything else checks."""
    history = played.signed(played.history(played.unrevealed))
    withheld = [e for e in history["events"] if e["state"] is None]

    assert history["pack"]["server_seed"] is None
    assert withheld and all(e["withheld"] and e["event_hash"] for e in withheld)
    assert history["events"][0]["state"] is None  # DealStarted: the whole pack, top first
    assert not [f for f in ref.facts_of(history) if f and (f.get("pack") or f.get("pack_after"))]
    assert ref.check(history, ref.vkey_of(ORIGIN, KEY)) == {
        "events": ref.PASS, "signature": ref.PASS, "inclusion": ref.PASS,
        "commitment": ref.SKIP, "mixed seed": ref.SKIP, "draws": ref.SKIP}


def test_the_history_of_a_deal_in_play_is_409_and_a_player_reads_only_their_own(
        played: Played) -> None:
    """API.md: settled or void deals only (409 before); whoever may read the audit: staff
    and the deal's players (403 for another player)."""
    api = played.api
    open_deal = api.start(played.table_id)
    outsider = api.player("Not at the table", 0)

    in_play = api.read(f"/v1/deals/{open_deal['id']}/history")
    for player in played.players:
        api.get(f"/v1/deals/{played.revealed[0]}/history", player.headers)
    api.get(f"/v1/deals/{played.revealed[0]}/history", api.operator)
    other = api.read(f"/v1/deals/{played.revealed[0]}/history", outsider.headers)

    assert "still in play" in assert_problem(in_play, 409)["detail"]
    assert_problem(other, 403)
