"""R7 Settlement: banker bust, banker stays, banker's five card trick, multipliers, postings.

Every player starts with 100 chips; stakes leave a player's account when placed. The deal
order is clockwise from the banker's left, ending with the banker, e.g. with
("Banker", "Pat", "Sam", "Kim", "Lee") it is Pat, Sam, Kim, Lee, Banker.
"""

import re

import pytest

from domain.engine.postings import net_changes, player_account
from tests.ledger_club import make_game

FOUR = ("Banker", "Pat", "Sam", "Kim", "Lee")
RULE_ID = re.compile(r"^R\d+\.\d+$")


def game_with_stakes(players, top, stakes, *, rules=None):
    """Every player after the banker stakes in turn; the second round is then out."""
    game = make_game(players, top=top, rules=rules)
    game.start()
    for name, stake in zip(players[1:], stakes, strict=True):
        game.act(name, "stake", amount=stake)
    return game


def balances(game, names):
    return {name: game.chips(name) for name in names}


def settlement_postings_of(game, name):
    account = player_account(game.ids[name])
    return [p for p in game.deal.settlement.postings
            if account in (p.from_account, p.to_account)]


def banker_bust_deal():
    """Pat 18 (stake 5), Sam pontoon (4), Kim five card trick (3), Lee bust (2); the banker's
    10-6 draws a 9 and busts."""
    top = ["10S", "AS", "2S", "10H", "10D",
           "8S", "KS", "3S", "6H", "6D",
           "4S", "5S", "6S", "KH", "9C"]
    game = game_with_stakes(FOUR, top, (5, 4, 3, 2))
    game.act("Pat", "stick")
    for _ in range(3):
        game.act("Kim", "twist")
    game.act("Lee", "twist")
    game.act("Banker", "draw")
    return game


# --- R7.1 banker bust ---------------------------------------------------------------------

def test_r7_1_a_bust_banker_pays_every_standing_hand_and_pontoons_and_tricks_double():
    """R7.1: 18 is paid its stake, the pontoon and the five card trick double; the hand that
    busted earlier is not paid."""
    game = banker_bust_deal()

    assert game.deal.phase == "settled"
    assert balances(game, FOUR) == {"Banker": 100 + 2 - 5 - 8 - 6, "Pat": 105, "Sam": 108,
                                    "Kim": 106, "Lee": 98}
    assert {p.rule for p in game.deal.settlement.postings} == {"R7.1"}
    assert settlement_postings_of(game, "Lee") == []


def test_r7_1_a_bust_banker_pays_the_whole_stake_including_buys():
    """R7.1: the stake paid is the whole stake: initial 6 plus 8 bought is paid 14."""
    game = game_with_stakes(("Banker", "Pat"), ["10S", "10D", "2S", "6C", "5S", "KH"], (6,))
    game.act("Pat", "buy", amount=8)
    game.act("Pat", "stick")

    game.act("Banker", "draw")

    assert game.chips("Pat") == 100 + 14
    assert game.chips("Banker") == 100 - 14


# --- R7.2 banker stays --------------------------------------------------------------------

def test_r7_2_a_banker_staying_on_18_pays_19_and_collects_18_and_17():
    """R7.2: Pat's 19 (stake 5 + 5 bought) is paid 10; Sam's 18 ties and pays (R2.4); Kim's
    17 pays."""
    top = ["10S", "10H", "10C", "10D",
           "4S", "8H", "7C", "8D",
           "5S"]
    game = game_with_stakes(("Banker", "Pat", "Sam", "Kim"), top, (5, 4, 3))
    game.act("Pat", "buy", amount=5)
    game.act("Pat", "stick")
    game.act("Sam", "stick")
    game.act("Kim", "stick")

    game.act("Banker", "stay")

    assert balances(game, ("Banker", "Pat", "Sam", "Kim")) == {
        "Banker": 100 - 10 + 4 + 3, "Pat": 110, "Sam": 96, "Kim": 97}
    assert {p.rule for p in game.deal.settlement.postings} == {"R7.2"}


def test_r7_2_pontoons_and_five_card_tricks_are_paid_double_when_the_banker_stays():
    """R7.2: against a banker staying on 20, a pontoon (5) and a five card trick (4) are
    paid double; Kim's 20 ties and pays."""
    top = ["AS", "2S", "10C", "10D",
           "KS", "3S", "QC", "KD",
           "4S", "5S", "6S"]
    game = game_with_stakes(("Banker", "Pat", "Sam", "Kim"), top, (5, 4, 3))
    for _ in range(3):
        game.act("Sam", "twist")
    game.act("Kim", "stick")

    game.act("Banker", "stay")

    assert game.hand("Sam").status == "five_card_trick"
    assert balances(game, ("Banker", "Pat", "Sam", "Kim")) == {
        "Banker": 100 - 10 - 8 + 3, "Pat": 110, "Sam": 108, "Kim": 97}


def test_r7_2_a_banker_on_21_pays_only_pontoons_and_five_card_tricks():
    """R7.2: the banker's 10-5-6 (21) pays the pontoon and the five card trick double and
    collects from a three-card 21 and from 20."""
    top = ["10S", "AS", "2S", "10H", "10D",
           "4S", "QS", "3S", "QH", "5D",
           "7S", "4H", "5H", "6H", "6C"]
    game = game_with_stakes(FOUR, top, (5, 4, 3, 2))
    game.act("Pat", "twist")
    for _ in range(3):
        game.act("Kim", "twist")
    game.act("Lee", "stick")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.deal.banker_cards == ["10D", "5D", "6C"]
    assert balances(game, FOUR) == {"Banker": 100 + 5 - 8 - 6 + 2, "Pat": 95, "Sam": 108,
                                    "Kim": 106, "Lee": 98}


# --- R7.3 banker's five card trick --------------------------------------------------------

def test_r7_3_a_bankers_five_card_trick_pays_only_pontoons_and_collects_double():
    """R7.3: the banker's 2-3-4-5-6 pays Pat's pontoon double, collects double from Sam's
    five card trick and Kim's 20, and nothing more from Lee's bust hand."""
    top = ["AS", "2S", "10H", "10C", "2D",
           "KS", "3S", "QH", "6C", "3D",
           "4S", "5S", "6S", "KC", "4C", "5C", "6D"]
    game = game_with_stakes(FOUR, top, (5, 4, 3, 2))
    for _ in range(3):
        game.act("Sam", "twist")
    game.act("Kim", "stick")
    game.act("Lee", "twist")
    for _ in range(2):
        game.act("Banker", "draw")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.hand("Sam").status == "five_card_trick"
    assert balances(game, FOUR) == {"Banker": 100 - 10 + 8 + 6 + 2, "Pat": 110, "Sam": 92,
                                    "Kim": 94, "Lee": 98}
    assert {p.rule for p in game.deal.settlement.postings} == {"R7.3"}
    assert settlement_postings_of(game, "Lee") == []


def test_r7_3_a_bankers_five_card_trick_collects_double_from_a_three_card_21():
    """R7.3: even a hand of 21 in three cards pays the banker's five card trick double."""
    top = ["10S", "2D", "5S", "3D", "6S", "4C", "2C", "3C"]
    game = game_with_stakes(("Banker", "Pat"), top, (6,))
    game.act("Pat", "twist")
    for _ in range(2):
        game.act("Banker", "draw")

    game.act("Banker", "draw")

    assert game.hand("Pat").status == "stuck"
    assert game.chips("Pat") == 100 - 12
    assert game.chips("Banker") == 112


# --- R7.4 multipliers ---------------------------------------------------------------------

@pytest.mark.parametrize(("rules", "multiplier"), [
    (None, 2), ({"pontoon_pays": 1}, 1), ({"pontoon_pays": 3}, 3)])
def test_r7_4_pontoon_pays_double_by_default_and_pontoon_pays_changes_it(rules, multiplier):
    """R7.4: a pontoon is paid double by default; R10.4 pontoon_pays 1 or 3 changes that, while
    a five card trick stays at double."""
    top = ["AS", "2S", "10D",
           "KS", "3S", "7D",
           "4S", "5S", "6S"]
    game = game_with_stakes(("Banker", "Pat", "Sam"), top, (5, 4), rules=rules)
    for _ in range(3):
        game.act("Sam", "twist")

    game.act("Banker", "stay")

    assert game.chips("Pat") == 100 + 5 * multiplier
    assert game.chips("Sam") == 100 + 8
    assert game.chips("Banker") == 100 - 5 * multiplier - 8


def test_r7_4_pontoon_pays_also_applies_when_the_banker_busts():
    """R7.4: with pontoon_pays 3 a bust banker pays a pontoon three times, an 18 once."""
    top = ["AS", "10H", "10D",
           "KS", "8H", "6D",
           "KC"]
    game = game_with_stakes(("Banker", "Pat", "Sam"), top, (5, 4), rules={"pontoon_pays": 3})
    game.act("Sam", "stick")

    game.act("Banker", "draw")

    assert game.chips("Pat") == 115
    assert game.chips("Sam") == 104
    assert game.chips("Banker") == 81


# --- R7.5 every posting names its rule ----------------------------------------------------

def test_r7_5_every_settlement_posting_names_a_rule_and_a_reason():
    """R7.5: each settlement posting carries a rule id and words explaining it."""
    game = banker_bust_deal()

    postings = game.deal.settlement.postings

    assert postings
    for posting in postings:
        assert RULE_ID.match(posting.rule), posting
        assert posting.reason.strip(), posting
        assert posting.amount > 0


def test_r7_5_the_deals_postings_explain_every_chip_that_moved():
    """R7.5: the deal's postings (stakes, the R4.7 bust, settlement) add up exactly to every
    balance change, every one names a rule, and no chip is created or lost."""
    game = banker_bust_deal()

    changes = net_changes(game.deal.postings)

    assert all(RULE_ID.match(p.rule) and p.reason.strip() for p in game.deal.postings)
    for name in FOUR:
        assert changes.get(player_account(game.ids[name]), 0) == game.chips(name) - 100
    assert changes.get(game.deal.escrow, 0) == 0
    assert {p.rule for p in game.deal.postings} == {"R3.5", "R4.7", "R7.1"}
    assert game.club.total() == 0


def test_r7_5_every_hand_has_a_result_naming_its_rule():
    """R7.5: the settlement explains each hand's outcome with a rule id and words."""
    game = banker_bust_deal()

    results = game.deal.settlement.results

    assert len(results) == 4
    for result in results:
        assert RULE_ID.match(result["rule"]), result
        assert result["explanation"].strip(), result
    assert [r["rule"] for r in results] == ["R7.1", "R7.1", "R7.1", "R4.7"]
