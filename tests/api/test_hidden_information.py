"""What staff and the banker may learn of face-down cards (docs/decisions.md 21, 22)."""

from __future__ import annotations

from tests.api.helpers import Club, game, shared_client  # noqa: F401 (fixture)

# Pat 10-3 (13): he may not stick (R4.6) and may burn on 13 (R10.8); Quinn 8-8 may split.
TOP = ("10H", "8S", "9D", "3C", "8C", "7D")


def test_staff_are_not_shown_actions_that_depend_on_face_down_cards(shared_client):  # noqa: F811
    """R4.6, R5.1, R10.8: staff see null for Pat's cards, so the legal actions they are shown
    must not tell whether he may split, burn or stick; Pat's own token is shown them all."""
    club = Club(shared_client)
    played = game(club, top=TOP, rules={"burn": "13"})
    played.stakes()

    staff = club.client.get(f"/v1/deals/{played.deal_id}/legal-actions",
                            headers=club.treasurer).get_json()
    own = club.client.get(f"/v1/deals/{played.deal_id}/legal-actions",
                          headers=played.pat.headers).get_json()

    assert staff["complete"] is False
    assert {a["action"] for a in staff["items"]} == {"buy", "twist"}
    assert own["complete"] is True
    assert {a["action"] for a in own["items"]} == {"buy", "twist", "burn"}


def test_a_player_is_shown_no_actions_out_of_turn(shared_client):  # noqa: F811
    """R3.1: legal actions belong to the player in turn."""
    club = Club(shared_client)
    played = game(club, top=TOP)
    played.stakes()

    quinn = club.client.get(f"/v1/deals/{played.deal_id}/legal-actions",
                            headers=played.quinn.headers).get_json()

    assert quinn["items"] == []


def test_the_banker_does_not_see_their_first_card_while_players_stake(shared_client):  # noqa: F811
    """R3.4: every player but the banker may look at the first card; the banker sees theirs
    once the second round is out (R3.7)."""
    club = Club(shared_client)
    played = game(club, top=TOP)

    while_staking = played.view(played.banker.headers)
    played.stakes()
    after_second_round = played.view(played.banker.headers)

    assert while_staking["banker"]["cards"] == [None]
    assert after_second_round["banker"]["cards"] == ["9D", "7D"]


def test_a_void_deal_shows_its_refunds_as_its_settlement(shared_client):  # noqa: F811
    """R1.6: a void deal's returned stakes are listed like a settlement's postings."""
    club = Club(shared_client)
    seats = [club.player(f"P{i}", 50) for i in range(27)]
    table = club.table(seats)  # 26 players and the banker take all 52 cards in two rounds
    deal = club.deal(table["id"])
    for player in seats[1:]:
        deal = club.act(deal["id"], player, "stake", amount=1)

    assert deal["phase"] == "void"
    assert {p["rule"] for p in deal["settlement"]["postings"]} == {"R1.6"}
    assert sum(p["amount"] for p in deal["settlement"]["postings"]) == 26
