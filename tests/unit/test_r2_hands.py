"""R2 Hands and their ranking: hard total and value, the ranking of R2.2 and its example chain
(R2.3), ties to the banker (R2.4) and pontoons on split hands (R2.5).

Deal order with ("Banker", "Pat") is Pat, Banker, then (after the stake) Pat, Banker; with
("Banker", "Pat", "Sam") it is Pat, Sam, Banker. Then one card per buy, twist or draw.
"""

import pytest

from domain.engine import facts as f
from domain.engine.hands import finished_status, hard_total, rank, value
from domain.engine.rules import TableRules
from domain.engine.shuffle import shuffle_pack
from tests.ledger_club import make_game

PLAIN = TableRules()


def cards(text):
    """"A-J" style hands written in ranks; suits are spread so no card repeats."""
    suits = iter("SHDCSHDCSH")
    return [rank_ + next(suits) for rank_ in text.split("-")]


def play_out(game, steps):
    facts = []
    for name, action, *amount in steps:
        facts = game.act(name, action, amount=amount[0] if amount else None)
    return facts


def result_of(game, name, hand=0):
    results = game.deal.settlement.results
    return next(r for r in results if r["player"] == game.ids[name] and r["hand"] == hand)


# --- R2.1 hard total, value, bust ----------------------------------------------------------

@pytest.mark.parametrize(("hand", "hard", "best"), [
    ("A-9", 10, 20),
    ("A-A", 2, 12),
    ("A-A-9", 11, 21),
    ("A-5-K", 16, 16),
    ("A-A-A-A-7", 11, 21),
    ("K-Q", 20, 20),
    ("K-Q-A", 21, 21),
    ("K-Q-2", 22, 22),
    ("9-8-4", 21, 21),
])
def test_r2_1_hard_total_counts_aces_as_one_and_value_is_the_best_total_not_over_21(
        hand, hard, best):
    """R2.1: hard total counts every ace as 1; value is the highest total not over 21 the aces
    allow (the hard total itself when even that is over 21)."""
    held = cards(hand)

    assert hard_total(held) == hard
    assert value(held) == best


@pytest.mark.parametrize(("hand", "bust"), [
    ("K-Q-2", True), ("K-Q-A", False), ("A-A-K-Q", True), ("A-K-Q", False), ("9-8-5", True),
    ("A-5-5-K", False),
])
def test_r2_1_a_hand_is_bust_only_when_its_hard_total_is_over_21(hand, bust):
    """R2.1: bust means the hard total is over 21; aces counting 1 can save a hand."""
    status = finished_status(cards(hand), PLAIN)

    assert (status == "bust") is bust


def test_r2_1_a_twist_over_21_with_a_soft_ace_does_not_bust_until_the_hard_total_does():
    """R2.1: Pat's A-5 twists a K (hard 16, still open), then a 6 (hard 22): bust, and the
    banker takes the stake at once (R4.7)."""
    game = make_game(("Banker", "Pat", "Sam"),
                     top=["AS", "10S", "10D", "5D", "9S", "8D", "KC", "6C"])
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Sam", "stake", 5)])
    game.act("Pat", "twist")
    assert game.hand("Pat").status == "open"

    game.act("Pat", "twist")

    assert game.hand("Pat").cards == ["AS", "5D", "KC", "6C"]
    assert game.hand("Pat").status == "bust"
    assert game.chips("Pat") == 95 and game.chips("Banker") == 105


# --- R2.2 ranking ------------------------------------------------------------------------------

@pytest.mark.parametrize(("better", "worse"), [
    ("A-K", "7-7-7"),             # pontoon beats a three-card 21
    ("A-10", "5-5-5-6"),          # and a four-card 21
    ("A-Q", "2-2-2-2-3"),         # and a five card trick
    ("2-2-2-2-3", "9-8-4"),       # a five card trick (11) beats a three-card 21
    ("3-4-5-6-3", "K-Q-A"),       # a five card trick (21) beats three cards of 21
    ("9-8-4", "K-Q"),             # 21 beats 20
    ("K-Q", "K-9"),               # 20 beats 19
    ("5-5", "K-Q-5"),             # any standing hand beats a bust
    ("2-3", "K-Q-5"),
])
def test_r2_2_hands_rank_pontoon_then_trick_then_21_then_value_then_bust(better, worse):
    """R2.2: pontoon > five card trick > three or four cards of 21 > other hands by value >
    bust."""
    assert rank(cards(better), PLAIN) > rank(cards(worse), PLAIN)


@pytest.mark.parametrize(("one", "other"), [
    ("K-9", "5-4-6-4"),           # 19 in two cards equals 19 in four
    ("K-9", "A-8"),               # soft 19 equals hard 19
    ("9-8-4", "5-5-5-6"),         # three- and four-card 21s are equal
    ("2-2-2-2-3", "3-4-5-6-3"),   # five card tricks do not rank by value
    ("K-Q-5", "9-9-9"),           # busts are all worthless
    ("A-K", "10-A"),              # every pontoon is equal (plain)
])
def test_r2_2_two_three_or_four_cards_make_no_difference(one, other):
    """R2.2: hands of the same category and value rank equal, whatever their number of
    cards (up to four)."""
    assert rank(cards(one), PLAIN) == rank(cards(other), PLAIN)


def test_r2_2_a_five_card_trick_beats_the_bankers_three_card_21():
    """R2.2: Pat's five card trick of 14 outranks the banker's 6-5-K (21) and is paid (R7.2:
    double)."""
    game = make_game(("Banker", "Pat"), top=["2S", "6S", "3S", "5S", "2H", "3H", "4H", "KS"])
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Pat", "twist"), ("Pat", "twist"), ("Pat", "twist")])
    assert game.hand("Pat").status == "five_card_trick"

    game.act("Banker", "draw")

    assert game.deal.banker_cards == ["6S", "5S", "KS"]
    assert result_of(game, "Pat")["outcome"] == "win"
    assert game.chips("Pat") == 110 and game.chips("Banker") == 90


# --- R2.3 the example chain ------------------------------------------------------------------

def test_r2_3_the_example_chain_each_beating_the_next():
    """R2.3: A-J > 7-3-4-2-2 > 9-8-4 > 9-A > 9-6-A, each beating the next."""
    chain = [cards(hand) for hand in ("A-J", "7-3-4-2-2", "9-8-4", "9-A", "9-6-A")]

    keys = [rank(hand, PLAIN) for hand in chain]

    assert all(keys[i] > keys[i + 1] for i in range(len(keys) - 1))
    assert [value(hand) for hand in chain] == [21, 18, 21, 20, 16]
    assert sorted(keys, reverse=True) == keys


# --- R2.4 ties go to the banker ----------------------------------------------------------------

def test_r2_4_equal_value_goes_to_the_banker_whatever_the_number_of_cards():
    """R2.4: the banker stays on 19; Pat's two-card 19 and Sam's three-card 19 both lose their
    stakes to the banker."""
    game = make_game(("Banker", "Pat", "Sam"),
                     top=["10S", "10H", "10D", "9S", "6H", "9D", "3H"])
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Sam", "stake", 4), ("Pat", "stick"),
                    ("Sam", "twist"), ("Sam", "stick")])

    game.act("Banker", "stay")

    assert value(game.hand("Sam").cards) == value(game.deal.banker_cards) == 19
    assert result_of(game, "Pat")["outcome"] == "lose"
    assert result_of(game, "Sam")["outcome"] == "lose"
    assert "R2.4" in result_of(game, "Pat")["explanation"]
    assert (game.chips("Pat"), game.chips("Sam"), game.chips("Banker")) == (95, 96, 109)


def test_r2_4_one_point_more_than_the_banker_wins():
    """R2.4 (the other side of the tie): 20 against the banker's 19 is paid the stake."""
    game = make_game(("Banker", "Pat"), top=["10S", "10D", "QS", "9D"])
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Pat", "stick")])

    game.act("Banker", "stay")

    assert result_of(game, "Pat")["outcome"] == "win"
    assert (game.chips("Pat"), game.chips("Banker")) == (105, 95)


def test_r2_4_a_five_card_trick_ties_with_the_bankers_and_the_banker_wins():
    """R2.4: Pat's five card trick against the banker's five card trick: equal rank, the
    banker wins (and collects double, R7.3)."""
    game = make_game(("Banker", "Pat"),
                     top=["2S", "2D", "3S", "3D", "2H", "3H", "4H", "4D", "5D", "6D"])
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Pat", "twist"), ("Pat", "twist"), ("Pat", "twist")])
    assert game.hand("Pat").status == "five_card_trick"

    play_out(game, [("Banker", "draw"), ("Banker", "draw"), ("Banker", "draw")])

    assert len(game.deal.banker_cards) == 5 and game.deal.phase == "settled"
    assert result_of(game, "Pat")["outcome"] == "lose"
    assert (game.chips("Pat"), game.chips("Banker")) == (90, 110)


# --- R2.5 a pontoon on a split hand --------------------------------------------------------------

def split_aces_game(rules=None):
    """Pat splits A-A: hand 0 gets a K (a pontoon on a split hand), hand 1 gets a 9 and sticks;
    the banker's 9-7 draws a 5 and stays on 21 at once."""
    game = make_game(("Banker", "Pat"), top=["AS", "9S", "AH", "7S", "KD", "9D", "5C"],
                     rules=rules)
    game.start()
    game.act("Pat", "stake", amount=5)
    facts = game.act("Pat", "split")
    game.act("Pat", "stick")
    game.act("Banker", "draw")
    assert game.deal.phase == "settled"
    return game, facts


def test_r2_5_a_split_hands_two_card_21_is_a_pontoon_for_ranking_and_payment():
    """R2.5: Pat's split hand A-K is a pontoon: it beats the banker's three-card 21 and is paid
    as a pontoon (double); the other split hand, 20, loses to 21."""
    game, facts = split_aces_game()

    assert game.hand("Pat", 0).cards == ["AS", "KD"]
    assert any(isinstance(x, f.HandFinished) and x.status == "pontoon" and x.rule == "R2.5"
               for x in facts)
    assert result_of(game, "Pat", 0)["outcome"] == "win"
    assert result_of(game, "Pat", 0)["multiplier"] == 2
    assert result_of(game, "Pat", 1)["outcome"] == "lose"
    assert (game.chips("Pat"), game.chips("Banker")) == (100 - 10 + 5 + 10, 100 + 5 - 10)


def test_r2_5_a_split_pontoon_is_paid_what_the_table_pays_a_pontoon():
    """R2.5 with R10.4: at a table paying pontoons three times, the split pontoon gets three
    times its stake."""
    game, _ = split_aces_game(rules={"pontoon_pays": 3})

    assert result_of(game, "Pat", 0)["multiplier"] == 3
    assert game.chips("Pat") == 100 - 10 + 5 + 15


def test_r2_5_a_split_pontoon_does_not_take_the_bank():
    """R2.5: unlike a first-two-card pontoon (R8.1), a split hand's pontoon leaves the bank
    where it is."""
    game, _ = split_aces_game()

    assert game.deal.settlement.bank_passed_by is None
    assert game.deal.settlement.next_banker == game.ids["Banker"]
    assert game.table.banker == game.ids["Banker"]


def test_r2_5_a_split_pontoon_counts_as_a_pontoon_for_the_reshuffle():
    """R2.5 with R1.4: a deal in which only a split hand made a pontoon still has the pack
    shuffled before the next deal."""
    game, _ = split_aces_game()
    assert game.deal.settlement.pontoon_held

    game.start()

    shuffled = [x for _, x in game.club.log if isinstance(x, f.PackShuffled)]
    assert [x.rule for x in shuffled] == ["R1.4"]
    first_round = [x.card for s, x in game.club.log
                   if s == game.deal_id and isinstance(x, f.CardDealt)]
    assert first_round == shuffle_pack(shuffled[0].seed, 1)[:2]
