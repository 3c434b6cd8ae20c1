"""Void deals over HTTP, on both stores: a player who can no longer stake sits out (R3.5's
Decision), which voids a deal nobody else is left in, and a deal void because the pack
ran out (R1.6), whose audit decides every recorded event again (R7.5).

Pat holds 10 chips and sits at two tables with a minimum stake of 10: Ann banks table A,
Bob table B. Both deals start; Pat stakes his 10 at A.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.web.present import EVENT_WORDS, describe
from domain.engine import facts as f
from domain.engine.cards import full_pack
from tests.api.helpers import Club, Player, ok, problem, send_sign_in, shared_client
from tests.conftest import TREASURER_TOKEN

__all__ = ["shared_client"]

RULES = {"min_stake": 10, "max_stake": 20}
VERIFIED = {"replayed": True, "chips_conserved": True, "differences": []}
REASON = "when their turn to stake came they held less than the minimum stake of 10 (R3.5)"


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


def two_tables(club: Club, b_others: tuple[str, ...] = (), b_top: tuple[str, ...] = ()
               ) -> tuple[dict[str, Player], str, dict[str, Any]]:
    """Pat (10 chips) at A (Ann) and B (Bob, then Pat and `b_others` in the order named
    there); both deals started, Pat's 10 staked at A. Returns the people, B's id, B's deal."""
    people = {"Ann": club.player("Ann"), "Bob": club.player("Bob"),
              "Pat": club.player("Pat", 10), "Quinn": club.player("Quinn")}
    b_seats = b_others or ("Pat",)
    a = club.table([people["Ann"], people["Pat"]], rules=RULES)["id"]
    b = club.table([people["Bob"], *(people[n] for n in b_seats)], rules=RULES,
                   top=b_top)["id"]
    a_deal, b_deal = club.deal(a), club.deal(b)
    club.act(a_deal["id"], people["Pat"], "stake", amount=10)
    assert club.balance(people["Pat"]) == 0
    return people, b, b_deal


def audit(club: Club, deal_id: str, position: int, headers: dict[str, str] | None = None
          ) -> dict[str, Any]:
    return ok(club.client.get(f"/v1/deals/{deal_id}/audit",
                              query_string={"min_position": position},
                              headers=headers or club.treasurer))


def test_r3_5_the_two_table_deal_that_was_stuck_is_void_once_pat_sits_out(club: Club) -> None:
    """R3.5: at B Pat's turn to stake has come and he holds nothing. Leaving and a new deal
    are not expected while the deal is open (409), but the deal is no longer stuck:
    legal-actions offer Pat's stake without amounts, and his stake is answered by his
    sitting out; with nobody but the banker left the deal is void, no chip moves and the
    pack is kept. Then a new deal is refused until Pat buys chips or leaves (R3.5), and he
    leaves. The audit records why, keeps Pat's card unseen, and verifies (R7.5)."""
    people, b, deal = two_tables(club, b_top=("9C", "KD"))
    pat, bob = people["Pat"], people["Bob"]
    legal = f"/v1/deals/{deal['id']}/legal-actions"
    offered = [{"player_id": pat.id, "hand": 0, "action": "stake", "amount_min": None,
                "amount_max": None}]
    assert ok(club.client.get(legal, headers=pat.headers))["items"] == offered
    assert ok(club.client.get(legal, headers=club.operator))["items"] == offered
    problem(club.client.delete(f"/v1/tables/{b}/seats/{pat.id}", headers=pat.headers), 409,
            "R3.1")
    problem(club.client.post(f"/v1/tables/{b}/deals", json={}, headers=club.treasurer), 409,
            "R3.4")

    answer = club.act(deal["id"], pat, "stake", amount=10)

    assert answer["phase"] == "void" and answer["turn"] is None
    assert answer["players"] == [{"player_id": pat.id, "hands": [], "sat_out": REASON}]
    assert "R3.5" in answer["void_reason"] and answer["settlement"] == {"postings": []}
    assert (club.balance(pat), club.balance(bob)) == (0, 100)
    assert club.get_table(b)["deal_id"] is None
    problem(club.client.post(f"/v1/tables/{b}/deals", json={}, headers=club.treasurer), 409,
            "R3.5")
    ok(club.client.delete(f"/v1/tables/{b}/seats/{pat.id}", headers=pat.headers))
    assert club.get_table(b)["seats"] == [bob.id]
    for headers in (club.treasurer, pat.headers, bob.headers):
        found = audit(club, deal["id"], answer["position"], headers)
        assert found["verification"] == VERIFIED and found["phase"] == "void"
        events = {m["event"]: m for m in found["timeline"]}
        assert events["PlayerSatOut"]["player_id"] == pat.id
        assert events["PlayerSatOut"]["rule"] == "R3.5"
        dealt = [(m["player_id"], m["cards"]) for m in found["timeline"]
                 if m["event"] == "CardDealt"]
        assert dealt == [(pat.id, [None]), (bob.id, ["KD"])]
        assert "9C" not in str(found)


def test_r3_5_the_card_of_a_player_who_sat_out_stays_out_of_the_event_feed(
        club: Club) -> None:
    """R3.5: Pat's first card went under the pack unseen: the event feed leaves it out even
    once the deal is over, while the banker's card is shown then (API.md, /v1/events)."""
    people, _, deal = two_tables(club, b_top=("9C", "KD"))
    answer = club.act(deal["id"], people["Pat"], "stake", amount=10)

    page = ok(club.client.get("/v1/events", query_string={
        "after": deal["position"] - 5, "limit": 100, "min_position": answer["position"]},
        headers=club.operator))

    mine = [e for e in page["items"] if e["stream_id"] == deal["id"]]
    cards = [(e["data"]["fact"]["player"], e["data"]["fact"]["card"]) for e in mine
             if e["type"] == "Deal.CardDealt"]
    assert cards == [(people["Pat"].id, None), (people["Bob"].id, "KD")]
    assert [e["type"] for e in mine][-2:] == ["Deal.PlayerSatOut", "Deal.DealVoided"]
    assert "9C" not in str(mine)


def test_r3_5_an_operator_staking_for_a_short_seat_sits_it_out_and_staking_goes_on(
        club: Club) -> None:
    """R3.5: at B Pat stakes before Quinn; an operator entering Pat's stake for him gets
    the same answer as Pat would: Pat sits out, and the turn to stake moves to Quinn, whose
    stake brings the second round to Quinn and the banker only."""
    people, _, deal = two_tables(club, ("Pat", "Quinn"), b_top=("9C", "9S", "KD", "8S", "QD"))
    pat, quinn = people["Pat"], people["Quinn"]

    answer = club.act(deal["id"], pat, "stake", headers=club.operator, amount=10)
    assert answer["phase"] == "staking"
    assert answer["turn"] == {"player_id": quinn.id, "hand": 0}
    view = club.act(deal["id"], quinn, "stake", amount=10)

    assert view["phase"] == "playing"
    seats = {seat["player_id"]: seat for seat in view["players"]}
    assert seats[pat.id] == {"player_id": pat.id, "hands": [], "sat_out": REASON}
    assert seats[quinn.id]["sat_out"] is None
    assert seats[quinn.id]["hands"][0]["cards"] == ["9S", "8S"]
    assert club.balance(quinn) == 90 and club.balance(pat) == 0
    problem(club.send(deal["id"], pat, "stake", amount=10), 409, "R3.1")


def test_r3_5_the_stake_before_a_short_players_turn_sits_them_out(club: Club) -> None:
    """R3.5: at B Quinn stakes before Pat. Quinn's stake brings staking to Pat, who holds
    nothing: he sits out in the same command and the second round follows."""
    people, _, deal = two_tables(club, ("Quinn", "Pat"), b_top=("9S", "9C", "KD", "8S", "QD"))
    pat, quinn = people["Pat"], people["Quinn"]

    view = club.act(deal["id"], quinn, "stake", amount=10)

    assert view["phase"] == "playing" and view["turn"] == {"player_id": quinn.id, "hand": 0}
    assert [seat["sat_out"] for seat in view["players"]] == [None, REASON]
    assert [seat["player_id"] for seat in view["players"]] == [quinn.id, pat.id]
    found = audit(club, deal["id"], view["position"])
    assert found["verification"] == VERIFIED
    assert [m["event"] for m in found["timeline"]][4:7] == [
        "StakePlaced", "PlayerSatOut", "CardDealt"]


def test_r3_5_the_treasurers_deal_page_says_who_sat_out_and_why(club: Club) -> None:
    """R3.5 (the treasurer's pages, /web): the deal's timeline reads "Pat sits this deal
    out" with the reason recorded, and Pat's unseen card is drawn as a card back."""
    people, _, deal = two_tables(club, b_top=("9C", "KD"))
    answer = club.act(deal["id"], people["Pat"], "stake", amount=10)
    browser = club.client.application.test_client()
    signed_in = send_sign_in(browser, TREASURER_TOKEN)
    assert signed_in.status_code == 303

    html = browser.get(f"/web/deals/{deal['id']}",
                       query_string={"min_position": answer["position"]})

    text = html.get_data(as_text=True)
    assert html.status_code == 200, text[:2000]
    # Earlier tests of this module seat other players named Pat: the pages tell them apart.
    assert re.search(rf"Pat( \([0-9a-f]+\))? sits this deal out: {re.escape(REASON)}", text)
    assert "The deal is void" in text
    assert "king of diamonds" in text and "nine of clubs" not in text


SIX = ("Bea", "P1", "P2", "P3", "P4", "P5")
# Six seats, each player splitting to four hands (R5.3): every card ends in a standing hand
# (tests/unit/test_r1_cards_and_pack.py `six_seats_four_hands_each` tells the story).
SIX_ROUNDS = ["5S", "6S", "7S", "8S", "9S", "2D", "5H", "6H", "7H", "8H", "9H", "2C"]
SIX_TURNS = [["5D", "10S", "5C", "JS", "QS", "KS", "2S", "2H", "3S", "3H"],
             ["6D", "10H", "6C", "JH", "QH", "KH", "3D", "3C", "4S", "4H"],
             ["7D", "10D", "7C", "JD", "QD", "KD"], ["8D", "10C", "8C", "JC", "QC", "KC"],
             ["9D", "AS", "9C", "AH", "AD", "AC"]]


def test_r1_6_the_audit_of_a_deal_void_at_the_bankers_draw_verifies(club: Club) -> None:
    """R1.6 with R7.5: six seats, four split hands each, and the banker's third draw finds
    the pack empty: the draw is answered with the void deal, every stake comes back, and
    its audit replays (the draw that found no card is recovered) and conserves chips."""
    cards = SIX_ROUNDS + [card for turn in SIX_TURNS for card in turn] + ["4D", "4C"]
    assert Counter(cards) == Counter(full_pack(1))
    people = [club.player(name) for name in SIX]
    table = club.table(people, pack={"mode": "ordered", "cards": cards})
    deal_id = club.deal(table["id"])["id"]
    for player in people[1:]:
        club.act(deal_id, player, "stake", amount=2)
    for index, player in enumerate(people[1:]):
        for _ in range(3):
            club.act(deal_id, player, "split")
        for _ in range(4):
            if index < 2:
                club.act(deal_id, player, "twist")
            club.act(deal_id, player, "stick")
    club.act(deal_id, people[0], "draw")
    club.act(deal_id, people[0], "draw")

    answer = club.act(deal_id, people[0], "draw")

    assert answer["phase"] == "void" and "R1.6" in answer["void_reason"]
    assert {club.balance(p) for p in people} == {100}
    found = audit(club, deal_id, answer["position"])
    assert found["verification"] == VERIFIED
    assert found["timeline"][-1]["event"] == "DealVoided"


def test_r3_5_the_deal_page_tells_in_words_why_a_player_sat_out() -> None:
    """R3.5 (the treasurer's pages): every fact of a deal has its sentence; the sit-out
    reads with the player's name and the reason the deal recorded."""
    deal_facts = {cls for name, cls in f.FACT_TYPES.items()
                  if name not in ("TableOpened", "PackArranged", "PackShuffled",
                                  "PlayerSeated", "PlayerLeft", "KittyPutUp", "BankSold",
                                  "AuctionOpened", "BidPlaced", "AuctionClosed",
                                  "KittyCorrected", "DealOpened", "DealEnded",
                                  "ContributionAdded")}

    words = describe("PlayerSatOut", {"player": "p1", "reason": REASON, "rule": "R3.5"},
                     {"p1": "Pat"})

    assert deal_facts <= set(EVENT_WORDS)
    assert words == f"Pat sits this deal out: {REASON}"
