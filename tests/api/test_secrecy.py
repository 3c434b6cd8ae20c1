"""Face-down cards are secret (API.md, Authentication and roles; api-notes.md, Secret cards).

A face-down card is null for every viewer but its holder: the treasurer, an operator, the
other players and the banker all see null, in the deal view, in command answers and in
error bodies. Cards dealt face up (twisted R4.4, split R5.4), busted hands (R4.7) and
declared pontoons (R4.1) are shown to everyone; the banker's cards are turned up at the
banker's turn (R6.1); after settlement every card is shown; in recorded mode staff, who
enter the cards, see them all.
Seats are Bea (banker), Pat, Quinn: cards go Pat, Quinn, Bea in each round.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import Club, Game, app, game, ok, problem

__all__ = ["app"]  # safe closing of the app (tests/api/helpers.py `close_app`)


@pytest.fixture
def club(client: FlaskClient, treasurer: dict[str, str]) -> Club:
    return Club(client, treasurer)


def every_card(view: dict[str, Any]) -> list[str | None]:
    cards = list(view["banker"]["cards"])
    for seat in view["players"]:
        for hand in seat["hands"]:
            cards.extend(hand["cards"])
    return cards


def staff_and_others(g: Game, holder_name: str) -> dict[str, dict[str, str]]:
    """Every viewer who is not the holder: treasurer, operator, and the other seats."""
    viewers = {"treasurer": g.club.treasurer, "operator": g.club.operator}
    for player in g.players:
        if player.name != holder_name:
            viewers[player.name] = player.headers
    return viewers


def test_the_first_card_is_seen_only_by_its_holder(club: Club) -> None:
    """R3.4 and API.md: the first card is face down; only its holder sees it, not the
    treasurer, the operator who dealt it, nor the other players."""
    g = game(club, top=["9H", "4C", "KD"], start=False)

    dealt = g.start(club.operator)
    views = {name: g.view(headers) for name, headers in
             {"treasurer": club.treasurer, "operator": club.operator, "Pat": g.pat.headers,
              "Quinn": g.quinn.headers}.items()}

    assert every_card(dealt) == [None, None, None]
    assert every_card(views["treasurer"]) == [None, None, None]
    assert every_card(views["operator"]) == [None, None, None]
    assert g.cards(views["Pat"], g.pat) == ["9H"]
    assert g.cards(views["Pat"], g.quinn) == [None]
    assert g.cards(views["Pat"], g.banker) == [None]
    assert g.cards(views["Quinn"], g.quinn) == ["4C"]
    assert g.cards(views["Quinn"], g.pat) == [None]


def test_second_cards_stay_hidden_from_staff_and_other_players_while_holders_see_their_own(
        club: Club) -> None:
    """R3.7: everyone looks at their own two cards; the answer to a staff command for a seat
    hides that seat's cards too."""
    g = game(club, top=["9H", "4C", "KD", "7S", "10C", "8D"])

    club.act(g.deal_id, g.pat, "stake", headers=club.operator, amount=5)
    answer = club.act(g.deal_id, g.quinn, "stake", headers=club.operator, amount=5)
    pat_view = g.view(g.pat.headers)
    bea_view = g.view(g.banker.headers)

    assert answer["phase"] == "playing"
    assert every_card(answer) == [None] * 6
    assert every_card(g.view(club.treasurer)) == [None] * 6
    assert g.cards(pat_view, g.pat) == ["9H", "7S"]
    assert g.cards(pat_view, g.quinn) == [None, None]
    assert g.cards(pat_view, g.banker) == [None, None]
    assert g.cards(bea_view, g.banker) == ["KD", "8D"]
    assert g.cards(bea_view, g.pat) == [None, None]
    assert g.cards(g.view(g.quinn.headers), g.quinn) == ["4C", "10C"]


def test_a_bought_card_is_face_down_and_a_twisted_card_face_up_to_everyone(club: Club) -> None:
    """R4.3: a bought card is dealt face down; R4.4: a twisted card face up (R4.5: buying
    first, then twisting)."""
    g = game(club, top=["2H", "4C", "KD", "3H", "10C", "8D", "4H", "5C"])
    g.stakes()

    g.act(g.pat, "buy", amount=5)
    g.act(g.pat, "twist")

    for name, headers in staff_and_others(g, "Pat").items():
        assert g.cards(g.view(headers), g.pat) == [None, None, None, "5C"], name
    assert g.cards(g.view(g.pat.headers), g.pat) == ["2H", "3H", "4H", "5C"]


def test_split_cards_are_face_up_and_each_new_second_card_face_down(club: Club) -> None:
    """R5.4: split cards lie face up; R5.2: each hand then gets a card face down."""
    g = game(club, top=["8H", "4C", "KD", "8D", "10C", "8C", "10H", "10S"])
    g.stakes()

    g.act(g.pat, "split")

    for name, headers in staff_and_others(g, "Pat").items():
        view = g.view(headers)
        assert g.cards(view, g.pat, 0) == ["8H", None], name
        assert g.cards(view, g.pat, 1) == ["8D", None], name
    own = g.view(g.pat.headers)
    assert g.cards(own, g.pat, 0) == ["8H", "10H"]
    assert g.cards(own, g.pat, 1) == ["8D", "10S"]


def test_a_bust_hand_is_thrown_in_face_up_for_everyone(club: Club) -> None:
    """R4.7: a hand that busts is thrown in face up, its bought card included."""
    g = game(club, top=["10H", "4C", "KD", "6H", "10C", "8D", "9C"])
    g.stakes()

    g.act(g.pat, "buy", amount=5)

    for name, headers in staff_and_others(g, "Pat").items():
        view = g.view(headers)
        assert g.hand(view, g.pat)["status"] == "bust", name
        assert g.cards(view, g.pat) == ["10H", "6H", "9C"], name
        assert g.cards(view, g.quinn) == ([None, None] if name != "Quinn" else ["4C", "10C"])


def test_a_declared_pontoon_is_shown_to_everyone(club: Club) -> None:
    """R4.1: a pontoon is declared as soon as it is formed, so it lies face up (R6.1)."""
    g = game(club, top=["AS", "4C", "KD", "KH", "10C", "8D"])

    g.stakes()

    for name, headers in staff_and_others(g, "Pat").items():
        view = g.view(headers)
        assert g.hand(view, g.pat)["status"] == "pontoon", name
        assert g.cards(view, g.pat) == ["AS", "KH"], name
        if name != "Quinn":
            assert g.cards(view, g.quinn) == [None, None], name


def test_the_bankers_cards_are_hidden_until_the_bankers_turn_then_shown_to_everyone(
        club: Club) -> None:
    """R6.1: when every player has finished, the banker's two cards are turned face up;
    players' cards stay hidden except those already face up."""
    g = game(club, top=["10H", "10S", "KD", "8H", "9S", "7D"])
    g.stakes()
    g.act(g.pat, "stick")
    during = {name: g.view(headers) for name, headers in staff_and_others(g, "Bea").items()}

    g.act(g.quinn, "stick")
    after = {name: g.view(headers) for name, headers in staff_and_others(g, "Bea").items()}

    for name, view in during.items():
        assert view["phase"] == "playing"
        assert g.cards(view, g.banker) == [None, None], name
    for name, view in after.items():
        assert view["phase"] == "banker"
        assert g.cards(view, g.banker) == ["KD", "7D"], name
    assert g.cards(after["treasurer"], g.pat) == [None, None]
    assert g.cards(after["Quinn"], g.pat) == [None, None]
    assert g.cards(after["Pat"], g.quinn) == [None, None]


def test_after_settlement_every_card_is_shown_to_everyone_allowed_to_see_the_deal(
        club: Club) -> None:
    """API.md: once a deal is settled every card is shown to everyone allowed to see it."""
    g = game(club, top=["10H", "10S", "KD", "8H", "9S", "7D"])
    g.stakes()
    g.act(g.pat, "stick")
    g.act(g.quinn, "stick")

    answer = g.act(g.banker, "stay")

    assert answer["phase"] == "settled"
    viewers = {"treasurer": club.treasurer, "operator": club.operator,
               **{p.name: p.headers for p in g.players}}
    for name, headers in viewers.items():
        view = g.view(headers)
        assert g.cards(view, g.pat) == ["10H", "8H"], name
        assert g.cards(view, g.quinn) == ["10S", "9S"], name
        assert g.cards(view, g.banker) == ["KD", "7D"], name


def test_in_recorded_mode_staff_see_every_card_and_players_only_their_own(club: Club) -> None:
    """api-notes.md: at a recorded table staff enter the cards, so they see them; players
    still see only their own face-down cards (R1.7)."""
    g = game(club, pack={"mode": "recorded"}, start=False)
    g.start(club.operator, cards=["9H", "4C", "KD"])
    club.act(g.deal_id, g.pat, "stake", headers=club.operator, amount=5)

    answer = club.act(g.deal_id, g.quinn, "stake", headers=club.operator, amount=5,
                      cards=["7S", "10C", "8D"])

    assert every_card(answer) == ["KD", "8D", "9H", "7S", "4C", "10C"]
    assert every_card(g.view(club.treasurer)) == ["KD", "8D", "9H", "7S", "4C", "10C"]
    pat_view = g.view(g.pat.headers)
    assert g.cards(pat_view, g.pat) == ["9H", "7S"]
    assert g.cards(pat_view, g.quinn) == [None, None]
    assert g.cards(pat_view, g.banker) == [None, None]
    quinn_view = g.view(g.quinn.headers)
    assert g.cards(quinn_view, g.pat) == [None, None]


def test_error_bodies_never_show_a_face_down_card(club: Club) -> None:
    """Refusals (R4.6 stick under 15, R5.1 unequal split, R4.3 buy out of range, R10.8 burn
    off, R3.1 out of turn) answered to staff or other players name no face-down card."""
    g = game(club, top=["7D", "9S", "KD", "5S", "10C", "8D"])
    g.stakes()
    hidden = ["7D", "5S", "9S", "10C", "KD", "8D"]

    refusals = [
        (club.send(g.deal_id, g.pat, "stick", headers=club.operator), 422, "R4.6"),
        (club.send(g.deal_id, g.pat, "split", headers=club.treasurer), 422, "R5.1"),
        (club.send(g.deal_id, g.pat, "buy", headers=club.operator, amount=50), 422, "R4.3"),
        (club.send(g.deal_id, g.pat, "burn", headers=club.operator), 422, "R10.8"),
        (g.send(g.quinn, "stick"), 409, "R3.1"),
        (g.send(g.banker, "stay"), 409, "R6.3"),
    ]

    for response, status, rule in refusals:
        body = problem(response, status, rule)
        text = response.get_data(as_text=True)
        assert not [card for card in hidden if card in text], body


def test_a_refusal_answered_to_staff_does_not_state_the_total_of_hidden_cards(
        club: Club) -> None:
    """The total of two face-down cards is as secret as the cards: a stick under 15 (R4.6)
    or a burn of the wrong total (R10.8) sent by an operator for a seat is refused without
    telling the operator what the hand holds."""
    g = game(club, top=["7D", "9S", "KD", "5S", "10C", "8D"], rules={"burn": "13"})
    g.stakes()

    stick = club.send(g.deal_id, g.pat, "stick", headers=club.operator)
    burn = club.send(g.deal_id, g.pat, "burn", headers=club.operator)

    for response, rule in ((stick, "R4.6"), (burn, "R10.8")):
        body = problem(response, 422, rule)
        assert not re.search(r"\b12\b", body["detail"]), body


def test_the_holder_sees_their_own_cards_in_their_own_command_answers(club: Club) -> None:
    """API.md: the holder sees their own face-down cards, also in the answer to their
    own action."""
    g = game(club, top=["2H", "4C", "KD", "3H", "10C", "8D", "4H"])
    g.stakes()

    answer = ok(g.send(g.pat, "buy", amount=5))

    assert g.cards(answer, g.pat) == ["2H", "3H", "4H"]
    assert g.cards(answer, g.quinn) == [None, None]
    assert g.cards(answer, g.banker) == [None, None]
