"""R5 Splitting: equal ranks, a second stake, one card to each hand, re-splits, split hands.

Deal order with ("Banker", "Pat") is Pat, Banker, then (after the stake) Pat, Banker; a split
deals one card to the hand keeping the first card, then one to the new hand.
"""

import copy

import pytest

from domain.engine import facts as f
from domain.errors import InsufficientChips, NotAllowed, NotNow
from tests.ledger_club import make_game


def two_player_game(top, *, stake=6, rules=None, chips=100):
    """Banker and Pat, Pat's stake placed: the second round is out and Pat is in turn."""
    game = make_game(("Banker", "Pat"), top=top, rules=rules, chips=chips)
    game.start()
    game.act("Pat", "stake", amount=stake)
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


def cards_of(game, name="Pat"):
    return [hand.cards for hand in game.deal.hands[game.ids[name]]]


def turn_of(game):
    player, hand = game.deal.turn
    return game.names[player], hand


# --- R5.1 what splits ---------------------------------------------------------------------

def test_r5_1_a_pair_of_queens_splits_with_a_second_stake_equal_to_the_first():
    """R5.1: Q-Q splits; a second stake of the initial 6 leaves Pat's account (R5.1 posting)."""
    game = two_player_game(["QS", "10D", "QH", "7C", "5S", "6S"], stake=6)

    facts = game.act("Pat", "split")

    hands = game.deal.hands[game.ids["Pat"]]
    assert len(hands) == 2
    assert [h.stake for h in hands] == [6, 6]
    assert [h.initial for h in hands] == [6, 6]
    assert game.chips("Pat") == 100 - 6 - 6
    split = [x for x in facts if isinstance(x, f.HandSplit)]
    assert len(split) == 1
    assert (split[0].posting.amount, split[0].posting.rule) == (6, "R5.1")


def test_r5_1_a_queen_and_a_jack_do_not_split():
    """R5.1: ten-cards split only if they are the same rank: Q-J is refused (422)."""
    game = two_player_game(["QS", "10D", "JH", "7C"])

    assert_refused(game, "Pat", "split", NotAllowed, "R5.1")


def test_r5_1_a_ten_and_a_king_do_not_split():
    """R5.1: 10-K are both worth ten but are not of equal rank: refused (422)."""
    game = two_player_game(["10S", "10D", "KH", "7C"])

    assert_refused(game, "Pat", "split", NotAllowed, "R5.1")


def test_r5_1_unequal_ranks_do_not_split():
    """R5.1: 8-9 is not a pair: refused (422)."""
    game = two_player_game(["8S", "10D", "9H", "7C"])

    assert_refused(game, "Pat", "split", NotAllowed, "R5.1")


def test_r5_1_no_split_after_another_action_on_the_hand():
    """R5.1: a pair splits only before any other action: 8-8 after a twist is refused."""
    game = two_player_game(["8S", "10D", "8H", "7C", "2S"])
    game.act("Pat", "twist")

    assert_refused(game, "Pat", "split", NotAllowed, "R5.1")


def test_r5_1_the_second_stake_must_be_held():
    """R5.1 with R11.2: Pat holds 4 after staking 6, so the second stake of 6 is refused."""
    game = two_player_game(["8S", "10D", "8H", "7C"], stake=6, chips={"Banker": 100, "Pat": 10})

    assert_refused(game, "Pat", "split", InsufficientChips, "R11.2")


def test_r5_1_a_split_is_only_in_the_players_turn():
    """R5.1: before the second card there is no pair to split (409)."""
    game = make_game(("Banker", "Pat"), top=["8S", "10D", "8H", "7C"])
    game.start()

    assert_refused(game, "Pat", "split", NotNow, "R4.2")


# --- R5.2 the cards after a split ---------------------------------------------------------

def test_r5_2_the_hand_keeping_the_first_card_is_dealt_to_first():
    """R5.2: 8S-8H split: 8S keeps hand 0 and gets the next card, then the new hand 1."""
    game = two_player_game(["8S", "10D", "8H", "7C", "3S", "4S"])

    facts = game.act("Pat", "split")

    assert cards_of(game) == [["8S", "3S"], ["8H", "4S"]]
    dealt = [(x.hand, x.card, x.rule) for x in facts if isinstance(x, f.CardDealt)]
    assert dealt == [(0, "3S", "R5.2"), (1, "4S", "R5.2")]
    assert turn_of(game) == ("Pat", 0)


def test_r5_2_split_hands_have_separate_stakes_and_are_settled_separately():
    """R5.2: each hand is settled on its own stake: 17 wins, 15 loses against a banker's 16."""
    game = two_player_game(["8S", "10D", "8H", "6C", "9S", "7S"], stake=5)
    game.act("Pat", "split")
    game.act("Pat", "stick")
    game.act("Pat", "stick")

    game.act("Banker", "stay")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 100 - 5 - 5 + 10
    assert game.chips("Banker") == 100 - 5 + 5


def test_r5_2_a_split_renumbers_the_hands_after_it():
    """R5.2: re-splitting hand 0 puts the new hand at 1; the old hand 1 becomes hand 2."""
    game = two_player_game(["8S", "10D", "8H", "7C", "8D", "2S", "3S", "4S"])
    game.act("Pat", "split")
    assert cards_of(game) == [["8S", "8D"], ["8H", "2S"]]

    game.act("Pat", "split", hand=0)

    assert cards_of(game) == [["8S", "3S"], ["8D", "4S"], ["8H", "2S"]]
    assert [h.stake for h in game.deal.hands[game.ids["Pat"]]] == [6, 6, 6]
    assert turn_of(game) == ("Pat", 0)


def test_r5_2_the_new_hand_is_played_right_after_the_hand_it_came_from():
    """R5.2: after a re-split of hand 0 the turn goes 0, then the new 1, then the old one (2)."""
    game = two_player_game(["8S", "10D", "8H", "7C", "8D", "2S", "9S", "9H"])
    game.act("Pat", "split")
    game.act("Pat", "split", hand=0)
    game.act("Pat", "stick", hand=0)

    assert turn_of(game) == ("Pat", 1)
    game.act("Pat", "stick", hand=1)

    assert turn_of(game) == ("Pat", 2)
    assert game.deal.hands[game.ids["Pat"]][2].cards == ["8H", "2S"]


# --- R5.3 re-splitting --------------------------------------------------------------------

def test_r5_3_a_player_may_split_again_up_to_four_hands_but_no_more():
    """R5.3: 8-8 re-split three times makes four hands; a fifth hand is refused (422 R5.3)."""
    game = two_player_game(["8S", "10D", "8H", "7C", "8D", "2S", "8C", "3S", "8S", "4S"],
                           rules={"packs": 2})
    game.act("Pat", "split")
    game.act("Pat", "split")
    game.act("Pat", "split")

    assert cards_of(game) == [["8S", "8S"], ["8C", "4S"], ["8D", "3S"], ["8H", "2S"]]
    assert game.chips("Pat") == 100 - 4 * 6
    assert_refused(game, "Pat", "split", NotAllowed, "R5.3")


def test_r5_3_a_later_hand_that_pairs_again_splits_in_its_turn():
    """R5.3: hand 1 (8H dealt an 8D) is split when it is played, making a third hand."""
    game = two_player_game(["8S", "10D", "8H", "7C", "9S", "8D", "2S", "3S"])
    game.act("Pat", "split")
    game.act("Pat", "stick")

    game.act("Pat", "split", hand=1)

    assert cards_of(game) == [["8S", "9S"], ["8H", "2S"], ["8D", "3S"]]
    assert turn_of(game) == ("Pat", 1)


# --- R5.4 face up -------------------------------------------------------------------------

def test_r5_4_split_cards_lie_face_up_and_the_new_cards_face_down():
    """R5.4: the two cards of the pair are face up; each card dealt after the split is down."""
    game = two_player_game(["8S", "10D", "8H", "7C", "3S", "4S"])
    assert game.hand("Pat").face_up == [False, False]

    game.act("Pat", "split")

    assert game.hand("Pat", 0).face_up == [True, False]
    assert game.hand("Pat", 1).face_up == [True, False]


# --- R5.5 own stake, buy history, twist state ---------------------------------------------

def test_r5_5_a_twist_on_one_split_hand_does_not_stop_the_other_buying():
    """R5.5: hand 0 twists and so cannot buy; hand 1 has its own twist state and buys."""
    game = two_player_game(["5S", "10D", "5H", "7C", "2S", "3S", "4S", "10S", "6S"])
    game.act("Pat", "split")
    game.act("Pat", "twist")
    assert_refused(game, "Pat", "buy", NotAllowed, "R4.5", amount=6)
    game.act("Pat", "twist")

    game.act("Pat", "buy", amount=12)

    assert cards_of(game) == [["5S", "2S", "4S", "10S"], ["5H", "3S", "6S"]]
    assert game.hand("Pat", 1).stake == 18
    assert game.hand("Pat", 0).stake == 6


def test_r5_5_each_split_hand_has_its_own_buy_history():
    """R5.5: hand 0 buys its third card for 6 (so its fourth costs at most 6); hand 1 may
    still buy its third for up to 12 and its fourth for up to that 12."""
    game = two_player_game(["5S", "10D", "5H", "7C", "2S", "3S", "4S", "6H", "2H", "3H"])
    game.act("Pat", "split")
    game.act("Pat", "buy", amount=6)
    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3", amount=7)
    game.act("Pat", "twist")
    game.act("Pat", "stick")
    assert_refused(game, "Pat", "buy", NotAllowed, "R4.3", amount=13)

    game.act("Pat", "buy", amount=12)
    game.act("Pat", "buy", amount=12)

    assert [h.stake for h in game.deal.hands[game.ids["Pat"]]] == [12, 30]
    assert game.chips("Pat") == 100 - 6 - 6 - 6 - 12 - 12


def test_r5_5_each_split_hand_must_reach_the_stick_minimum_on_its_own():
    """R5.5: split hand 0 of 8-6 (14) may not stick (R4.6) though hand 1 holds 18."""
    game = two_player_game(["8S", "10D", "8H", "7C", "6S", "10S"])
    game.act("Pat", "split")

    assert_refused(game, "Pat", "stick", NotAllowed, "R4.6")


# --- R5.6 (R10.1) aces only ---------------------------------------------------------------

def test_r5_6_an_aces_only_table_refuses_to_split_other_pairs():
    """R5.6 (R10.1): with split `aces`, 8-8 is refused (422) naming R10.1."""
    game = two_player_game(["8S", "10D", "8H", "7C"], rules={"split": "aces"})

    assert_refused(game, "Pat", "split", NotAllowed, "R10.1")


def test_r5_6_an_aces_only_table_splits_aces():
    """R5.6: with split `aces`, A-A splits; a split ace dealt a K is a (split) pontoon."""
    game = two_player_game(["AS", "10D", "AH", "7C", "KD", "5S"], rules={"split": "aces"})

    game.act("Pat", "split")

    assert cards_of(game) == [["AS", "KD"], ["AH", "5S"]]
    assert game.hand("Pat", 0).status == "pontoon"
    assert turn_of(game) == ("Pat", 1)
    assert game.chips("Pat") == 88


def test_r5_6_a_table_without_splitting_refuses_every_pair():
    """R5.6 (R10.1): with split `none` even A-A is refused (422)."""
    game = two_player_game(["AS", "10D", "AH", "7C"], rules={"split": "none"})

    assert_refused(game, "Pat", "split", NotAllowed, "R10.1")


# --- R5.7 split hand bust -----------------------------------------------------------------

def test_r5_7_a_split_hand_that_busts_loses_its_own_stake_at_once():
    """R5.7 (R4.7): split hand 0 busts: the banker takes its 6 at once, its cards go to the
    bottom of the pack, and hand 1 plays on with its own stake."""
    game = two_player_game(["10S", "9D", "10H", "7C", "6S", "7S", "KS"])
    game.act("Pat", "split")
    left = list(game.deal.pack)[1:]

    facts = game.act("Pat", "twist")

    assert game.hand("Pat", 0).status == "bust"
    assert game.hand("Pat", 0).face_up == [True, True, True]
    busted = [x for x in facts if isinstance(x, f.HandBusted)]
    assert [(p.amount, p.rule, p.hand) for p in busted[0].postings] == [(6, "R4.7", 0)]
    assert game.chips("Banker") == 106
    assert list(game.deal.pack) == left + ["10S", "6S", "KS"]
    assert turn_of(game) == ("Pat", 1)
    assert game.hand("Pat", 1).stake == 6


def test_r5_7_a_split_bust_is_not_paid_again_when_the_other_hand_wins():
    """R5.7: hand 0 bust (lost 6), hand 1 on 17 beats the banker's 16: net 0 for Pat."""
    game = two_player_game(["10S", "9D", "10H", "7C", "6S", "7S", "KS"])
    game.act("Pat", "split")
    game.act("Pat", "twist")
    game.act("Pat", "stick")

    game.act("Banker", "stay")

    assert game.chips("Pat") == 100
    assert game.chips("Banker") == 100
    assert game.club.total() == 0
