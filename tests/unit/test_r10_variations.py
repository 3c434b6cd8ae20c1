"""R10: the table options (split, stick minimum, doubling, pontoon payments, low fours,
royal pontoon, pontoon kinds and burning)."""

import pytest

from domain.engine import facts as f
from domain.engine.postings import kitty_account
from domain.errors import NotAllowed, NotNow
from tests.ledger_club import make_game


def frozen(game):
    """Everything a refused command must leave as it was."""
    deal = game.club.deals.get(game.deal_id) if game.deal_id else None
    return (deal.version if deal else None, game.table.version,
            {name: game.chips(name) for name in game.ids}, len(game.club.postings),
            game.club.head)


def play(game, steps):
    """Start a deal and send each (name, action, amount) step."""
    game.start()
    for name, action, amount in steps:
        game.act(name, action, **({} if amount is None else {"amount": amount}))


def staked(top, rules=None, stake=3):
    """Two players; Pat has staked `stake`; with doubling on the banker has declined."""
    game = make_game(top=top, rules=rules)
    game.start()
    game.act("Pat", "stake", amount=stake)
    if (rules or {}).get("banker_may_double"):
        game.act("Banker", "decline")
    return game


# --- R10.1 split ---------------------------------------------------------------------------

def test_r10_1_split_pairs_lets_any_pair_split():
    """R10.1 `pairs`: 8-8 splits into two hands."""
    game = staked(["8S", "10C", "8H", "7C", "2S", "3S"], {"split": "pairs"})

    game.act("Pat", "split")

    assert [h.cards for h in game.deal.hands[game.ids["Pat"]]] == [["8S", "2S"], ["8H", "3S"]]


def test_r10_1_split_aces_refuses_any_other_pair():
    """R10.1 `aces`: 8-8 may not split."""
    game = staked(["8S", "10C", "8H", "7C"], {"split": "aces"})
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "split")

    assert refused.value.rule == "R10.1"
    assert frozen(game) == before


def test_r10_1_split_aces_lets_aces_split():
    """R10.1 `aces`: A-A splits."""
    game = staked(["AS", "10C", "AH", "7C", "5S", "6S"], {"split": "aces"})

    game.act("Pat", "split")

    assert len(game.deal.hands[game.ids["Pat"]]) == 2
    assert game.chips("Pat") == 94


def test_r10_1_split_none_refuses_even_aces():
    """R10.1 `none`: no pair splits, not even A-A."""
    game = staked(["AS", "10C", "AH", "7C"], {"split": "none"})
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "split")

    assert refused.value.rule == "R10.1"
    assert frozen(game) == before


# --- R10.2 stick minimum -------------------------------------------------------------------

def test_r10_2_with_stick_minimum_16_a_hand_of_15_may_not_stick():
    """R10.2: at a `16` table 10-5 must draw."""
    game = staked(["10S", "10C", "5S", "8C"], {"stick_minimum": 16})
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "stick")

    assert refused.value.rule == "R10.2"
    assert frozen(game) == before


@pytest.mark.parametrize(("minimum", "second"), [(16, "6S"), (15, "5S")])
def test_r10_2_a_hand_at_the_stick_minimum_sticks(minimum, second):
    """R10.2: 10-6 sticks at a `16` table; 10-5 at the default `15`."""
    game = staked(["10S", "10C", second, "8C"], {"stick_minimum": minimum})

    game.act("Pat", "stick")

    assert game.hand("Pat").status == "stuck" and game.deal.phase == "banker"


# --- R10.3 banker doubling -----------------------------------------------------------------

def test_r10_3_without_the_option_the_banker_may_not_double():
    """R10.3: `banker_may_double` off: a double is refused (422)."""
    game = staked(["10S", "10C", "9S", "8C"])
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Banker", "double")

    assert refused.value.rule == "R10.3"
    assert frozen(game) == before


def test_r10_3_the_banker_decides_right_after_the_stakes_on_the_first_card():
    """R10.3: after every stake the banker, holding one card, doubles; then the second cards."""
    game = make_game(("Banker", "Pat", "Sam"), rules={"banker_may_double": True})
    game.start()
    game.act("Pat", "stake", amount=2)
    with pytest.raises(NotNow) as too_early:
        game.act("Banker", "double")
    assert too_early.value.rule == "R10.3"
    game.act("Sam", "stake", amount=2)
    assert game.deal.phase == "doubling" and len(game.deal.banker_cards) == 1
    before = frozen(game)
    with pytest.raises(NotNow) as not_banker:
        game.act("Pat", "double")
    assert not_banker.value.rule == "R10.3" and frozen(game) == before

    game.act("Banker", "double")

    assert game.deal.doubled
    assert len(game.deal.banker_cards) == 2 and len(game.hand("Sam").cards) == 2


DOUBLE = {"banker_may_double": True}


@pytest.mark.parametrize(("top", "steps", "rules", "pat_after"), [
    pytest.param(["10S", "10C", "9S", "8C"], [("Pat", "stick", None), ("Banker", "stay", None)],
                 {}, 106, id="one-stake-win-paid-two"),
    pytest.param(["10S", "10C", "7S", "8C"], [("Pat", "stick", None), ("Banker", "stay", None)],
                 {}, 94, id="one-stake-loss-pays-two"),
    pytest.param(["10S", "10C", "6S", "8C", "KS"], [("Pat", "twist", None)],
                 {}, 94, id="bust-pays-a-second-stake"),
    pytest.param(["AS", "10C", "KS", "8C"], [("Banker", "stay", None)],
                 {}, 106, id="pontoon-stays-double"),
    pytest.param(["2S", "10C", "3S", "8C", "2H", "3H", "4H"],
                 [("Pat", "twist", None)] * 3 + [("Banker", "stay", None)],
                 {}, 106, id="five-card-trick-stays-double"),
    pytest.param(["10S", "AC", "9S", "KC"], [], {}, 94, id="bankers-pontoon-stays-double"),
    pytest.param(["10S", "2C", "9S", "3C", "2D", "3D", "4D"],
                 [("Pat", "stick", None)] + [("Banker", "draw", None)] * 3,
                 {}, 94, id="bankers-five-card-trick-stays-double"),
    pytest.param(["AS", "10C", "KS", "8C"], [("Banker", "stay", None)],
                 {"pontoon_pays": 1}, 103, id="pontoon-pays-1-stays-1"),
    pytest.param(["10S", "AC", "9S", "KC"], [], {"banker_pontoon_collects": 1}, 97,
                 id="banker-pontoon-collects-1-stays-1"),
])
def test_r10_3_a_doubled_banker_doubles_only_payments_of_one_stake(top, steps, rules,
                                                                   pat_after):
    """R10.3: doubling pays or collects two stakes where R7 moves one (a bust pays a second
    stake); pontoons, five card tricks and the banker's own stay as R7/R10.4 say."""
    game = make_game(top=top, rules={**DOUBLE, **rules})

    play(game, [("Pat", "stake", 3), ("Banker", "double", None), *steps])

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == pat_after
    assert game.chips("Banker") == 200 - pat_after


def test_r10_3_a_bust_hand_pays_its_second_stake_when_the_deal_is_settled():
    """R10.3: the bust takes the stake at once (R4.7); the second stake comes at settlement."""
    game = make_game(("Banker", "Pat", "Sam"), top=["10S", "10H", "10C", "6S", "9H", "8C", "KS"],
                     rules=DOUBLE)
    play(game, [("Pat", "stake", 3), ("Sam", "stake", 2), ("Banker", "double", None)])

    game.act("Pat", "twist")

    assert game.chips("Pat") == 97
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    second = [p for p in game.deal.settlement.postings if p.rule == "R10.3" and p.amount == 3
              and p.from_account.endswith(game.ids["Pat"])]
    assert len(second) == 1
    assert game.chips("Pat") == 94 and game.chips("Sam") == 104


def test_r10_3_a_banker_who_declines_pays_single_stakes():
    """R10.3: declining leaves R7 as it is: 19 beats 18 and is paid one stake."""
    game = make_game(top=["10S", "10C", "9S", "8C"], rules=DOUBLE)

    play(game, [("Pat", "stake", 3), ("Banker", "decline", None), ("Pat", "stick", None),
                ("Banker", "stay", None)])

    assert not game.deal.doubled and game.chips("Pat") == 103


# --- R10.4 pontoon payments ----------------------------------------------------------------

@pytest.mark.parametrize(("pays", "pat_after"), [(1, 104), (2, 108), (3, 112)])
def test_r10_4_pontoon_pays_sets_what_a_players_pontoon_is_paid(pays, pat_after):
    """R10.4 `pontoon_pays`: A-K against the banker's 18 is paid 1, 2 or 3 times the stake 4."""
    game = staked(["AS", "10C", "KS", "8C"], {"pontoon_pays": pays}, stake=4)

    game.act("Banker", "stay")

    assert game.chips("Pat") == pat_after


@pytest.mark.parametrize(("collects", "pat_after"), [(1, 96), (2, 92)])
def test_r10_4_banker_pontoon_collects_sets_what_each_player_pays_a_bankers_pontoon(
        collects, pat_after):
    """R10.4 `banker_pontoon_collects`: the banker's A-K collects 1 or 2 times the stake 4."""
    game = make_game(top=["10S", "AC", "9S", "KC"], rules={"banker_pontoon_collects": collects})
    game.start()

    game.act("Pat", "stake", amount=4)

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == pat_after


# --- R10.5 no fifth card buy on a low four -------------------------------------------------

LOW_FOUR = ["2S", "10C", "3S", "8C", "2H", "2D", "4D"]  # Pat 2-3-2-2 (hard 9), then 4D


def low_four_game(option, top=LOW_FOUR):
    game = staked(top, {"no_fifth_card_buy_on_low_four": option}, stake=2)
    game.act("Pat", "buy", amount=2)
    game.act("Pat", "buy", amount=2)
    return game


def test_r10_5_a_low_four_may_not_buy_its_fifth_card():
    """R10.5: 2-3-2-2 (hard 9) cannot fail to make a trick; the fifth card is not bought."""
    game = low_four_game(True)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "buy", amount=2)

    assert refused.value.rule == "R10.5"
    assert frozen(game) == before
    game.act("Pat", "twist")
    assert game.hand("Pat").status == "five_card_trick" and game.hand("Pat").stake == 6


def test_r10_5_without_the_option_a_low_four_buys_its_fifth_card():
    """R10.5 off: the same 2-3-2-2 buys its fifth card."""
    game = low_four_game(False)

    game.act("Pat", "buy", amount=2)

    assert game.hand("Pat").status == "five_card_trick" and game.hand("Pat").stake == 8


def test_r10_5_a_four_card_hand_with_a_hard_total_over_11_still_buys():
    """R10.5: 2-3-2-5 (hard 12) could bust, so its fifth card may be bought."""
    game = low_four_game(True, top=["2S", "10C", "3S", "8C", "2H", "5D", "2D"])

    game.act("Pat", "buy", amount=2)

    assert game.hand("Pat").cards == ["2S", "3S", "2H", "5D", "2D"]


# --- R10.6 royal pontoon -------------------------------------------------------------------

# Pat 7-7, twists 7D; banker 2-3 draws 4-2-3: a five card trick.
ROYAL_TOP = ["7S", "2C", "7H", "3C", "7D", "4C", "2H", "3H"]


def test_r10_6_three_sevens_are_a_royal_pontoon_finished_at_once():
    """R10.6: Pat's 7-7-7 is finished the moment the third seven comes."""
    game = staked(ROYAL_TOP, {"royal_pontoon": True})

    game.act("Pat", "twist")

    assert game.hand("Pat").status == "royal_pontoon"
    assert game.deal.phase == "banker"


def test_r10_6_a_royal_pontoon_is_paid_three_times_even_against_a_five_card_trick():
    """R10.6: stake 3 paid 9 although the banker makes a five card trick."""
    game = staked(ROYAL_TOP, {"royal_pontoon": True})
    game.act("Pat", "twist")

    for _ in range(3):
        game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 109


def test_r10_6_without_the_option_three_sevens_are_an_ordinary_21():
    """R10.6 off: 7-7-7 is a hard 21, stuck at once, and pays the banker's trick double."""
    game = staked(ROYAL_TOP)
    game.act("Pat", "twist")
    assert game.hand("Pat").status == "stuck"

    for _ in range(3):
        game.act("Banker", "draw")

    assert game.chips("Pat") == 94


def test_r10_6_a_royal_pontoon_is_not_changed_by_doubling():
    """R10.6 with R10.3: the banker doubled; the royal pontoon is still paid three stakes."""
    game = make_game(top=["7S", "10C", "7H", "8C", "7D"],
                     rules={"royal_pontoon": True, "banker_may_double": True})

    play(game, [("Pat", "stake", 3), ("Banker", "double", None), ("Pat", "twist", None),
                ("Banker", "stay", None)])

    assert game.chips("Pat") == 109


def test_r10_6_a_royal_pontoon_does_not_take_the_bank_but_the_pack_is_shuffled():
    """R10.6: the bank stays; as a pontoon for R1.4 it has the pack shuffled before the next
    deal."""
    game = staked(ROYAL_TOP, {"royal_pontoon": True})
    game.act("Pat", "twist")
    for _ in range(3):
        game.act("Banker", "draw")

    game.start()

    assert game.table.banker == game.ids["Banker"] and game.deal.banker == game.ids["Banker"]
    shuffles = [fact for _, fact in game.club.log if isinstance(fact, f.PackShuffled)]
    assert len(shuffles) == 1 and shuffles[0].rule == "R1.4"


def test_r10_6_the_bankers_three_sevens_are_no_royal_pontoon():
    """R10.6: only a player holds a royal pontoon; the banker's 7-7-7 is a 21 beating 19."""
    game = staked(["10S", "7C", "9S", "7H", "7D"], {"royal_pontoon": True})
    game.act("Pat", "stick")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 97


# --- R10.7 pontoon kinds -------------------------------------------------------------------

# Pat A-K, banker 10-A (a pontoon shown at once unless the kind says otherwise).
AK_VS_TEN_ACE = ["AS", "10C", "KS", "AC"]


@pytest.mark.parametrize(("kinds", "pat_after"), [
    ("plain", 94), ("picture_beats_ten", 106)])
def test_r10_7_picture_beats_ten_pays_a_picture_pontoon_against_a_bankers_ace_ten(
        kinds, pat_after):
    """R10.7: plain: the banker's A-10 collects from A-K (R2.4); picture_beats_ten: A-K is not
    collected from and is paid as a pontoon, and the bank does not pass."""
    game = make_game(top=AK_VS_TEN_ACE, rules={"pontoon_kinds": kinds})
    game.start()

    game.act("Pat", "stake", amount=3)

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == pat_after
    assert game.table.banker == game.ids["Banker"]


def test_r10_7_picture_beats_ten_a_bankers_picture_pontoon_collects_from_ace_ten():
    """R10.7 picture_beats_ten: the banker's A-K collects double from Pat's A-10."""
    game = make_game(top=["AS", "KC", "10S", "AC"], rules={"pontoon_kinds": "picture_beats_ten"})
    game.start()

    game.act("Pat", "stake", amount=3)

    assert game.chips("Pat") == 94


def test_r10_7_picture_beats_ten_ace_ten_is_still_a_pontoon_against_an_ordinary_hand():
    """R10.7 picture_beats_ten: A-10 against the banker's 18 is paid double and takes the bank."""
    game = staked(["AS", "10C", "10S", "8C"], {"pontoon_kinds": "picture_beats_ten"})

    game.act("Banker", "stay")

    assert game.hand("Pat").status == "pontoon"
    assert game.chips("Pat") == 106 and game.table.banker == game.ids["Pat"]


def test_r10_7_ace_ten_not_pontoon_makes_ace_ten_an_ordinary_21():
    """R10.7 ace_ten_not_pontoon: Pat's A-10 is not finished, is paid one stake against 19,
    does not take the bank and has the pack kept in order."""
    game = staked(["AS", "10C", "10S", "9C"], {"pontoon_kinds": "ace_ten_not_pontoon"})
    assert game.hand("Pat").status == "open"

    game.act("Pat", "stick")
    game.act("Banker", "stay")

    assert game.chips("Pat") == 103
    assert game.table.banker == game.ids["Banker"] and not game.table.needs_shuffle


def test_r10_7_ace_ten_not_pontoon_ace_ten_ties_a_bankers_three_card_21():
    """R10.7 ace_ten_not_pontoon: A-10 ranks with three-card 21s; the banker's 9-8-4 wins."""
    game = staked(["AS", "9C", "10S", "8C", "4C"], {"pontoon_kinds": "ace_ten_not_pontoon"})
    game.act("Pat", "stick")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 97


def test_r10_7_ace_ten_not_pontoon_a_bankers_ace_ten_is_no_pontoon():
    """R10.7 ace_ten_not_pontoon: the banker's A-10 is not shown as a pontoon; Pat's A-K is one,
    beats it, is paid double and takes the bank."""
    game = staked(AK_VS_TEN_ACE, {"pontoon_kinds": "ace_ten_not_pontoon"})
    assert game.deal.phase == "banker"

    game.act("Banker", "stay")

    assert game.chips("Pat") == 106 and game.table.banker == game.ids["Pat"]


@pytest.mark.parametrize(("top", "pat_after"), [
    (["AS", "JC", "QS", "AC"], 106),  # Pat's natural A-Q beats the banker's ordinary A-J
    (["AS", "KC", "QS", "AC"], 94),   # two naturals: the banker's wins (R2.4)
])
def test_r10_7_royal_naturals_an_ace_with_k_or_q_beats_an_ace_with_j_or_10(top, pat_after):
    """R10.7 royal_naturals: A-Q against the banker's A-J is paid; against A-K it is collected."""
    game = make_game(top=top, rules={"pontoon_kinds": "royal_naturals"})
    game.start()

    game.act("Pat", "stake", amount=3)

    assert game.chips("Pat") == pat_after


def test_r10_7_in_shoot_pontoon_the_better_pontoons_shoot_bet_is_paid_from_the_kitty():
    """R10.7: against the banker's A-10, Pat's A-K shoot bet of 5 is paid from the kitty, not
    added to the stake (R9.4)."""
    game = make_game(top=AK_VS_TEN_ACE, rules={"pontoon_kinds": "picture_beats_ten",
                                                "shoot": True, "kitty_min": 10})
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)
    game.start()
    game.act("Pat", "stake", amount=3)

    game.act("Pat", "shoot", amount=5)

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 100 + 6 + 5
    assert game.club.balances[kitty_account(game.table_id)] == 15


# --- R10.8 burning -------------------------------------------------------------------------

def test_r10_8_a_hard_13_burns_for_two_new_cards_and_keeps_its_stake():
    """R10.8 `13`: 6-7 is shown and put under the pack; 9-8 is dealt; the stake stays 3."""
    game = staked(["6S", "10C", "7S", "8C", "9S", "8S"], {"burn": "13"})

    game.act("Pat", "burn")

    assert game.hand("Pat").cards == ["9S", "8S"] and game.hand("Pat").stake == 3
    assert game.chips("Pat") == 97
    assert list(game.deal.pack)[-2:] == ["6S", "7S"]


def test_r10_8_with_14_a_hard_14_burns():
    """R10.8 `14`: 6-8 burns."""
    game = staked(["6S", "10C", "8S", "8C", "9S", "8H"], {"burn": "14"})

    game.act("Pat", "burn")

    assert game.hand("Pat").cards == ["9S", "8H"]


@pytest.mark.parametrize(("burn", "first", "second"), [
    ("13", "6S", "8S"),   # 14 at a `13` table
    ("13", "AS", "2S"),   # A-2 may count 13 but its hard total is 3
    ("14", "6S", "7S"),   # 13 at a `14` table
    ("14", "AS", "3S"),   # A-3 may count 14 but its hard total is 4
])
def test_r10_8_only_the_tables_hard_total_burns(burn, first, second):
    """R10.8: only a hard 13 (or hard 14 with `14`) burns; A-2 and A-3 do not."""
    game = staked([first, "10C", second, "8C"], {"burn": burn})
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "burn")

    assert refused.value.rule == "R10.8"
    assert frozen(game) == before


def test_r10_8_burning_off_refuses_a_burn():
    """R10.8 `off` (the default): 6-7 may not burn."""
    game = staked(["6S", "10C", "7S", "8C"])
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "burn")

    assert refused.value.rule == "R10.8"
    assert frozen(game) == before


def test_r10_8_a_hand_may_burn_again_after_burning():
    """R10.8: 6-7 burns for 5-8, another hard 13, which burns for 10-9."""
    game = staked(["6S", "10C", "7S", "8C", "5S", "8S", "10S", "9S"], {"burn": "13"})
    game.act("Pat", "burn")

    game.act("Pat", "burn")

    assert game.hand("Pat").cards == ["10S", "9S"] and game.hand("Pat").stake == 3


def test_r10_8_either_hand_may_burn_after_a_split():
    """R10.8: 6-6 splits into 6-7 and 6-7; each burns in turn."""
    game = staked(["6S", "10C", "6H", "8C", "7S", "7H", "10S", "9S", "10H", "8H"],
                  {"burn": "13"})
    game.act("Pat", "split")

    game.act("Pat", "burn")
    game.act("Pat", "stick")
    game.act("Pat", "burn")

    hands = game.deal.hands[game.ids["Pat"]]
    assert [h.cards for h in hands] == [["10S", "9S"], ["10H", "8H"]]


def test_r10_8_no_burn_after_another_action():
    """R10.8: after a twist the hand burns no more, whatever its total."""
    game = staked(["6S", "10C", "7S", "8C", "AS"], {"burn": "14"})
    game.act("Pat", "twist")
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "burn")

    assert refused.value.rule == "R10.8"
    assert frozen(game) == before


def test_r10_8_the_new_cards_are_a_fresh_start_and_may_split():
    """R10.8: 6-7 burns for 8-8, which may then split like any pair."""
    game = staked(["6S", "10C", "7S", "7C", "8S", "8H", "10S", "9S"], {"burn": "13"})
    game.act("Pat", "burn")

    game.act("Pat", "split")

    assert [h.cards for h in game.deal.hands[game.ids["Pat"]]] == [["8S", "10S"], ["8H", "9S"]]
