"""R6 The banker's turn: cards turned up, no turn when every hand is bust, drawing, staying.

Deal order with ("Banker", "Pat") is Pat, Banker, then (after the stake) Pat, Banker, then
Pat's cards, then the banker's draws; with ("Banker", "Pat", "Sam") it is Pat, Sam, Banker.
"""

import copy

import pytest

from domain.engine import facts as f
from domain.errors import NotNow
from tests.ledger_club import make_game


def two_player_game(top, *, stake=6, rules=None):
    """Banker and Pat, Pat's stake placed: the second round is out and Pat is in turn."""
    game = make_game(("Banker", "Pat"), top=top, rules=rules)
    game.start()
    game.act("Pat", "stake", amount=stake)
    return game


def three_player_game(top, *, stakes=(6, 6), rules=None):
    """Banker, Pat and Sam with both stakes placed: Pat is in turn, then Sam."""
    game = make_game(("Banker", "Pat", "Sam"), top=top, rules=rules)
    game.start()
    game.act("Pat", "stake", amount=stakes[0])
    game.act("Sam", "stake", amount=stakes[1])
    return game


def snapshot(game):
    return (game.deal.version, dict(game.club.balances), list(game.deal.banker_cards),
            copy.deepcopy({p: [h.snapshot() for h in hs] for p, hs in game.deal.hands.items()}),
            list(game.deal.pack))


def assert_refused(game, name, action, error, rule, **kwargs):
    """The command raises exactly `error` naming `rule`, and nothing at all changes."""
    before = snapshot(game)

    with pytest.raises(error) as caught:
        game.act(name, action, **kwargs)

    assert type(caught.value) is error
    assert caught.value.rule == rule
    assert snapshot(game) == before


# --- R6.1 the banker's cards turned up ----------------------------------------------------

def test_r6_1_the_bankers_cards_turn_face_up_when_every_player_has_finished():
    """R6.1: while Sam still plays the banker's cards are down; when Sam sticks they turn up."""
    game = three_player_game(["10S", "9S", "10D", "8S", "9H", "7C"])
    game.act("Pat", "stick")
    assert game.deal.banker_face_up == [False, False]

    facts = game.act("Sam", "stick")

    assert game.deal.phase == "banker"
    assert game.deal.banker_face_up == [True, True]
    assert any(isinstance(x, f.BankerTurnBegan) for x in facts)


def test_r6_1_players_cards_stay_hidden_except_those_already_face_up():
    """R6.1: at the banker's turn a stuck hand stays face down; a twisted card stays up."""
    game = three_player_game(["10S", "2S", "10D", "8S", "9H", "7C", "5H"])
    game.act("Pat", "stick")
    game.act("Sam", "twist")

    game.act("Sam", "stick")

    assert game.deal.phase == "banker"
    assert game.hand("Pat").face_up == [False, False]
    assert game.hand("Sam").face_up == [False, False, True]


def test_r6_1_split_and_bust_cards_are_face_up_at_the_bankers_turn():
    """R6.1: split cards (R5.4) and a bust hand (R4.7) are face up when the banker plays."""
    game = three_player_game(["8S", "10S", "10D", "8H", "6S", "7C", "9S", "10H", "KS"])
    game.act("Pat", "split")
    game.act("Pat", "stick")
    game.act("Pat", "stick")

    game.act("Sam", "twist")

    assert game.deal.phase == "banker"
    assert game.hand("Pat", 0).face_up == [True, False]
    assert game.hand("Pat", 1).face_up == [True, False]
    assert game.hand("Sam").status == "bust"
    assert game.hand("Sam").face_up == [True, True, True]


def test_r6_1_a_declared_pontoon_is_face_up_at_the_bankers_turn():
    """R6.1: a declared pontoon (R4.1) is among the cards already face up when the banker's
    cards are turned."""
    game = three_player_game(["AS", "10S", "10D", "KH", "8S", "7C"])

    game.act("Sam", "stick")

    assert game.deal.phase == "banker"
    assert game.hand("Pat").status == "pontoon"
    assert game.hand("Pat").face_up == [True, True]
    assert game.hand("Sam").face_up == [False, False]


# --- R6.2 every hand bust -----------------------------------------------------------------

def test_r6_2_when_the_only_hand_busts_the_deal_settles_without_the_banker_playing():
    """R6.2: Pat busts; the deal is settled at once: no banker's turn, no card drawn."""
    game = two_player_game(["10S", "10D", "6S", "5C", "KH"])

    facts = game.act("Pat", "twist")

    assert game.deal.phase == "settled"
    assert not any(isinstance(x, f.BankerTurnBegan) for x in facts)
    assert game.deal.banker_cards == ["10D", "5C"]
    assert game.chips("Banker") == 106
    assert game.chips("Pat") == 94
    assert game.club.total() == 0


def test_r6_2_when_every_hand_busts_the_banker_cannot_draw():
    """R6.2: both players bust, the deal is over: a banker's draw is refused (409)."""
    game = three_player_game(["10S", "10H", "10D", "6S", "6H", "5C", "KS", "KH"])
    game.act("Pat", "twist")
    game.act("Sam", "twist")
    before = snapshot(game)

    with pytest.raises(NotNow):
        game.act("Banker", "draw")

    assert snapshot(game) == before
    assert game.deal.phase == "settled"
    assert game.deal.banker_cards == ["10D", "5C"]
    assert game.chips("Banker") == 112


def test_r6_2_one_standing_hand_is_enough_for_the_banker_to_play():
    """R6.2: Pat busts but Sam stands, so the banker's turn begins."""
    game = three_player_game(["10S", "10H", "10D", "6S", "8H", "5C", "KS"])
    game.act("Pat", "twist")

    game.act("Sam", "stick")

    assert game.deal.phase == "banker"


def test_r6_2_a_split_player_bust_on_every_hand_settles_without_the_banker():
    """R6.2: every player hand, both split hands included, is bust: settled at once."""
    game = two_player_game(["10S", "9D", "10H", "7C", "6S", "6H", "KS", "KH"])
    game.act("Pat", "split")
    game.act("Pat", "twist")

    game.act("Pat", "twist")

    assert game.deal.phase == "settled"
    assert game.deal.banker_cards == ["9D", "7C"]
    assert game.chips("Banker") == 112


# --- R6.3 drawing and staying -------------------------------------------------------------

def test_r6_3_the_banker_draws_cards_face_up_one_at_a_time():
    """R6.3: 10-2 draws a 3: one card, face up, and the banker is still to play."""
    game = two_player_game(["10S", "10D", "7S", "2C", "3H", "4H"])
    game.act("Pat", "stick")

    facts = game.act("Banker", "draw")

    assert game.deal.banker_cards == ["10D", "2C", "3H"]
    assert game.deal.banker_face_up == [True, True, True]
    assert [(x.card, x.face_up, x.rule) for x in facts if isinstance(x, f.CardDealt)] == [
        ("3H", True, "R6.3")]
    assert game.deal.phase == "banker"


def test_r6_3_the_banker_may_stay_at_any_moment_with_no_minimum():
    """R6.3: the banker stays on 12 (no minimum): settled, Pat's 17 is paid."""
    game = two_player_game(["10S", "10D", "7S", "2C"])
    game.act("Pat", "stick")

    facts = game.act("Banker", "stay")

    assert any(isinstance(x, f.BankerStayed) and not x.automatic and x.rule == "R6.3"
               for x in facts)
    assert game.deal.phase == "settled"
    assert game.deal.banker_cards == ["10D", "2C"]
    assert game.chips("Pat") == 106


def test_r6_3_a_banker_at_hard_21_stays_at_once():
    """R6.3: 10-5 draws a 6 (hard 21): the banker stays without a command; deal settled."""
    game = two_player_game(["10S", "10D", "7S", "5C", "6H"])
    game.act("Pat", "stick")

    facts = game.act("Banker", "draw")

    assert any(isinstance(x, f.BankerStayed) and x.automatic and x.rule == "R6.3"
               for x in facts)
    assert game.deal.phase == "settled"
    assert game.deal.banker_cards == ["10D", "5C", "6H"]


def test_r6_3_a_banker_at_soft_21_may_draw_again():
    """R6.3: A-5-5 is soft 21 but hard 11, under 21, so the banker may draw on."""
    game = two_player_game(["10S", "AD", "7S", "5C", "5H", "2H"])
    game.act("Pat", "stick")
    game.act("Banker", "draw")
    assert game.deal.phase == "banker"

    game.act("Banker", "draw")

    assert game.deal.banker_cards == ["AD", "5C", "5H", "2H"]
    assert game.deal.phase == "banker"


def test_r6_3_the_banker_does_not_draw_before_every_player_has_finished():
    """R6.3: during Pat's turn a banker's draw or stay is refused (409)."""
    game = two_player_game(["10S", "10D", "7S", "2C"])

    assert_refused(game, "Banker", "draw", NotNow, "R6.3")
    assert_refused(game, "Banker", "stay", NotNow, "R6.3")


def test_r6_3_only_the_banker_draws_or_stays():
    """R6.3: in the banker's turn Pat's draw or stay is refused (409)."""
    game = two_player_game(["10S", "10D", "7S", "2C"])
    game.act("Pat", "stick")

    assert_refused(game, "Pat", "draw", NotNow, "R6.3")
    assert_refused(game, "Pat", "stay", NotNow, "R6.3")


# --- R6.4 banker's five card trick and bust -----------------------------------------------

def test_r6_4_five_banker_cards_at_21_or_less_are_a_five_card_trick():
    """R6.4: 2-3-4-2-3 (14): the fifth card ends the banker's turn as a five card trick,
    which collects double from Pat's 17 (R7.3)."""
    game = two_player_game(["10S", "2D", "7S", "3C", "4H", "2H", "3H"])
    game.act("Pat", "stick")
    for _ in range(2):
        game.act("Banker", "draw")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert len(game.deal.banker_cards) == 5
    assert game.chips("Pat") == 100 - 12
    assert game.chips("Banker") == 112


def test_r6_4_five_banker_cards_at_exactly_21_are_a_trick_not_a_plain_21():
    """R6.4: 2-3-4-2-10 is 21 in five cards, a five card trick: Pat's 17 pays double."""
    game = two_player_game(["10S", "2D", "7S", "3C", "4H", "2H", "10H"])
    game.act("Pat", "stick")
    for _ in range(2):
        game.act("Banker", "draw")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 88


def test_r6_4_a_banker_over_21_is_bust():
    """R6.4: 10-6 draws a K (26): the banker is bust and Pat's 17 is paid its stake."""
    game = two_player_game(["10S", "10D", "7S", "6C", "KH"])
    game.act("Pat", "stick")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 106
    assert game.chips("Banker") == 94


def test_r6_4_a_fifth_banker_card_over_21_is_bust_not_a_trick():
    """R6.4: 2-3-4-5 (14) draws a K: 24 in five cards is bust; Pat's 17 is paid once."""
    game = two_player_game(["10S", "2D", "7S", "3C", "4H", "5H", "KH"])
    game.act("Pat", "stick")
    for _ in range(2):
        game.act("Banker", "draw")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 106
