"""Corrections in disputes over HTTP, on both stores: R11.4's Decision (API.md Additions,
Disputes; Input limits and accounts).

Bea banks for Pat and Quinn; stakes of 5; Pat (19) beats Bea (18), Quinn (17) does not. The
deal's postings move 25 chips in all: two stakes into escrow, Pat's stake back and Bea's 5
to Pat, Quinn's stake to Bea.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import pytest
from flask.testing import FlaskClient

from domain.aggregates import TREASURY_ID, kitty_id
from tests.api.helpers import Club, Game, Player, game, ok, problem, shared_client

__all__ = ["shared_client"]

PLAIN_TOP = ("10H", "10S", "10D", "9H", "7S", "8D")


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


def settled(club: Club) -> Game:
    played = game(club, top=PLAIN_TOP)
    played.stakes()
    played.act(played.pat, "stick")
    played.act(played.quinn, "stick")
    played.act(played.banker, "stay")
    assert played.deal["phase"] == "settled", played.deal
    return played


def account(player: Player) -> str:
    return f"player:{player.id}"


def raised(g: Game, reason: str = "my 17 beat the banker's 16") -> str:
    body = ok(g.club.client.post(f"/v1/deals/{g.deal_id}/disputes", json={"reason": reason},
                                 headers=g.quinn.headers), 201)
    return str(body["id"])


def resolve(g: Game, dispute_id: str, *corrections: tuple[str, str, int], **extra: Any) -> Any:
    body = {"decision": "upheld", "note": "recounted", **extra,
            "corrections": [{"from_account": a, "to_account": b, "amount": n}
                            for a, b, n in corrections]}
    return g.club.client.post(f"/v1/disputes/{dispute_id}/resolution", json=body,
                              headers=g.club.treasurer)


def balances(club: Club, position: int | None = None) -> dict[str, int]:
    query = {"min_position": position} if position else {}
    body = ok(club.client.get("/v1/balances", query_string=query, headers=club.treasurer))
    return {row["account"]: row["balance"] for row in body["accounts"]}


# --- account references are parsed, not matched as text --------------------------------------


@pytest.mark.parametrize("spelling", [
    lambda i: i.upper(), lambda i: "{" + i + "}", lambda i: f"urn:uuid:{i}",
    lambda i: i.replace("-", ""), lambda i: f" {i}", lambda i: f"{i}\n",
], ids=["upper-case", "braces", "urn", "no-hyphens", "leading-space", "trailing-newline"])
def test_an_account_id_in_another_spelling_is_refused_and_moves_nothing(
        club: Club, spelling: Any) -> None:
    """API.md Additions: ids in canonical lower-case hyphenated form only, else 422; Bob's
    chips never move under a name the balances and his statement would not know."""
    g = settled(club)
    dispute_id = raised(g)
    head, before = club.head(), club.balances(*g.players)

    response = resolve(g, dispute_id, (account(g.banker), f"player:{spelling(g.quinn.id)}", 7))

    body = problem(response, 422)
    assert "corrections" in body["errors"], body
    assert club.head() == head and club.balances(*g.players) == before


def test_a_player_or_kitty_reference_to_the_treasurys_id_is_refused(club: Club) -> None:
    """API.md Additions: an account that is not of the kind its reference names is 422, so
    treasury chips never move under a player's name."""
    g = settled(club)
    ok(club.client.get("/v1/balances", headers=club.treasurer))  # the treasury exists
    dispute_id = raised(g)
    head = club.head()

    for name in (f"player:{TREASURY_ID}", f"kitty:{TREASURY_ID}"):
        problem(resolve(g, dispute_id, (name, account(g.quinn), 5)), 422)

    assert club.head() == head


# --- R11.4's Decision ------------------------------------------------------------------------


def test_r11_4_decision_corrections_move_chips_only_between_the_deals_accounts_and_the_treasury(
        club: Club) -> None:
    """R11.4 Decision: a player who took no part in the disputed deal, or another table's
    kitty, is refused (422 naming R11.4); the deal's players, banker and the treasury are
    not."""
    g = settled(club)
    stranger = club.player("Sam", 50)
    dispute_id = raised(g)
    head = club.head()

    for wrong in (account(stranger), f"kitty:{uuid4()}"):
        problem(resolve(g, dispute_id, (account(g.banker), wrong, 1)), 422, "R11.4")
    assert club.head() == head

    done = ok(resolve(g, dispute_id, (account(g.banker), account(g.quinn), 3),
                      (account(g.pat), "treasury", 2)))
    assert [c["amount"] for c in done["corrections"]] == [3, 2]


def test_a_correction_to_the_kitty_of_a_table_without_shoot_says_the_table_has_none(
        club: Club) -> None:
    """R9.12: a table without Shoot Pontoon has no kitty; the refusal says so in words, not
    with the id of an account that was never opened."""
    g = settled(club)
    dispute_id = raised(g)
    head = club.head()

    body = problem(resolve(g, dispute_id, (f"kitty:{g.table_id}", account(g.quinn), 1)), 422,
                   "R9.12")

    assert "does not play Shoot Pontoon" in body["detail"], body
    assert str(kitty_id(g.table_id)) not in body["detail"] and g.table_id not in body["detail"]
    assert club.head() == head


def test_r11_4_decision_corrections_move_no_more_than_the_chips_the_deal_moved(
        club: Club) -> None:
    """R11.4 Decision: in all no more than the sum of the deal's postings (25 here): 26
    in two corrections is refused (422 naming R11.4); 25 is not."""
    g = settled(club)
    club.buy_in(g.banker, 100)
    dispute_id = raised(g)
    head = club.head()

    over = resolve(g, dispute_id, (account(g.banker), account(g.quinn), 20),
                   (account(g.banker), account(g.pat), 6))

    problem(over, 422, "R11.4")
    assert club.head() == head
    ok(resolve(g, dispute_id, (account(g.banker), account(g.quinn), 20),
               (account(g.banker), account(g.pat), 5)))


def test_r11_4_decision_a_correction_may_not_put_a_player_in_debt_unless_allowed(
        club: Club) -> None:
    """R11.4 Decision, R11.2: a correction taking a player below zero is refused (422 naming
    R11.2) and records nothing; with `"allow_debt": true` it is recorded, and the balances
    show it as that player's debt (R11.3)."""
    g = game(club, top=PLAIN_TOP, chips={"Quinn": 5})
    g.stakes()
    g.act(g.pat, "stick")
    g.act(g.quinn, "stick")
    g.act(g.banker, "stay")  # Quinn (17) loses her 5: she holds 0
    dispute_id = raised(g)
    head = club.head()

    refused = resolve(g, dispute_id, (account(g.quinn), "treasury", 7))

    problem(refused, 422, "R11.2")
    assert club.head() == head and club.balance(g.quinn) == 0
    done = ok(resolve(g, dispute_id, (account(g.quinn), "treasury", 7), allow_debt=True))
    assert done["allow_debt"] is True
    assert club.balance(g.quinn) == -7
    assert balances(club, done["position"])[account(g.quinn)] == -7
    shown = ok(club.client.get(f"/v1/disputes/{dispute_id}", headers=club.treasurer))
    assert shown["allow_debt"] is True
    assert "debt" in shown["corrections"][0]["reason"]


def test_a_typo_in_a_correction_cannot_put_a_player_a_hundred_thousand_chips_in_debt(
        club: Club) -> None:
    """The issue's case: 100,000 chips from a player holding 100 is refused (R11.4 bounds
    it by the deal; R11.2 by the player's chips), and nothing is recorded."""
    g = settled(club)
    dispute_id = raised(g)
    head = club.head()

    response = resolve(g, dispute_id, (account(g.pat), "treasury", 100_000))

    problem(response, 422)
    assert club.head() == head


# --- what a resolution shows ------------------------------------------------------------------


def test_the_audit_shows_the_dispute_its_corrections_and_the_net_result_after_them(
        club: Club) -> None:
    """API.md Additions: the audit's `disputes` (id, status, reason, decision, note and the
    correcting postings) and `net_after_corrections` per account."""
    g = settled(club)
    dispute_id = raised(g)
    done = ok(resolve(g, dispute_id, (account(g.banker), account(g.quinn), 5)))

    audit = ok(club.client.get(f"/v1/deals/{g.deal_id}/audit",
                               query_string={"min_position": done["position"]},
                               headers=club.treasurer))

    [shown] = audit["disputes"]
    assert (shown["id"], shown["status"], shown["decision"], shown["note"]) == \
        (dispute_id, "resolved", "upheld", "recounted")
    assert shown["reason"] == "my 17 beat the banker's 16"
    [posting] = shown["corrections"]
    assert (posting["from_account"], posting["to_account"], posting["amount"],
            posting["rule"]) == (account(g.banker), account(g.quinn), 5, "R11.4")
    assert posting["id"] == done["corrections"][0]["id"]
    assert posting["deal_id"] == g.deal_id and dispute_id in posting["reason"]
    # Pat won 5 from Bea; Quinn lost 5 to Bea and got 5 back from her by the correction.
    assert audit["net_after_corrections"] == {account(g.banker): -5, account(g.pat): 5,
                                              account(g.quinn): 0}


def test_a_dispute_is_read_by_staff_and_the_players_of_its_deal_only(club: Club) -> None:
    """GET /v1/disputes/{id} (API.md Additions): staff and the deal's players read it, with
    its resolution and postings; another player is 403, an unknown id 404."""
    g = settled(club)
    stranger = club.player("Sam", 0)
    dispute_id = raised(g)
    done = ok(resolve(g, dispute_id, (account(g.banker), account(g.quinn), 2)))
    query = {"min_position": done["position"]}

    for headers in (club.treasurer, club.operator, g.pat.headers, g.banker.headers):
        response = club.client.get(f"/v1/disputes/{dispute_id}", query_string=query,
                                   headers=headers)
        shown = ok(response)
        assert (shown["id"], shown["status"], shown["deal_id"]) == \
            (dispute_id, "resolved", g.deal_id)
        assert [c["id"] for c in shown["corrections"]] == [done["corrections"][0]["id"]]
        assert response.headers["ETag"] == '"2"'
    problem(club.client.get(f"/v1/disputes/{dispute_id}", headers=stranger.headers), 403)
    problem(club.client.get(f"/v1/disputes/{uuid4()}", headers=club.treasurer), 404)


def test_if_match_on_a_resolution_names_the_disputes_version(club: Club) -> None:
    """API.md Additions: If-Match on every command on an aggregate that shows an ETag; the
    open dispute is version 1, so `"2"` is a conflict (409) and `"1"` resolves it."""
    g = settled(club)
    dispute_id = raised(g)
    shown = club.client.get(f"/v1/disputes/{dispute_id}",
                            query_string={"min_position": club.head()}, headers=club.treasurer)
    assert shown.headers["ETag"] == '"1"'
    path = f"/v1/disputes/{dispute_id}/resolution"
    body = {"decision": "rejected", "note": "as paid"}

    stale = club.client.post(path, json=body, headers={**club.treasurer, "If-Match": '"2"'})
    current = club.client.post(path, json=body, headers={**club.treasurer, "If-Match": '"1"'})

    problem(stale, 409)
    ok(current)
