"""R4 The player's turn: pontoons, buying, twisting, sticking, busts, five card tricks, turns.

Deal order with ("Banker", "Pat") is Pat, Banker, then (after the stake) Pat, Banker, then
one card per buy or twist; with ("Banker", "Pat", "Sam") it is Pat, Sam, Banker.
"""

import copy

import pytest

from domain.engine import facts as f
from domain.errors import NotAllowed, NotNow
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


def assert_refused(game, name, action, error, rule, **kwargs):
    """The command raises exactly `error` naming `rule`, and nothing at all changes."""
    version = game.deal.version
    balances = dict(game.club.balances)
    hands = copy.deepcopy({p: [h.snapshot() for h in hs] for p, hs in game.deal.hands.items()})
    pack = list(game.deal.pack)

    with pytest.raises(error) as caught:
        game.act(name, action, **kwargs)

    assert type(caught.value) is error
    assert caught.value.rule == rule
    assert game.deal.version == version
    assert game.club.balances == balances
    assert {p: [h.snapshot() for h in hs] for p, hs in game.deal.hands.items()} == hands
    assert list(game.deal.pack) == pack


def turn_of(game):
    player, hand = game.deal.turn
    return game.names[player], hand


# --- R4.1 pontoon -------------------------------------------------------------------------

def test_r4_1_a_pontoon_is_finished_as_soon_as_it_is_formed():
    """R4.1: A + ten-card is a pontoon, finished without a command; the turn moves on."""
    game = make_game(("Banker", "Pat", "Sam"), top=["AS", "10S", "9D", "KH", "7S", "8C"])
    game.start()
    game.act("Pat", "stake", amount=6)

    facts = game.act("Sam", "stake", amount=6)

    assert game.hand("Pat").status == "pontoon"
    assert any(isinstance(x, f.HandFinished) and x.status == "pontoon" and x.rule == "R4.1"
               and x.player == game.ids["Pat"] for x in facts)
    assert turn_of(game) == ("Sam", 0)


def test_r4_1_a_finished_pontoon_takes_no_more_commands():
    """R4.1: once the pontoon is formed its player cannot stick or twist on it (409)."""
    game = three_player_game(["AS", "10S", "9D", "KH", "7S", "8C"])

    assert_refused(game, "Pat", "twist", NotNow, "R3.1")
    assert_refused(game, "Pat", "stick", NotNow, "R3.1")


def test_r4_1_a_ten_and_an_ace_in_either_order_is_a_pontoon():
    """R4.1: the ace may come second (10 then A) and the hand is still a pontoon at once."""
    game = two_player_game(["10S", "9D", "AH", "8C"])

    assert game.hand("Pat").status == "pontoon"
    assert game.deal.phase == "banker"


# --- R4.2 taking cards --------------------------------------------------------------------

def test_r4_2_a_hand_under_hard_21_may_buy_and_twist():
    """R4.2: 2-3 (hard 5) buys a card, then twists another; each adds one card."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "5S"])

    game.act("Pat", "buy", amount=6)
    game.act("Pat", "twist")

    assert game.hand("Pat").cards == ["2S", "3S", "4S", "5S"]
    assert game.hand("Pat").status == "open"
    assert turn_of(game) == ("Pat", 0)


def test_r4_2_a_soft_hand_with_hard_total_under_21_may_take_a_card():
    """R4.2: A-9 is worth 20 but its hard total is 10, so it may still twist."""
    game = two_player_game(["AS", "10D", "9S", "7C", "5H"])

    game.act("Pat", "twist")

    assert game.hand("Pat").cards == ["AS", "9S", "5H"]
    assert game.hand("Pat").status == "open"


def test_r4_2_no_card_is_taken_after_the_fifth():
    """R4.2: up to five cards; after the fifth the hand takes no further card (409)."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "2H", "3H", "4H"])
    for _ in range(3):
        game.act("Pat", "twist")

    assert len(game.hand("Pat").cards) == 5
    assert_refused(game, "Pat", "twist", NotNow, "R4.2")
    assert_refused(game, "Pat", "buy", NotNow, "R4.2", amount=6)


def test_r4_2_taking_a_card_before_the_second_round_is_not_now():
    """R4.2: a player takes cards only in their turn, after the second card (409)."""
    game = make_game(("Banker", "Pat"), top=["2S", "10D", "3S", "7C"])
    game.start()

    assert_refused(game, "Pat", "twist", NotNow, "R4.2")


# --- R4.3 buying --------------------------------------------------------------------------

def test_r4_3_the_third_card_costs_the_initial_stake_to_twice_it():
    """R4.3: initial 6, the third card may be bought for 6 to 12; 5 and 13 are refused."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S"], stake=6)

    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3", amount=5)
    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3", amount=13)
    game.act("Pat", "buy", amount=12)

    assert game.hand("Pat").stake == 18
    assert game.chips("Pat") == 100 - 6 - 12
    assert game.hand("Pat").cards == ["2S", "3S", "4S"]


def test_r4_3_the_third_card_may_be_bought_for_exactly_the_initial_stake():
    """R4.3: the lower bound is the initial stake itself: initial 6, buy for 6."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S"], stake=6)

    game.act("Pat", "buy", amount=6)

    assert game.hand("Pat").stake == 12
    assert game.chips("Pat") == 88


def test_r4_3_the_example_fourth_card_costs_6_to_10_after_a_third_bought_for_10():
    """R4.3 example: initial 6, third bought for 10, so the fourth costs 6 to 10."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "2H"], stake=6)
    game.act("Pat", "buy", amount=10)

    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3", amount=11)
    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3", amount=5)
    game.act("Pat", "buy", amount=10)

    assert game.hand("Pat").stake == 26
    assert game.hand("Pat").cards == ["2S", "3S", "4S", "2H"]
    assert game.chips("Pat") == 100 - 6 - 10 - 10


def test_r4_3_the_fifth_card_costs_at_most_what_the_fourth_cost():
    """R4.3: each later card costs at most the previous one: fourth bought for 7, fifth <= 7."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "2H", "3H"], stake=6)
    game.act("Pat", "buy", amount=10)
    game.act("Pat", "buy", amount=7)

    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3", amount=8)
    game.act("Pat", "buy", amount=6)

    assert game.hand("Pat").stake == 6 + 10 + 7 + 6
    assert game.chips("Pat") == 100 - 29


def test_r4_3_a_bought_card_is_dealt_face_down():
    """R4.3: the bought card lies face down, and the buy is posted under R4.3."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S"], stake=6)

    facts = game.act("Pat", "buy", amount=8)

    assert game.hand("Pat").face_up == [False, False, False]
    bought = [x for x in facts if isinstance(x, f.CardBought)]
    assert len(bought) == 1
    assert bought[0].posting.rule == "R4.3" and bought[0].posting.amount == 8


def test_r4_3_a_buy_needs_an_amount():
    """R4.3: a buy without an amount is refused (422), nothing changes."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S"], stake=6)

    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3")


# --- R4.4 twisting ------------------------------------------------------------------------

def test_r4_4_a_twisted_card_is_face_up_and_the_stake_is_unchanged():
    """R4.4: twist deals the card face up; the stake and the player's chips stay as they were."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S"], stake=6)

    facts = game.act("Pat", "twist")

    hand = game.hand("Pat")
    assert hand.cards == ["2S", "3S", "4S"]
    assert hand.face_up == [False, False, True]
    assert hand.stake == 6
    assert game.chips("Pat") == 94
    assert any(isinstance(x, f.CardDealt) and x.face_up and x.rule == "R4.4" for x in facts)


# --- R4.5 no buy after a twist ------------------------------------------------------------

def test_r4_5_a_hand_that_twisted_cannot_buy():
    """R4.5: once a hand has twisted, a buy is refused (422) and nothing changes."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "2H"], stake=6)
    game.act("Pat", "twist")

    assert_refused(game, "Pat", "buy", NotAllowed, "R4.5", amount=6)


def test_r4_5_a_hand_may_buy_then_twist_but_not_buy_again():
    """R4.5: buying first then twisting is fine; after the twist every card is twisted."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "2H", "3H"], stake=6)
    game.act("Pat", "buy", amount=6)
    game.act("Pat", "twist")

    assert_refused(game, "Pat", "buy", NotAllowed, "R4.5", amount=6)
    game.act("Pat", "twist")

    assert game.hand("Pat").cards == ["2S", "3S", "4S", "2H", "3H"]
    assert game.hand("Pat").stake == 12


# --- R4.6 sticking ------------------------------------------------------------------------

def test_r4_6_a_hand_under_15_may_not_stick():
    """R4.6: 10-4 is 14, under the minimum of 15: stick is refused (422)."""
    game = two_player_game(["10S", "10D", "4S", "7C"])

    assert_refused(game, "Pat", "stick", NotAllowed, "R4.6")


def test_r4_6_a_hand_of_15_sticks_keeping_cards_and_stake_and_the_turn_moves_on():
    """R4.6: 10-5 sticks; it keeps its cards and stake and Sam is in turn."""
    game = three_player_game(["10S", "9S", "10D", "5S", "8S", "7C"])

    facts = game.act("Pat", "stick")

    hand = game.hand("Pat")
    assert hand.status == "stuck"
    assert hand.cards == ["10S", "5S"]
    assert hand.stake == 6
    assert game.chips("Pat") == 94
    assert any(isinstance(x, f.HandStuck) and not x.automatic and x.rule == "R4.6"
               for x in facts)
    assert turn_of(game) == ("Sam", 0)


def test_r4_6_a_soft_15_may_stick():
    """R4.6: the value counts, so A-4 (soft 15) is at least 15 and may stick."""
    game = two_player_game(["AS", "10D", "4S", "7C"])

    game.act("Pat", "stick")

    assert game.hand("Pat").status == "stuck"


def test_r4_6_with_r10_2_the_minimum_is_16():
    """R4.6 with R10.2: on a table with stick_minimum 16, 15 is refused naming R10.2."""
    game = two_player_game(["10S", "10D", "5S", "7C"], rules={"stick_minimum": 16})

    assert_refused(game, "Pat", "stick", NotAllowed, "R10.2")


def test_r4_6_a_hand_under_the_minimum_must_take_cards():
    """R4.6: 10-4 may not stick but may twist to 19 and then stick."""
    game = two_player_game(["10S", "10D", "4S", "7C", "5H"])

    game.act("Pat", "twist")
    game.act("Pat", "stick")

    assert game.hand("Pat").status == "stuck"
    assert game.deal.phase == "banker"


# --- R4.7 bust ----------------------------------------------------------------------------

def test_r4_7_a_bust_hand_pays_its_stake_to_the_banker_at_once():
    """R4.7: 10-6 twists a K (26): thrown in face up, the banker has the stake before Sam plays."""
    game = three_player_game(["10S", "9S", "10D", "6S", "8S", "7C", "KH"])

    facts = game.act("Pat", "twist")

    hand = game.hand("Pat")
    assert hand.status == "bust"
    assert hand.face_up == [True, True, True]
    assert game.chips("Banker") == 106
    assert game.chips("Pat") == 94
    busted = [x for x in facts if isinstance(x, f.HandBusted)]
    assert len(busted) == 1
    assert [(p.amount, p.rule) for p in busted[0].postings] == [(6, "R4.7")]
    assert game.deal.phase == "playing"
    assert turn_of(game) == ("Sam", 0)


def test_r4_7_a_bust_hands_cards_go_to_the_bottom_of_the_pack_at_once():
    """R4.7: the busted cards are under every card still in the pack, in the order dealt."""
    game = three_player_game(["10S", "9S", "10D", "6S", "8S", "7C", "KH"])
    left = list(game.deal.pack)[1:]

    game.act("Pat", "twist")

    assert list(game.deal.pack) == left + ["10S", "6S", "KH"]


def test_r4_7_a_bust_after_buying_loses_the_whole_stake_to_the_banker():
    """R4.7: the stake taken is the whole stake, initial plus the amount bought."""
    game = two_player_game(["10S", "10D", "6S", "7C", "KH"], stake=6)

    game.act("Pat", "buy", amount=9)

    assert game.hand("Pat").status == "bust"
    assert game.chips("Pat") == 85
    assert game.chips("Banker") == 115


# --- R4.8 five card trick -----------------------------------------------------------------

def test_r4_8_a_fifth_card_at_21_or_less_makes_a_five_card_trick():
    """R4.8: 2-3-4-2 twists a 3 (14 in five cards): a five card trick, the turn moves on."""
    game = three_player_game(["2S", "9S", "10D", "3S", "8S", "7C", "4S", "2H", "3H"])
    game.act("Pat", "twist")
    game.act("Pat", "twist")

    facts = game.act("Pat", "twist")

    assert game.hand("Pat").status == "five_card_trick"
    assert any(isinstance(x, f.HandFinished) and x.status == "five_card_trick"
               and x.rule == "R4.8" for x in facts)
    assert turn_of(game) == ("Sam", 0)


def test_r4_8_five_cards_at_exactly_21_are_a_five_card_trick():
    """R4.8: 2-3-4-2 (11) twists a 10: 21 in five cards is a five card trick, not a plain 21."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "2H", "10H"])
    for _ in range(3):
        game.act("Pat", "twist")

    assert game.hand("Pat").cards == ["2S", "3S", "4S", "2H", "10H"]
    assert game.hand("Pat").status == "five_card_trick"


def test_r4_8_a_fifth_card_over_21_is_a_bust_not_a_trick():
    """R4.8 (with R4.7): 2-3-4-5 (14) twists a K: 24 is bust."""
    game = two_player_game(["2S", "10D", "3S", "7C", "4S", "5S", "KH"])
    for _ in range(3):
        game.act("Pat", "twist")

    assert game.hand("Pat").status == "bust"
    assert game.chips("Banker") == 106


# --- R4.9 hands in turn -------------------------------------------------------------------

def test_r4_9_a_split_player_plays_the_second_hand_only_after_the_first():
    """R4.9: after splitting 8-8, acting on hand 1 while hand 0 is in turn is 409 R4.9."""
    game = two_player_game(["8S", "10D", "8H", "7C", "9S", "10S"])
    game.act("Pat", "split")

    assert turn_of(game) == ("Pat", 0)
    assert_refused(game, "Pat", "stick", NotNow, "R4.9", hand=1)
    assert_refused(game, "Pat", "twist", NotNow, "R4.9", hand=1)


def test_r4_9_when_the_first_hand_finishes_the_second_is_in_turn():
    """R4.9: hand 0 sticks, hand 1 is in turn; hand 0 takes no command any more."""
    game = three_player_game(["8S", "9S", "10D", "8H", "8C", "7C", "9H", "10S"])
    game.act("Pat", "split")

    game.act("Pat", "stick", hand=0)

    assert turn_of(game) == ("Pat", 1)
    assert_refused(game, "Pat", "twist", NotNow, "R4.9", hand=0)
    game.act("Pat", "stick", hand=1)
    assert turn_of(game) == ("Sam", 0)


# --- R4.10 hard 21 ------------------------------------------------------------------------

def test_r4_10_a_hard_21_is_stuck_at_once_without_a_command():
    """R4.10: 10-5 twists a 6 (hard 21): stuck automatically, the turn moves on."""
    game = three_player_game(["10S", "9S", "10D", "5S", "8S", "7C", "6H"])

    facts = game.act("Pat", "twist")

    assert game.hand("Pat").status == "stuck"
    assert any(isinstance(x, f.HandStuck) and x.automatic and x.rule == "R4.10" for x in facts)
    assert turn_of(game) == ("Sam", 0)
    assert_refused(game, "Pat", "twist", NotNow, "R3.1")


def test_r4_10_a_soft_21_may_still_draw():
    """R4.10: A-5-5 is a soft 21 (hard 11): it is not stuck and may twist again."""
    game = two_player_game(["AS", "10D", "5S", "7C", "5H", "3H"])
    game.act("Pat", "twist")

    assert game.hand("Pat").status == "open"
    game.act("Pat", "twist")

    assert game.hand("Pat").cards == ["AS", "5S", "5H", "3H"]
    assert game.hand("Pat").status == "open"


def test_r4_10_a_soft_21_may_stick():
    """R4.10: A-5-5 (soft 21) may stick by command."""
    game = two_player_game(["AS", "10D", "5S", "7C", "5H"])
    game.act("Pat", "twist")

    facts = game.act("Pat", "stick")

    assert game.hand("Pat").status == "stuck"
    assert any(isinstance(x, f.HandStuck) and not x.automatic for x in facts)
