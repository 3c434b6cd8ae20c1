"""R9: Shoot Pontoon, the kitty and shoot bets, top-ups, auctions of the bank."""

import pytest

from domain.engine import facts as f
from domain.engine.postings import kitty_account
from domain.errors import InsufficientChips, NotAllowed, NotNow, PontoonError
from tests.ledger_club import make_game

THREE = ("Banker", "Pat", "Sam")
SHOOT = {"shoot": True, "kitty_min": 10, "kitty_max": 50}


def shoot_game(players=("Banker", "Pat"), *, top=(), kitty=20, rules=None, chips=100):
    game = make_game(players, top=top, rules={**SHOOT, **(rules or {})}, chips=chips)
    if kitty:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], kitty)
    return game


def kitty_chips(game):
    """The kitty's own account in the club's ledger."""
    return game.club.balances.get(kitty_account(game.table_id), 0)


def frozen(game):
    """Everything a refused command must leave as it was."""
    deal = game.club.deals.get(game.deal_id) if game.deal_id else None
    return (deal.version if deal else None, game.table.version,
            {name: game.chips(name) for name in game.ids}, len(game.club.postings),
            game.club.head, kitty_chips(game))


# Pat 10-9 = 19, Sam 10-7 = 17, banker 10-8 = 18; Pat shoots the whole kitty of 10 and wins.
EMPTYING_TOP = ["10S", "10H", "10C", "9S", "7H", "8C"]


def empty_kitty_game(chips=100):
    """A deal at which Pat wins the whole kitty of 10: it ends with the kitty empty (R9.10)."""
    game = shoot_game(THREE, top=EMPTYING_TOP, kitty=10, chips=chips)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Pat", "shoot", amount=10)
    game.act("Pat", "stick")
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    assert game.deal.phase == "settled" and game.table.kitty == 0
    return game


# --- R9.1 the kitty ----------------------------------------------------------------------

def test_r9_1_the_banker_puts_up_a_kitty_between_the_minimum_and_the_maximum():
    """R9.1: a kitty of 10 (the minimum) moves from the banker's account to the kitty's."""
    game = shoot_game(kitty=0)

    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 10)

    assert game.table.kitty == 10 and kitty_chips(game) == 10
    assert game.chips("Banker") == 90
    assert game.club.postings[-1].rule == "R9.1"


@pytest.mark.parametrize("amount", [9, 51])
def test_r9_1_a_kitty_outside_the_agreed_range_is_refused(amount):
    """R9.1: kitty_min 10 and kitty_max 50 bound a new kitty."""
    game = shoot_game(kitty=0)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], amount)

    assert refused.value.rule == "R9.1"
    assert frozen(game) == before and game.table.kitty == 0


def test_r9_1_only_the_banker_puts_up_the_kitty():
    """R9.1: the kitty is the banker's money; Pat cannot put it up."""
    game = shoot_game(kitty=0)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.put_up_kitty(game.table_id, game.ids["Pat"], 20)

    assert refused.value.rule == "R9.1"
    assert frozen(game) == before


def test_r9_1_no_first_deal_without_a_kitty():
    """R9.1: the banker who takes the bank puts up a kitty before dealing."""
    game = shoot_game(kitty=0)
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.start()

    assert refused.value.rule == "R9.1"
    assert frozen(game) == before and game.table.deal_id is None


# --- R9.2 shoot bets within the kitty -------------------------------------------------------

def test_r9_2_shoot_bets_outstanding_may_not_exceed_the_kitty():
    """R9.2: kitty 10, Pat shot 6, so Sam may shoot 4 but not 5."""
    game = shoot_game(THREE, kitty=10)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Pat", "shoot", amount=6)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Sam", "shoot", amount=5)

    assert refused.value.rule == "R9.2"
    assert frozen(game) == before
    game.act("Sam", "shoot", amount=4)
    assert game.hand("Sam").shoot_bet == 4 and game.deal.shoot_room() == 0


def test_r9_2_a_shoot_bet_is_a_positive_whole_amount():
    """R9.2: a shoot bet of 0 chips is refused."""
    game = shoot_game()
    game.start()
    game.act("Pat", "stake", amount=2)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "shoot", amount=0)

    assert refused.value.rule == "R9.2"
    assert frozen(game) == before


def test_r9_2_the_kitty_limit_holds_at_every_moment_including_a_fourth_card_shoot():
    """R9.2: kitty 10 with 7 shot in the first round leaves 3 for Pat's fourth-card shoot."""
    game = shoot_game(kitty=10, top=["2S", "10C", "3S", "7C", "4S", "5S"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=7)
    game.act("Pat", "twist")
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "shoot", amount=4)

    assert refused.value.rule == "R9.2"
    assert frozen(game) == before
    game.act("Pat", "shoot", amount=3)
    assert game.hand("Pat").shoot_bet == 10


def test_r9_2_a_player_is_never_forced_to_shoot():
    """R9.2: Pat passes in the first shoot round and plays on with no shoot bet."""
    game = shoot_game(top=["10S", "10C", "9S", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)

    game.act("Pat", "pass")
    game.act("Pat", "stick")
    game.act("Banker", "stay")

    assert game.hand("Pat").shoot_bet == 0
    assert game.chips("Pat") == 102 and game.table.kitty == 20


# --- R9.3 the first shoot round -------------------------------------------------------------

def test_r9_3_the_first_shoot_round_follows_the_stakes_in_turn_before_the_second_card():
    """R9.3: after both stakes, Pat then Sam may shoot; second cards come after the round."""
    game = shoot_game(THREE)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    assert game.deal.phase == "shooting" and game.deal.turn == (game.ids["Pat"], 0)
    before = frozen(game)

    with pytest.raises(NotNow):
        game.act("Sam", "shoot", amount=3)

    assert frozen(game) == before
    game.act("Pat", "shoot", amount=3)
    assert len(game.hand("Pat").cards) == 1
    game.act("Sam", "pass")
    assert len(game.hand("Pat").cards) == 2 and len(game.hand("Sam").cards) == 2
    assert game.deal.phase == "playing"
    assert game.chips("Pat") == 95 and game.hand("Pat").shoot_bet == 3


def test_r9_3_no_shoot_before_every_player_has_staked():
    """R9.3: the shoot round starts after every initial stake; Pat may not shoot before Sam
    stakes."""
    game = shoot_game(THREE)
    game.start()
    game.act("Pat", "stake", amount=2)
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.act("Pat", "shoot", amount=3)

    assert refused.value.rule in ("R9.3", "R9.5")
    assert frozen(game) == before


def test_r9_3_shooting_the_whole_kitty_ends_the_round_and_passes_the_others_over():
    """R9.3: Pat shoots all 20; Sam is passed over without a command and the second cards come."""
    game = shoot_game(THREE)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)

    facts = game.act("Pat", "shoot", amount=20)

    passed = [fact for fact in facts if isinstance(fact, f.ShootPassed)]
    assert passed == [f.ShootPassed(game.ids["Sam"], True)]
    assert game.deal.phase == "playing"
    assert len(game.hand("Sam").cards) == 2 and game.hand("Sam").shoot_bet == 0
    with pytest.raises(PontoonError):
        game.act("Sam", "shoot", amount=1)


# --- R9.4 the banker's pontoon --------------------------------------------------------------

def test_r9_4_a_bankers_pontoon_collects_double_the_stake_plus_shoot_bet_for_the_banker():
    """R9.4: Pat staked 2 and shot 5, so pays 14; Sam staked 3, pays 6; the kitty is untouched."""
    game = shoot_game(THREE, top=["2S", "3S", "AC", "4S", "5S", "KC"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=3)
    game.act("Pat", "shoot", amount=5)

    game.act("Sam", "pass")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 100 - 14 and game.chips("Sam") == 100 - 6
    assert game.chips("Banker") == 100 - 20 + 14 + 6
    assert game.table.kitty == 20 and kitty_chips(game) == 20
    assert any(p.rule == "R9.4" and p.amount == 5 for p in game.deal.settlement.postings)


def test_r9_4_with_single_collection_the_combined_stake_is_paid_once():
    """R9.4 with R10.4 banker_pontoon_collects 1: Pat loses stake 2 and shoot 5, nothing more."""
    game = shoot_game(top=["2S", "AC", "4S", "KC"], rules={"banker_pontoon_collects": 1})
    game.start()
    game.act("Pat", "stake", amount=2)

    game.act("Pat", "shoot", amount=5)

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 93 and game.chips("Banker") == 100 - 20 + 7
    assert game.table.kitty == 20


def test_r9_4_a_doubled_bankers_pontoon_still_collects_double_the_combined_stake():
    """R9.4 with R10.3: the banker doubled and shows A-K; Pat's stake 2 and shoot 5 are
    collected double (14), not four times."""
    game = shoot_game(top=["2S", "AC", "4S", "KC"], rules={"banker_may_double": True})
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Banker", "double")

    game.act("Pat", "shoot", amount=5)

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 86 and game.table.kitty == 20


# --- R9.5 the fourth-card shoot -------------------------------------------------------------

# Pat 2-3, third card 4 (9), fourth 5 (14), fifth 6; banker 10-7 = 17.
FOURTH_TOP = ["2S", "10C", "3S", "7C", "4S", "5S", "6S"]


def fourth_card_game(*, first_round=0, kitty=20):
    game = shoot_game(top=FOURTH_TOP, kitty=kitty)
    game.start()
    game.act("Pat", "stake", amount=2)
    if first_round:
        game.act("Pat", "shoot", amount=first_round)
    else:
        game.act("Pat", "pass")
    return game


def test_r9_5_a_three_card_hand_may_shoot_before_its_fourth_card():
    """R9.5: Pat, who passed in the first round, shoots 6 holding 2-3-4 and then twists."""
    game = fourth_card_game()
    game.act("Pat", "twist")

    game.act("Pat", "shoot", amount=6)

    assert game.hand("Pat").shoot_bet == 6 and game.chips("Pat") == 92
    assert len(game.hand("Pat").cards) == 3
    game.act("Pat", "twist")
    assert game.hand("Pat").cards == ["2S", "3S", "4S", "5S"]


def test_r9_5_the_third_card_allows_no_shoot():
    """R9.5: a two-card hand in play has no shoot window (409)."""
    game = fourth_card_game()
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.act("Pat", "shoot", amount=3)

    assert refused.value.rule == "R9.5"
    assert frozen(game) == before


def test_r9_5_a_hand_shoots_once_in_the_window():
    """R9.5: a second shoot on the same three-card hand is refused (409)."""
    game = fourth_card_game()
    game.act("Pat", "buy", amount=2)
    game.act("Pat", "shoot", amount=3)
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.act("Pat", "shoot", amount=3)

    assert refused.value.rule == "R9.5"
    assert frozen(game) == before


def test_r9_5_after_shooting_the_hand_must_buy_or_twist_not_stick():
    """R9.5: 10-2-5 = 17 could stick, but having shot before the fourth card it may not."""
    game = shoot_game(top=["10S", "10C", "2S", "7C", "5S", "3S"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "pass")
    game.act("Pat", "twist")
    game.act("Pat", "shoot", amount=3)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "stick")

    assert refused.value.rule == "R9.5"
    assert frozen(game) == before
    game.act("Pat", "twist")
    assert game.hand("Pat").cards == ["10S", "2S", "5S", "3S"]


def test_r9_5_no_shoot_after_the_fourth_card_even_before_a_fifth():
    """R9.5: Pat holds four cards (14) and may take a fifth, but may not shoot any more."""
    game = fourth_card_game()
    game.act("Pat", "twist")
    game.act("Pat", "twist")
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.act("Pat", "shoot", amount=3)

    assert refused.value.rule == "R9.5"
    assert frozen(game) == before


def test_r9_5_pass_belongs_to_the_first_shoot_round_only():
    """R9.5: in the players' turns `pass` is refused (409); the player simply buys or twists."""
    game = fourth_card_game()
    game.act("Pat", "twist")
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.act("Pat", "pass")

    assert refused.value.rule == "R9.5"
    assert frozen(game) == before


def test_r9_5_first_round_and_fourth_card_shoot_bets_add_up_into_one_bet():
    """R9.5 with R9.8: 4 shot in the first round plus 3 before the fourth card make one bet
    of 7; the five card trick 2-3-4-5-6 is paid double its stake of 8, the shoot bet once."""
    game = fourth_card_game(first_round=4)
    game.act("Pat", "buy", amount=2)
    game.act("Pat", "shoot", amount=3)
    game.act("Pat", "buy", amount=2)
    game.act("Pat", "buy", amount=2)

    game.act("Banker", "stay")

    assert game.hand("Pat").status == "five_card_trick"
    assert game.hand("Pat").shoot_bet == 7 and game.hand("Pat").stake == 8
    assert game.chips("Pat") == 100 + 2 * 8 + 7
    assert game.table.kitty == 13


# --- R9.6 splitting -------------------------------------------------------------------------

# Pat 8-8 split: hand 0 8-10 = 18, hand 1 8-9 = 17; banker 10-7 = 17.
SPLIT_TOP = ["8S", "10C", "8H", "7C", "10D", "9D"]


def test_r9_6_a_split_keeps_the_first_shoot_bet_and_places_a_new_one_on_the_new_hand():
    """R9.6: shot 3 in the first round, Pat splits shooting 4 on the new hand; both settle."""
    game = shoot_game(top=SPLIT_TOP)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=3)

    game.act("Pat", "split", amount=4)

    assert [h.shoot_bet for h in game.deal.hands[game.ids["Pat"]]] == [3, 4]
    assert game.chips("Pat") == 100 - 2 - 3 - 2 - 4
    game.act("Pat", "stick")
    game.act("Pat", "stick")
    game.act("Banker", "stay")
    assert game.chips("Pat") == 99  # hand 0 wins 2 and 3; hand 1 ties 17 and loses 2 and 4
    assert game.table.kitty == 20 - 3 + 4
    assert game.chips("Banker") == 80


def test_r9_6_the_new_hands_shoot_bet_stays_within_the_kitty():
    """R9.6 within R9.2: kitty 20 with 3 shot leaves 17; a split shooting 18 is refused."""
    game = shoot_game(top=SPLIT_TOP)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=3)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "split", amount=18)

    assert refused.value.rule == "R9.2"
    assert frozen(game) == before and len(game.deal.hands[game.ids["Pat"]]) == 1


# --- R9.7 bust ------------------------------------------------------------------------------

def test_r9_7_a_bust_hands_shoot_bet_goes_into_the_kitty_at_once():
    """R9.7: Pat shot the whole kitty of 10 and busts: the kitty is 20 at once and Sam may
    then shoot 15 before a fourth card, more than the kitty held before."""
    game = shoot_game(THREE, kitty=10,
                      top=["10S", "2S", "10C", "6S", "3S", "7C", "KS", "4S", "9S"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Pat", "shoot", amount=10)

    game.act("Pat", "twist")

    assert game.hand("Pat").status == "bust"
    assert game.deal.kitty == 20 and kitty_chips(game) == 20
    assert game.deal.shoot_room() == 20
    game.act("Sam", "twist")
    game.act("Sam", "shoot", amount=15)
    game.act("Sam", "twist")
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    assert game.chips("Sam") == 100 + 2 + 15
    assert game.chips("Pat") == 88 and game.chips("Banker") == 90
    assert game.table.kitty == 5


# --- R9.8 settlement of shoot bets ----------------------------------------------------------

def test_r9_8_a_hand_beating_the_banker_is_paid_its_shoot_bet_once_from_the_kitty():
    """R9.8: Pat's pontoon is paid double its stake, but its shoot bet of 5 only once."""
    game = shoot_game(top=["AS", "9C", "KS", "8C"], kitty=30)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=5)

    game.act("Banker", "stay")

    assert game.chips("Pat") == 100 + 4 + 5
    paid = [p for p in game.deal.settlement.postings
            if p.rule == "R9.8" and p.from_account == kitty_account(game.table_id)]
    assert [p.amount for p in paid] == [5]


def test_r9_8_a_hand_equal_to_the_bankers_adds_its_shoot_bet_to_the_kitty():
    """R9.8: Pat's 17 ties the banker's 17 (R2.4): the shoot bet of 5 joins the kitty."""
    game = shoot_game(top=["10S", "10C", "7S", "7C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=5)
    game.act("Pat", "stick")

    game.act("Banker", "stay")

    assert game.chips("Pat") == 93
    assert game.table.kitty == 25 and kitty_chips(game) == 25
    assert game.chips("Banker") == 100 - 20 + 2


def test_r9_8_a_bust_banker_pays_shoot_bets_from_the_kitty():
    """R9.8: the banker busts on 10-6-K; Pat's standing 17 is paid stake 2 and shoot 5."""
    game = shoot_game(top=["10S", "10C", "7S", "6C", "KC"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=5)
    game.act("Pat", "stick")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == 107 and game.table.kitty == 15


@pytest.mark.parametrize(("pat_second", "pat_after", "kitty_after"), [
    ("9S", 100 + 2 * 2 + 5, 15),   # 19 beats 18: stake paid double, shoot bet once
    ("7S", 100 - 2 * 2 - 5, 25),   # 17 loses to 18: stake lost double, shoot bet once
])
def test_r9_8_shoot_bets_are_not_changed_by_banker_doubling(pat_second, pat_after,
                                                             kitty_after):
    """R9.8 with R10.3: the banker doubled; stakes move twice, the shoot bet of 5 once."""
    game = shoot_game(top=["10S", "10C", pat_second, "8C"], rules={"banker_may_double": True})
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Banker", "double")
    game.act("Pat", "shoot", amount=5)
    game.act("Pat", "stick")

    game.act("Banker", "stay")

    assert game.chips("Pat") == pat_after
    assert game.table.kitty == kitty_after


# --- R9.9 top-ups ---------------------------------------------------------------------------

def test_r9_9_the_banker_tops_up_the_kitty_between_deals():
    """R9.9: after a deal the banker adds 30 to a kitty of 20, reaching the maximum of 50."""
    game = shoot_game(top=["10S", "10C", "9S", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "pass")
    game.act("Pat", "stick")
    game.act("Banker", "stay")
    banker = game.chips("Banker")

    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 30)

    assert game.table.kitty == 50 and kitty_chips(game) == 50
    assert game.chips("Banker") == banker - 30
    assert game.club.postings[-1].rule == "R9.9"


def test_r9_9_a_top_up_may_not_take_the_kitty_above_the_maximum():
    """R9.9: kitty 20 with kitty_max 50: a top-up of 31 is refused."""
    game = shoot_game()
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], 31)

    assert refused.value.rule == "R9.9"
    assert frozen(game) == before and game.table.kitty == 20


def test_r9_9_no_top_up_during_a_deal():
    """R9.9: the kitty is topped up before a new deal, never while one is open (409)."""
    game = shoot_game()
    game.start()
    game.act("Pat", "stake", amount=2)
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], 5)

    assert refused.value.rule == "R9.9"
    assert frozen(game) == before


def test_r9_9_the_banker_may_not_take_chips_out_of_the_kitty():
    """R9.9: a negative top-up (taking chips out) is refused."""
    game = shoot_game()
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], -5)

    assert refused.value.rule in ("R9.9", "R9.1")
    assert frozen(game) == before and game.table.kitty == 20


# --- R9.10 an empty kitty -------------------------------------------------------------------

def test_r9_10_no_deal_starts_while_the_kitty_is_empty():
    """R9.10: the kitty ended empty; a new deal is refused until a kitty or a sale."""
    game = empty_kitty_game()
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.start()

    assert refused.value.rule == "R9.10"
    assert frozen(game) == before
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 10)
    game.start()
    assert game.deal.kitty == 10


def test_r9_10_a_refused_deal_names_r9_10_when_a_player_is_also_short():
    """R9.10: kitty needed and Sam short of the minimum stake: the refusal names R9.10."""
    game = empty_kitty_game()
    game.club.cash_out(game.ids["Sam"], game.chips("Sam"))
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.start()

    assert refused.value.rule == "R9.10"
    assert frozen(game) == before


def test_r9_10_the_highest_bid_buys_the_bank_and_the_price_moves_to_the_banker():
    """R9.10: bids Pat 5, Sam 8: Sam buys for 8, paid to the old banker; Sam then needs a kitty."""
    game = empty_kitty_game()
    table, banker = game.table_id, game.ids["Banker"]
    game.club.open_auction(table, banker)
    game.club.bid(table, game.ids["Pat"], 5)
    game.club.bid(table, game.ids["Sam"], 8)
    old, sam = game.chips("Banker"), game.chips("Sam")

    sold = game.club.close_auction(table, banker)

    assert sold == (game.ids["Sam"], 8)
    assert game.table.banker == game.ids["Sam"]
    assert game.chips("Banker") == old + 8 and game.chips("Sam") == sam - 8
    with pytest.raises(NotNow):
        game.start()
    game.club.put_up_kitty(table, game.ids["Sam"], 10)
    game.start()
    assert game.deal.banker == game.ids["Sam"]


def test_r9_10_the_earliest_of_equal_highest_bids_wins():
    """R9.10: Pat bids 15, Sam 20, Pat 20: Sam bid 20 first and buys."""
    game = empty_kitty_game()
    table, banker = game.table_id, game.ids["Banker"]
    game.club.open_auction(table, banker)
    game.club.bid(table, game.ids["Pat"], 15)
    game.club.bid(table, game.ids["Sam"], 20)
    game.club.bid(table, game.ids["Pat"], 20)

    sold = game.club.close_auction(table, banker)

    assert sold == (game.ids["Sam"], 20)


def test_r9_10_a_highest_bid_no_longer_held_at_the_close_is_passed_over():
    """R9.10: Pat bids 30 then cashes out most chips; Sam's 25 buys the bank."""
    game = empty_kitty_game()
    table, banker = game.table_id, game.ids["Banker"]
    game.club.open_auction(table, banker)
    game.club.bid(table, game.ids["Pat"], 30)
    game.club.bid(table, game.ids["Sam"], 25)
    game.club.cash_out(game.ids["Pat"], game.chips("Pat") - 10)
    sam = game.chips("Sam")

    facts_before = len(game.club.log)
    sold = game.club.close_auction(table, banker)

    assert sold == (game.ids["Sam"], 25)
    closed = game.club.log[facts_before][1]
    assert isinstance(closed, f.AuctionClosed) and closed.passed_over == [game.ids["Pat"]]
    assert game.chips("Pat") == 10 and game.chips("Sam") == sam - 25


def test_r9_10_with_no_bid_the_banker_must_put_up_a_kitty_before_another_auction():
    """R9.10: a close without bids keeps the bank; a second auction is refused until a kitty."""
    game = empty_kitty_game()
    table, banker = game.table_id, game.ids["Banker"]
    game.club.open_auction(table, banker)

    sold = game.club.close_auction(table, banker)

    assert sold == (None, None) and game.table.banker == banker
    before = frozen(game)
    with pytest.raises(NotNow) as refused:
        game.club.open_auction(table, banker)
    assert refused.value.rule == "R9.10"
    with pytest.raises(NotNow) as no_deal:
        game.start()
    assert no_deal.value.rule == "R9.10"
    assert frozen(game) == before
    game.club.put_up_kitty(table, banker, 10)
    game.start()
    assert game.deal.banker == banker


def test_r9_10_an_auction_opens_only_when_the_kitty_is_empty_after_a_deal():
    """R9.10: with a kitty of 20 (and before any deal) no auction can open (409)."""
    game = shoot_game(THREE)
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.club.open_auction(game.table_id, game.ids["Banker"])

    assert refused.value.rule == "R9.10"
    assert frozen(game) == before
    fresh = shoot_game(THREE, kitty=0)
    with pytest.raises(NotNow) as before_any_deal:
        fresh.club.open_auction(fresh.table_id, fresh.ids["Banker"])
    assert before_any_deal.value.rule == "R9.10"


def test_r9_10_only_the_banker_opens_and_closes_the_auction():
    """R9.10: Pat may neither open nor close the auction of the bank."""
    game = empty_kitty_game()
    table = game.table_id
    with pytest.raises(NotAllowed) as not_opened:
        game.club.open_auction(table, game.ids["Pat"])
    assert not_opened.value.rule == "R9.10"
    game.club.open_auction(table, game.ids["Banker"])
    game.club.bid(table, game.ids["Sam"], 5)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.close_auction(table, game.ids["Pat"])

    assert refused.value.rule == "R9.10"
    assert frozen(game) == before and game.table.auction == [(game.ids["Sam"], 5)]


def test_r9_10_bids_need_an_open_auction():
    """R9.10: with no auction open a bid and a close are refused (409)."""
    game = empty_kitty_game()
    before = frozen(game)

    with pytest.raises(NotNow) as bid:
        game.club.bid(game.table_id, game.ids["Pat"], 5)
    with pytest.raises(NotNow) as close:
        game.club.close_auction(game.table_id, game.ids["Banker"])

    assert bid.value.rule == "R9.10" and close.value.rule == "R9.10"
    assert frozen(game) == before


def test_r9_10_only_seated_players_other_than_the_banker_bid():
    """R9.10: the banker and an unseated player with chips may not bid."""
    game = empty_kitty_game()
    lee = game.club.register_player("Lee")
    game.club.buy_in(lee, 50)
    game.club.open_auction(game.table_id, game.ids["Banker"])
    before = frozen(game)

    with pytest.raises(NotAllowed) as banker_bid:
        game.club.bid(game.table_id, game.ids["Banker"], 5)
    with pytest.raises(NotAllowed) as lee_bid:
        game.club.bid(game.table_id, lee, 5)

    assert banker_bid.value.rule == "R9.10" and lee_bid.value.rule == "R9.10"
    assert frozen(game) == before and game.table.auction == []


@pytest.mark.parametrize("price", [0, -3])
def test_r9_10_a_bid_is_a_positive_amount(price):
    """R9.10: each bid is a positive amount."""
    game = empty_kitty_game()
    game.club.open_auction(game.table_id, game.ids["Banker"])
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.bid(game.table_id, game.ids["Pat"], price)

    assert refused.value.rule == "R9.10"
    assert frozen(game) == before


def test_r9_10_a_bid_must_be_held_by_the_bidder():
    """R9.10 with R11.2: Sam holds 98 and cannot bid 99."""
    game = empty_kitty_game()
    game.club.open_auction(game.table_id, game.ids["Banker"])
    assert game.chips("Sam") == 98
    before = frozen(game)

    with pytest.raises(InsufficientChips) as refused:
        game.club.bid(game.table_id, game.ids["Sam"], 99)

    assert refused.value.rule == "R11.2"
    assert frozen(game) == before and game.table.auction == []


def test_r9_10_while_an_auction_is_open_nothing_else_happens_at_the_table():
    """R9.10: deal, kitty, sale, join, leave and a second auction are refused (409)."""
    game = empty_kitty_game()
    lee = game.club.register_player("Lee")
    game.club.buy_in(lee, 50)
    table, banker = game.table_id, game.ids["Banker"]
    game.club.open_auction(table, banker)
    before = frozen(game)
    attempts = [
        lambda: game.start(),
        lambda: game.club.put_up_kitty(table, banker, 10),
        lambda: game.club.sell_bank(table, game.ids["Pat"], 5),
        lambda: game.club.seat(table, lee),
        lambda: game.club.leave(table, game.ids["Sam"]),
        lambda: game.club.open_auction(table, banker),
    ]

    rules = []
    for attempt in attempts:
        with pytest.raises(NotNow) as refused:
            attempt()
        rules.append(refused.value.rule)

    assert rules == ["R9.10"] * len(attempts)
    assert frozen(game) == before and game.table.auction == []


def test_r9_10_a_private_sale_is_also_a_way_out_of_an_empty_kitty():
    """R9.10 with R8.2: the banker sells the bank to Pat for 5; Pat puts up a kitty and deals."""
    game = empty_kitty_game()

    game.club.sell_bank(game.table_id, game.ids["Pat"], 5)
    game.club.put_up_kitty(game.table_id, game.ids["Pat"], 10)
    game.start()

    assert game.deal.banker == game.ids["Pat"] and game.deal.kitty == 10


# --- R9.11 the kitty when the bank changes hands --------------------------------------------

def test_r9_11_under_r8_1_the_old_banker_takes_the_kitty_as_the_deal_is_settled():
    """R9.11: Pat's pontoon takes the bank; the 15 left in the kitty goes to the old banker."""
    game = shoot_game(top=["AS", "9C", "KS", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=5)

    game.act("Banker", "stay")

    assert game.table.banker == game.ids["Pat"]
    assert game.table.kitty == 0 and kitty_chips(game) == 0
    assert game.chips("Banker") == 100 - 20 - 4 + 15 and game.chips("Pat") == 109
    assert any(p.rule == "R9.11" and p.amount == 15 for p in game.deal.settlement.postings)


def test_r9_11_the_new_banker_puts_up_a_new_kitty_before_dealing():
    """R9.11: after taking the bank by a pontoon, Pat must put up a kitty before the deal."""
    game = shoot_game(top=["AS", "9C", "KS", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "pass")
    game.act("Banker", "stay")
    before = frozen(game)

    with pytest.raises(NotNow):
        game.start()

    assert frozen(game) == before
    game.club.put_up_kitty(game.table_id, game.ids["Pat"], 25)
    game.start()
    assert game.deal.banker == game.ids["Pat"] and game.deal.kitty == 25


def test_r9_11_after_a_sale_the_old_banker_takes_what_is_left_in_the_kitty():
    """R9.11 with R8.2: the bank is sold for 6 with 20 in the kitty; the seller gets 26."""
    game = shoot_game(top=["10S", "10C", "8S", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "pass")
    game.act("Pat", "stick")
    game.act("Banker", "stay")
    banker, pat = game.chips("Banker"), game.chips("Pat")

    game.club.sell_bank(game.table_id, game.ids["Pat"], 6)

    assert game.chips("Banker") == banker + 6 + 20 and game.chips("Pat") == pat - 6
    assert game.table.kitty == 0 and kitty_chips(game) == 0
    with pytest.raises(NotNow):
        game.start()


def test_r9_11_after_a_sale_the_new_banker_puts_up_a_kitty_and_may_not_auction_the_bank():
    """R9.11 with R9.10: the deal ended with 20 in the kitty, so R9.10 does not apply; after a
    sale the kitty is 0 but the new banker must put up a new kitty, not open an auction."""
    game = shoot_game(THREE, top=["10S", "10H", "10C", "8S", "8H", "9C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Pat", "pass")
    game.act("Sam", "pass")
    game.act("Pat", "stick")
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    assert game.table.kitty == 20
    game.club.sell_bank(game.table_id, game.ids["Pat"], 5)
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.club.open_auction(game.table_id, game.ids["Pat"])

    assert refused.value.rule == "R9.10"
    assert frozen(game) == before and game.table.auction is None


# --- R9.12 tables without Shoot Pontoon -----------------------------------------------------

def test_r9_12_no_kitty_or_auction_at_a_table_without_shoot():
    """R9.12: putting up a kitty and opening an auction are refused at a plain table."""
    game = make_game(top=["10S", "10C", "9S", "8C"])
    before = frozen(game)

    with pytest.raises(NotAllowed) as kitty:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)
    with pytest.raises(NotAllowed) as auction:
        game.club.open_auction(game.table_id, game.ids["Banker"])

    assert kitty.value.rule == "R9.12" and auction.value.rule == "R9.12"
    assert frozen(game) == before


def test_r9_12_no_bid_at_a_table_without_shoot():
    """R9.12: a bid for the bank is refused at a plain table, after a deal as well."""
    game = make_game(top=["10S", "10C", "9S", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "stick")
    game.act("Banker", "stay")
    before = frozen(game)

    with pytest.raises(PontoonError) as refused:
        game.club.bid(game.table_id, game.ids["Pat"], 5)

    assert refused.value.rule in ("R9.12", "R9.10")
    assert frozen(game) == before


@pytest.mark.parametrize("action", ["shoot", "pass"])
def test_r9_12_no_shoot_bet_or_shoot_pass_at_a_table_without_shoot(action):
    """R9.12: after the stake a plain table plays on; shoot and pass are refused."""
    game = make_game(top=["2S", "10C", "3S", "7C", "4S"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "twist")
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", action, **({"amount": 2} if action == "shoot" else {}))

    assert refused.value.rule == "R9.12"
    assert frozen(game) == before


def test_r9_12_a_split_carries_no_shoot_bet_at_a_table_without_shoot():
    """R9.12: a split with an amount (a shoot bet on the new hand) is refused at a plain table."""
    game = make_game(top=SPLIT_TOP)
    game.start()
    game.act("Pat", "stake", amount=2)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.act("Pat", "split", amount=3)

    assert refused.value.rule == "R9.12"
    assert frozen(game) == before
