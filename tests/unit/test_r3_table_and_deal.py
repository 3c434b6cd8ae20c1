"""R3 Table, banker and the deal: seats and turn order (R3.1), cutting for the bank (R3.2),
table rules (R3.3), the first card (R3.4), stakes (R3.5), doubling then the shoot round
(R3.6), the second card (R3.7) and the banker's pontoon (R3.8).

Deal order with ("Banker", "Pat", "Sam") and banker "Banker": Pat, Sam, Banker.
"""

from collections import Counter

import pytest

from domain.engine import facts as f
from domain.engine.cards import CUT_ORDER, RANK
from domain.engine.rules import TableRules
from domain.engine.shuffle import cut_for_bank, derived_seed
from domain.errors import InsufficientChips, InvalidSetup, NotAllowed, NotNow
from tests.ledger_club import LedgerClub, make_game

# --- helpers -----------------------------------------------------------------------------


def snapshot(game):
    """Everything a refused command must leave alone."""
    club = game.club
    deal = club.deals.get(game.deal_id) if game.deal_id else None
    return (game.table.version, list(game.table.seats), game.table.banker,
            deal.version if deal else None, dict(club.balances), club.head,
            len(club.deals))


def refused(game, command, error, rule):
    """`command()` raises exactly `error` naming `rule`, and nothing is recorded or moved."""
    before = snapshot(game)

    with pytest.raises(error) as caught:
        command()

    assert type(caught.value) is error
    assert caught.value.rule == rule
    assert snapshot(game) == before


def deal_facts(game):
    return [x for s, x in game.club.log if s == game.deal_id]


def dealt(facts):
    return [(x.player, x.card, x.face_up, x.rule) for x in facts if isinstance(x, f.CardDealt)]


def named(game, player_id):
    return game.names[player_id]


def open_refused(seats=("Ann", "Bob"), banker="Ann", rules=None):
    club = LedgerClub()
    ids = {name: club.register_player(name) for name in set(seats) | {banker}}

    with pytest.raises(InvalidSetup) as caught:
        club.open_table("t", [ids[n] for n in seats], banker=ids[banker], rules=rules)

    assert club.tables == {} and club.log == []
    return caught.value


def cut_winner(cuts):
    best = max(CUT_ORDER[RANK[card]] for card in cuts.values())
    return [player for player, card in cuts.items() if CUT_ORDER[RANK[card]] == best]


# --- R3.1 seats, players and turn order ------------------------------------------------------

@pytest.mark.parametrize("seats", [("Ann",), ("Ann", "Ann")])
def test_r3_1_a_table_needs_two_or_more_different_players(seats):
    """R3.1: one player is not a table, and nobody takes two seats."""
    error = open_refused(seats=seats)

    assert error.rule == "R3.1"


def test_r3_1_there_is_no_maximum_number_of_players():
    """R3.1: twenty players and a banker at a two-pack table each get their two cards."""
    players = ("Banker", *(f"P{i}" for i in range(20)))
    game = make_game(players, rules={"packs": 2})
    game.start()

    for name in players[1:]:
        game.act(name, "stake", amount=1)

    assert all(len(game.hand(name).cards) == 2 for name in players[1:])
    assert len(game.deal.banker_cards) == 2


def test_r3_1_every_round_goes_clockwise_from_the_bankers_left_and_ends_with_the_banker():
    """R3.1: with seats Ann, Banker, Pat, Sam the player to the banker's left is Pat; rounds go
    Pat, Sam, Ann and end with the banker."""
    game = make_game(("Ann", "Banker", "Pat", "Sam"),
                     top=["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"])
    order = ["Pat", "Sam", "Ann", "Banker"]

    game.start()
    for name in order[:-1]:
        game.act(name, "stake", amount=2)

    assert [named(game, p) for p in game.deal.order] == order[:-1]
    assert [(named(game, p), card) for p, card, _, _ in dealt(deal_facts(game))] == list(
        zip(order + order, ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"], strict=True))


def test_r3_1_stakes_are_taken_in_turn_and_out_of_turn_is_refused():
    """R3.1: Sam cannot stake before Pat, who sits to the banker's left; the banker does not
    stake at all."""
    game = make_game(("Banker", "Pat", "Sam"))
    game.start()

    refused(game, lambda: game.act("Sam", "stake", amount=5), NotNow, "R3.1")
    refused(game, lambda: game.act("Banker", "stake", amount=5), NotNow, "R3.1")
    assert game.deal.turn == (game.ids["Pat"], 0)


def test_r3_1_a_player_joins_between_deals_and_is_dealt_in_next_time():
    """R3.1: Tom sits down between deals, after Pat: the next deal goes Pat, Tom, Sam."""
    game = make_game(("Banker", "Pat", "Sam"))
    tom = game.club.register_player("Tom")
    game.club.buy_in(tom, 50)
    game.ids["Tom"], game.names[tom] = tom, "Tom"

    game.club.seat(game.table_id, tom, after=game.ids["Pat"])
    game.start()

    assert [named(game, p) for p in game.table.seats] == ["Banker", "Pat", "Tom", "Sam"]
    assert [named(game, p) for p in game.deal.order] == ["Pat", "Tom", "Sam"]


def test_r3_1_a_player_who_leaves_between_deals_is_not_dealt_in():
    """R3.1: Sam leaves between deals; the next deal is Pat's and the banker's only."""
    game = make_game(("Banker", "Pat", "Sam"))

    game.club.leave(game.table_id, game.ids["Sam"])
    game.start()

    assert [named(game, p) for p in game.deal.order] == ["Pat"]


def test_r3_1_joining_or_leaving_during_a_deal_is_refused():
    """R3.1: players join and leave only between deals: not now (409), nothing recorded."""
    game = make_game(("Banker", "Pat", "Sam"))
    tom = game.club.register_player("Tom")
    game.start()
    game.act("Pat", "stake", amount=5)

    refused(game, lambda: game.club.seat(game.table_id, tom), NotNow, "R3.1")
    refused(game, lambda: game.club.leave(game.table_id, game.ids["Sam"]), NotNow, "R3.1")


def test_r3_1_joining_when_seated_or_leaving_when_not_seated_is_refused():
    """R3.1: sitting down twice, or leaving a table one does not sit at, is not expected now."""
    game = make_game(("Banker", "Pat"))
    tom = game.club.register_player("Tom")

    refused(game, lambda: game.club.seat(game.table_id, game.ids["Pat"]), NotNow, "R3.1")
    refused(game, lambda: game.club.leave(game.table_id, tom), NotNow, "R3.1")


def test_r3_1_the_banker_cannot_leave_without_passing_the_bank():
    """R3.1 (R8.2): the banker leaving is refused as not expected now."""
    game = make_game(("Banker", "Pat", "Sam"))

    refused(game, lambda: game.club.leave(game.table_id, game.ids["Banker"]), NotNow, "R8.2")


def test_r3_1_sitting_after_someone_not_seated_is_refused():
    """R3.1: a seat is taken next to a seated player only."""
    game = make_game(("Banker", "Pat"))
    tom, una = game.club.register_player("Tom"), game.club.register_player("Una")

    refused(game, lambda: game.club.seat(game.table_id, tom, after=una), NotAllowed, "R3.1")


def test_r3_1_a_deal_needs_two_players_seated():
    """R3.1: when Pat has left, the banker alone cannot be dealt to."""
    game = make_game(("Banker", "Pat"))
    game.club.leave(game.table_id, game.ids["Pat"])

    refused(game, game.start, NotNow, "R3.1")
    assert game.table.deal_id is None


def test_r3_1_someone_not_dealt_in_cannot_act_in_the_deal():
    """R3.1: Tom, who is not seated, cannot stake in the deal: it is never expected of him
    (409, API.md Refusals made precise)."""
    game = make_game(("Banker", "Pat"))
    tom = game.club.register_player("Tom")
    game.club.buy_in(tom, 50)
    game.ids["Tom"] = tom
    game.start()

    refused(game, lambda: game.act("Tom", "stake", amount=5), NotNow, "R3.1")


# --- R3.2 cutting for the bank ----------------------------------------------------------------

def club_with_seed(seed, names):
    club = LedgerClub(new_seed=lambda: seed)
    ids = [club.register_player(name) for name in names]
    return club, ids


def test_r3_2_without_a_named_banker_everyone_cuts_and_the_highest_card_banks():
    """R3.2: every seated player cuts; the highest card takes the bank; the cuts are kept."""
    game = make_game(("Ann", "Bob", "Cid", "Dee"), banker=None)
    cuts = game.table.cuts

    assert cuts and set(cuts[0]) == set(game.table.seats)
    assert cut_winner(cuts[-1]) == [game.table.banker]
    assert all(len(set(round_.values())) == len(round_) for round_ in cuts)
    opened = next(x for _, x in game.club.log if isinstance(x, f.TableOpened))
    assert opened.cuts == cuts and opened.banker == game.table.banker


def test_r3_2_the_cut_is_decided_by_the_tables_seed():
    """R3.2: the same seed and seats always give the same cuts and the same banker."""
    seed = derived_seed("cut", 7)
    club, ids = club_with_seed(seed, ("Ann", "Bob", "Cid"))

    table = club.table(club.open_table("t", ids, banker=None))

    assert (table.banker, table.cuts) == cut_for_bank(seed, ids, 1)
    assert cut_for_bank(seed, ids, 1) == cut_for_bank(seed, ids, 1)


def test_r3_2_aces_are_high_in_the_cut():
    """R3.2: an ace beats a king in the cut."""
    players = ["a", "b", "c", "d"]
    for n in range(2000):
        seed = derived_seed("aces high", n)
        banker, rounds = cut_for_bank(seed, players, 1)
        ranks = Counter(RANK[card] for card in rounds[0].values())
        if ranks["A"] == 1 and ranks["K"] >= 1:
            break
    else:
        raise AssertionError("no seed found")

    ace = next(p for p, card in rounds[0].items() if RANK[card] == "A")

    assert banker == ace and len(rounds) == 1


def test_r3_2_ties_cut_again_and_suits_do_not_rank():
    """R3.2: players tied on the highest rank (different suits) cut again, only they, until
    one card is highest; the table records every round."""
    names = ("Ann", "Bob", "Cid")
    for n in range(2000):
        seed = derived_seed("tie", n)
        if len(cut_for_bank(seed, names, 1)[1]) > 1:
            break
    else:
        raise AssertionError("no seed found")
    club, ids = club_with_seed(seed, names)

    table = club.table(club.open_table("t", ids, banker=None))

    first, *later = table.cuts
    tied = cut_winner(first)
    assert len(tied) >= 2 and len({first[p][-1] for p in tied}) == len(tied)
    assert set(later[0]) == set(tied)
    assert cut_winner(table.cuts[-1]) == [table.banker]
    assert all(len(cut_winner(round_)) > 1 for round_ in table.cuts[:-1])


def test_r3_2_a_table_may_name_its_first_banker():
    """R3.2: a named banker takes the bank without a cut; the banker must hold a seat."""
    game = make_game(("Ann", "Banker", "Pat"))

    assert game.table.banker == game.ids["Banker"] and game.table.cuts == []
    assert open_refused(seats=("Ann", "Bob"), banker="Cid").rule == "R3.2"


# --- R3.3 table rules ------------------------------------------------------------------------

def test_r3_3_the_rules_are_fixed_when_the_table_opens():
    """R3.3: stakes, kitty and variations given are kept; the rest take the defaults (the first
    value of each R10 option)."""
    game = make_game(rules={"min_stake": 2, "max_stake": 20, "shoot": True, "kitty_min": 20,
                            "kitty_max": 200, "split": "aces", "burn": 13})

    assert game.table.rules.to_dict() == {
        "min_stake": 2, "max_stake": 20, "shoot": True, "kitty_min": 20, "kitty_max": 200,
        "packs": 1, "split": "aces", "stick_minimum": 15, "banker_may_double": False,
        "pontoon_pays": 2, "banker_pontoon_collects": 2, "no_fifth_card_buy_on_low_four": False,
        "royal_pontoon": False, "pontoon_kinds": "plain", "burn": "13"}
    assert TableRules.from_dict(None) == TableRules()


def test_r3_3_the_tables_stake_limits_are_the_ones_enforced():
    """R3.3 with R3.5: a table with stakes 2 to 20 refuses 1 and 21, accepts 2 and 20."""
    game = make_game(("Banker", "Pat", "Sam"), rules={"min_stake": 2, "max_stake": 20})
    game.start()

    refused(game, lambda: game.act("Pat", "stake", amount=1), NotAllowed, "R3.5")
    refused(game, lambda: game.act("Pat", "stake", amount=21), NotAllowed, "R3.5")
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=20)

    assert (game.hand("Pat").stake, game.hand("Sam").stake) == (2, 20)


@pytest.mark.parametrize(("rules", "rule"), [
    ({"min_stake": 0}, "R3.3"),
    ({"min_stake": -5}, "R3.3"),
    ({"min_stake": True}, "R3.3"),
    ({"min_stake": "1"}, "R3.3"),
    ({"max_stake": 2.5}, "R3.3"),
    ({"min_stake": 11, "max_stake": 10}, "R3.3"),
    ({"kitty_min": 0}, "R3.3"),
    ({"kitty_max": None}, "R3.3"),
    ({"kitty_min": 50, "kitty_max": 40}, "R3.3"),
    ({"stakes": 5}, "R3.3"),
    ({"shoot": "yes"}, "R10"),
    ({"banker_may_double": 1}, "R10"),
    ({"royal_pontoon": "on"}, "R10"),
    ({"no_fifth_card_buy_on_low_four": None}, "R10"),
    ({"split": "all"}, "R10.1"),
    ({"stick_minimum": 17}, "R10.2"),
    ({"stick_minimum": 15.0}, "R10.2"),
    ({"pontoon_pays": 4}, "R10.4"),
    ({"banker_pontoon_collects": 3}, "R10.4"),
    ({"pontoon_kinds": "royal"}, "R10.7"),
    ({"burn": "15"}, "R10.8"),
    ({"burn": True}, "R10.8"),
])
def test_r3_3_impossible_rules_are_refused_when_the_table_opens(rules, rule):
    """R3.3: a stake or kitty that is not a whole number of at least 1, a minimum above its
    maximum, an unknown rule or a variation value R10 does not offer: the table does not
    open (InvalidSetup), naming the rule."""
    error = open_refused(rules=rules)

    assert error.rule == rule


# --- R3.4 the first card ----------------------------------------------------------------------

def test_r3_4_the_first_card_goes_face_down_to_each_player_then_the_banker():
    """R3.4: one card face down to each player from the banker's left, ending with the
    banker; then the stakes are awaited, starting with the player to the banker's left."""
    game = make_game(("Ann", "Banker", "Pat", "Sam"), top=["2S", "3S", "4S", "5S"])

    game.start()

    assert [(named(game, p), card, up, rule) for p, card, up, rule in dealt(deal_facts(game))] \
        == [("Pat", "2S", False, "R3.4"), ("Sam", "3S", False, "R3.4"),
            ("Ann", "4S", False, "R3.4"), ("Banker", "5S", False, "R3.4")]
    assert [game.hand(n).face_up for n in ("Pat", "Sam", "Ann")] == [[False]] * 3
    assert game.deal.banker_face_up == [False]
    assert game.deal.phase == "staking" and game.deal.turn == (game.ids["Pat"], 0)


def test_r3_4_a_second_deal_does_not_open_while_one_is_open():
    """R3.4: starting a deal while one is open is refused; nothing is dealt."""
    game = make_game(("Banker", "Pat"))
    game.start()

    refused(game, lambda: game.club.start_deal(game.table_id), NotNow, "R3.4")


# --- R3.5 initial stakes -----------------------------------------------------------------------

@pytest.mark.parametrize("amount", [0, -1, 11, None, True, 2.5, "5"])
def test_r3_5_an_initial_stake_must_be_between_the_minimum_and_maximum(amount):
    """R3.5: a stake outside 1..10 (the defaults), missing, or not a whole number is refused:
    a player cannot sit the deal out by staking nothing."""
    game = make_game(("Banker", "Pat"))
    game.start()

    refused(game, lambda: game.act("Pat", "stake", amount=amount), NotAllowed, "R3.5")
    assert game.deal.phase == "staking"


def test_r3_5_stakes_go_into_the_deals_escrow_in_turn_then_the_second_round_is_dealt():
    """R3.5: Pat then Sam stake; each stake moves from the player to the deal's escrow under
    R3.5; no second card is dealt before the last stake."""
    game = make_game(("Banker", "Pat", "Sam"))
    game.start()

    first = game.act("Pat", "stake", amount=1)
    second = game.act("Sam", "stake", amount=10)

    assert dealt(first) == []
    assert len(dealt(second)) == 3
    postings = [x.posting for x in first + second if isinstance(x, f.StakePlaced)]
    assert [(p.from_account, p.to_account, p.amount, p.rule) for p in postings] == [
        (f"player:{game.ids['Pat']}", f"escrow:{game.deal_id}", 1, "R3.5"),
        (f"player:{game.ids['Sam']}", f"escrow:{game.deal_id}", 10, "R3.5")]
    assert (game.chips("Pat"), game.chips("Sam")) == (99, 90)


def test_r3_5_a_stake_above_the_chips_held_is_refused():
    """R3.5 with R11.2: Pat holds 3 chips and cannot stake 5; Pat may stake 3."""
    game = make_game(("Banker", "Pat"), chips={"Banker": 100, "Pat": 3})
    game.start()

    refused(game, lambda: game.act("Pat", "stake", amount=5), InsufficientChips, "R11.2")
    game.act("Pat", "stake", amount=3)

    assert game.chips("Pat") == 0


def test_r3_5_no_deal_starts_while_a_player_holds_less_than_the_minimum_stake():
    """R3.5: Sam holds 1 chip at a table with a minimum stake of 2: the deal is refused (409)
    until Sam buys chips."""
    game = make_game(("Banker", "Pat", "Sam"), rules={"min_stake": 2},
                     chips={"Banker": 100, "Pat": 100, "Sam": 1})

    refused(game, game.start, NotNow, "R3.5")
    assert game.table.deal_id is None and game.club.deals == {}
    game.club.buy_in(game.ids["Sam"], 1)
    game.start()

    assert game.deal.phase == "staking"


def test_r3_5_a_short_player_may_leave_instead_and_the_deal_starts():
    """R3.5: the short player leaves between deals; the others are dealt in."""
    game = make_game(("Banker", "Pat", "Sam"), rules={"min_stake": 2},
                     chips={"Banker": 100, "Pat": 100, "Sam": 1})

    game.club.leave(game.table_id, game.ids["Sam"])
    game.start()

    assert game.deal.order == [game.ids["Pat"]]


def test_r3_5_the_banker_holding_few_chips_does_not_stop_the_deal():
    """R3.5: only players other than the banker must hold the minimum stake."""
    game = make_game(("Banker", "Pat"), rules={"min_stake": 5},
                     chips={"Banker": 0, "Pat": 5})

    game.start()

    assert game.deal.phase == "staking"


# --- R3.6 doubling, then the first shoot round -----------------------------------------------

def doubling_shoot_game():
    game = make_game(("Banker", "Pat", "Sam"), rules={"banker_may_double": True, "shoot": True},
                     top=["9S", "8S", "7S", "10S", "10H", "10D"])
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 50)
    game.start()
    game.act("Pat", "stake", amount=5)
    game.act("Sam", "stake", amount=5)
    return game


def test_r3_6_after_the_stakes_the_banker_decides_to_double_before_any_shoot():
    """R3.6: the banker's decision to double comes first: a shoot bet now is refused."""
    game = doubling_shoot_game()

    assert game.deal.phase == "doubling"
    assert game.deal.turn == (game.ids["Banker"], 0)
    refused(game, lambda: game.act("Pat", "shoot", amount=5), NotNow, "R9.5")


def test_r3_6_then_the_first_shoot_round_and_only_then_the_second_card():
    """R3.6, R3.7: the double is followed by the first shoot round from the banker's left;
    the last shoot decision deals the second round."""
    game = doubling_shoot_game()

    doubled = game.act("Banker", "double")
    passed = game.act("Pat", "pass")
    shot = game.act("Sam", "shoot", amount=5)

    assert any(isinstance(x, f.BankerDoubled) for x in doubled)
    assert dealt(doubled) == [] and dealt(passed) == []
    assert [card for _, card, _, _ in dealt(shot)] == ["10S", "10H", "10D"]
    assert game.deal.doubled and game.hand("Sam").shoot_bet == 5


def test_r3_6_the_banker_decides_only_once_and_only_after_the_stakes():
    """R3.6: the banker cannot double before the stakes are in, nor again in the shoot round."""
    game = make_game(("Banker", "Pat"), rules={"banker_may_double": True})
    game.start()

    refused(game, lambda: game.act("Banker", "double"), NotNow, "R10.3")
    game.act("Pat", "stake", amount=5)
    facts = game.act("Banker", "decline")

    assert any(isinstance(x, f.BankerDeclinedToDouble) for x in facts)
    assert len(dealt(facts)) == 2 and not game.deal.doubled
    refused(game, lambda: game.act("Banker", "double"), NotNow, "R10.3")


def test_r3_6_without_doubling_the_shoot_round_follows_the_stakes():
    """R3.6: at a Shoot table without banker doubling the first shoot round comes right after
    the stakes."""
    game = make_game(("Banker", "Pat"), rules={"shoot": True})
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)
    game.start()

    facts = game.act("Pat", "stake", amount=5)

    assert dealt(facts) == []
    assert game.deal.phase == "shooting" and game.deal.turn == (game.ids["Pat"], 0)


# --- R3.7 the second card -----------------------------------------------------------------------

def test_r3_7_the_second_card_goes_face_down_to_everyone_in_the_same_order():
    """R3.7: after the last stake one more card face down to each player from the banker's
    left, then the banker; then the players' turns begin."""
    game = make_game(("Ann", "Banker", "Pat", "Sam"),
                     top=["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)

    facts = game.act("Ann", "stake", amount=2)

    assert [(named(game, p), card, up, rule) for p, card, up, rule in dealt(facts)] == [
        ("Pat", "6S", False, "R3.7"), ("Sam", "7S", False, "R3.7"),
        ("Ann", "8S", False, "R3.7"), ("Banker", "9S", False, "R3.7")]
    assert any(isinstance(x, f.PlayersTurnsBegan) for x in facts)
    assert [game.hand(n).cards for n in ("Pat", "Sam", "Ann")] == [["2S", "6S"], ["3S", "7S"],
                                                                    ["4S", "8S"]]
    assert game.deal.banker_cards == ["5S", "9S"] and game.deal.banker_face_up == [False, False]
    assert game.deal.phase == "playing" and game.deal.turn == (game.ids["Pat"], 0)


# --- R3.8 the banker's pontoon -----------------------------------------------------------------

def banker_pontoon_game(rules=None):
    """Pat holds 9-8, Sam holds A-K (a pontoon), the banker A-Q (a pontoon)."""
    game = make_game(("Banker", "Pat", "Sam"), top=["9S", "AS", "AH", "8S", "KS", "QH"],
                     rules=rules)
    game.start()
    game.act("Pat", "stake", amount=5)
    return game


def test_r3_8_the_bankers_pontoon_collects_double_from_everyone_and_ends_the_deal():
    """R3.8: the banker's pontoon is shown at once; every player, Sam's own pontoon included
    (R2.4), pays double the stake; the deal ends with no player turns."""
    game = banker_pontoon_game()

    facts = game.act("Sam", "stake", amount=4)

    assert game.deal.phase == "settled"
    assert not any(isinstance(x, (f.PlayersTurnsBegan, f.HandFinished, f.HandStuck))
                   for x in facts)
    assert game.deal.banker_face_up == [True, True]
    settled = game.deal.settlement
    assert {r["player"]: (r["outcome"], r["multiplier"], r["rule"]) for r in settled.results} \
        == {game.ids["Pat"]: ("lose", 2, "R3.8"), game.ids["Sam"]: ("lose", 2, "R3.8")}
    assert (game.chips("Pat"), game.chips("Sam"), game.chips("Banker")) == (90, 92, 118)
    assert all(p.rule == "R3.8" for p in settled.postings)
    assert game.table.banker == game.ids["Banker"]


def test_r3_8_no_player_acts_after_the_bankers_pontoon():
    """R3.8: the deal is over: a twist or stick afterwards is refused as not now."""
    game = banker_pontoon_game()
    game.act("Sam", "stake", amount=4)

    refused(game, lambda: game.act("Pat", "twist"), NotNow, None)
    refused(game, lambda: game.act("Banker", "draw"), NotNow, None)


def test_r3_8_a_table_may_collect_single_on_the_bankers_pontoon():
    """R3.8 with R10.4: with `banker_pontoon_collects: 1` each player pays just the stake."""
    game = banker_pontoon_game(rules={"banker_pontoon_collects": 1})

    game.act("Sam", "stake", amount=4)

    assert (game.chips("Pat"), game.chips("Sam"), game.chips("Banker")) == (95, 96, 109)
