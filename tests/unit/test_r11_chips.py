"""R11: chips as postings; refusals without chips; debts; nothing recorded ever changes."""

import re

import pytest

from domain.engine.postings import TREASURY, escrow_account, kitty_account, player_account
from domain.errors import InsufficientChips, NotAllowed
from tests.ledger_club import Recorded, make_game

SHOOT = {"shoot": True, "kitty_min": 10, "kitty_max": 50}
RULE_ID = re.compile(r"^R\d+\.\d+$")


def frozen(game):
    """Everything a refused command must leave as it was."""
    deal = game.club.deals.get(game.deal_id) if game.deal_id else None
    return (deal.version if deal else None, game.table.version,
            {name: game.chips(name) for name in game.ids}, len(game.club.postings),
            game.club.head, dict(game.club.balances))


def recorded(game):
    """Every posting as plain values, read afresh from the whole log, to compare later."""
    return [p.to_dict() for p in Recorded(game.club.ledger).update().postings]


# --- R11.1 postings and the zero sum --------------------------------------------------------

def test_r11_1_a_buy_in_is_a_posting_from_the_treasury():
    """R11.1: the treasurer issues 40 chips: one posting treasury -> player, sum still zero."""
    game = make_game(chips=0)
    pat = game.ids["Pat"]

    posting = game.club.buy_in(pat, 40)

    assert (posting.from_account, posting.to_account, posting.amount, posting.rule) == (
        TREASURY, player_account(pat), 40, "R11.1")
    assert game.club.postings == [posting]
    assert game.chips("Pat") == 40 and game.club.balances[TREASURY] == -40
    assert game.club.total() == 0


def test_r11_1_a_cash_out_is_a_posting_to_the_treasury():
    """R11.1: the treasurer redeems 30 of Pat's 100 chips."""
    game = make_game()
    pat = game.ids["Pat"]

    posting = game.club.cash_out(pat, 30)

    assert (posting.from_account, posting.to_account, posting.amount) == (
        player_account(pat), TREASURY, 30)
    assert game.chips("Pat") == 70 and game.club.balances[TREASURY] == -170
    assert game.club.total() == 0


@pytest.mark.parametrize("amount", [0, -5])
def test_r11_1_a_buy_in_is_a_positive_whole_amount(amount):
    """R11.1: no posting of zero or a negative amount; nothing is recorded."""
    game = make_game()
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.buy_in(game.ids["Pat"], amount)

    assert refused.value.rule == "R11.1"
    assert frozen(game) == before


def test_r11_1_a_cash_out_above_the_balance_is_refused():
    """R11.1 with R11.2: chips are not created by redeeming more than Pat holds."""
    game = make_game()
    before = frozen(game)

    with pytest.raises(InsufficientChips) as refused:
        game.club.cash_out(game.ids["Pat"], 101)

    assert refused.value.rule == "R11.2"
    assert frozen(game) == before


def test_r11_1_the_sum_of_all_balances_is_zero_after_every_command_of_a_shoot_deal():
    """R11.1: kitty, stakes, shoot bets, a split, a bust, settlement: chips are never created
    nor destroyed, and the deal's escrow ends empty."""
    game = make_game(("Banker", "Pat", "Sam"), rules=SHOOT,
                     top=["8S", "10H", "10C", "8H", "6H", "7C", "10D", "9D", "KH"])
    commands = [
        lambda: game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20),
        game.start,
        lambda: game.act("Pat", "stake", amount=2),
        lambda: game.act("Sam", "stake", amount=3),
        lambda: game.act("Pat", "shoot", amount=4),
        lambda: game.act("Sam", "shoot", amount=5),
        lambda: game.act("Pat", "split", amount=3),
        lambda: game.act("Pat", "stick"),
        lambda: game.act("Pat", "stick"),
        lambda: game.act("Sam", "twist"),
        lambda: game.act("Banker", "stay"),
    ]
    totals = []

    for command in commands:
        command()
        totals.append(game.club.total())

    assert game.deal.phase == "settled"
    assert totals == [0] * len(commands)
    assert game.club.balances[escrow_account(game.deal_id)] == 0
    assert game.club.balances[TREASURY] == -300


def test_r11_1_every_posting_is_positive_and_names_its_rule_hand_and_deal():
    """R11.1: each posting of a deal moves a positive whole amount, names a rule id and the
    hand, and is recorded in that deal's own stream."""
    game = make_game(rules=SHOOT, top=["8S", "10C", "8H", "7C", "10D", "5D", "KD"])
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "shoot", amount=4)
    game.act("Pat", "split", amount=3)
    game.act("Pat", "stick")

    game.act("Pat", "twist")

    postings = game.deal.postings
    assert all(isinstance(p.amount, int) and p.amount > 0 for p in game.club.postings)
    assert all(RULE_ID.match(p.rule) for p in game.club.postings)
    assert [(p.rule, p.hand, p.amount) for p in postings[:4]] == [
        ("R3.5", 0, 2), ("R9.3", 0, 4), ("R5.1", 1, 2), ("R9.6", 1, 3)]
    assert {p.hand for p in postings if p.rule in ("R4.7", "R9.7")} == {1}
    streams = {stream for stream, fact in game.club.log
               if any(p in postings for p in getattr(fact, "postings", []) or
                      [getattr(fact, "posting", None)])}
    assert streams == {game.deal_id}


# --- R11.2 no command with chips one does not hold ------------------------------------------

def deal_refusal_cases():
    """(name, chips for Pat, rules, top, steps before, refused step)."""
    pair = ["8S", "10C", "8H", "7C"]
    return [
        pytest.param(5, {}, pair, [], ("stake", {"amount": 6}), id="stake"),
        pytest.param(8, {}, ["2S", "10C", "3S", "7C"], [("stake", {"amount": 5})],
                     ("buy", {"amount": 5}), id="buy"),
        pytest.param(8, {}, pair, [("stake", {"amount": 5})], ("split", {}), id="split"),
        pytest.param(12, SHOOT, pair, [("stake", {"amount": 5}), ("pass", {})],
                     ("split", {"amount": 4}), id="split-with-shoot-bet"),
        pytest.param(8, SHOOT, pair, [("stake", {"amount": 5})], ("shoot", {"amount": 4}),
                     id="first-round-shoot"),
        pytest.param(10, SHOOT, ["2S", "10C", "3S", "7C", "4S"],
                     [("stake", {"amount": 2}), ("pass", {}), ("buy", {"amount": 2})],
                     ("shoot", {"amount": 7}), id="fourth-card-shoot"),
    ]


@pytest.mark.parametrize(("pat_chips", "rules", "top", "steps", "refused_step"),
                         deal_refusal_cases())
def test_r11_2_a_deal_command_needing_chips_pat_does_not_hold_is_refused(
        pat_chips, rules, top, steps, refused_step):
    """R11.2: stake, buy, split (with or without a shoot bet) and shoots are refused without
    the chips; nothing is recorded."""
    game = make_game(top=top, rules=rules, chips={"Banker": 100, "Pat": pat_chips})
    if rules.get("shoot"):
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)
    game.start()
    for action, kwargs in steps:
        game.act("Pat", action, **kwargs)
    before = frozen(game)
    action, kwargs = refused_step

    with pytest.raises(InsufficientChips) as refused:
        game.act("Pat", action, **kwargs)

    assert refused.value.rule == "R11.2" and refused.value.status == 422
    assert frozen(game) == before


def test_r11_2_a_kitty_the_banker_does_not_hold_is_refused():
    """R11.2: the banker holds 15 and cannot put up a kitty of 20."""
    game = make_game(rules=SHOOT, chips={"Banker": 15, "Pat": 100})
    before = frozen(game)

    with pytest.raises(InsufficientChips) as refused:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)

    assert refused.value.rule == "R11.2"
    assert frozen(game) == before and game.table.kitty == 0


def test_r11_2_a_top_up_the_banker_does_not_hold_is_refused():
    """R11.2: kitty 20 put up from 25 chips; a top-up of 10 is within the maximum but not held."""
    game = make_game(rules=SHOOT, chips={"Banker": 25, "Pat": 100})
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)
    before = frozen(game)

    with pytest.raises(InsufficientChips) as refused:
        game.club.put_up_kitty(game.table_id, game.ids["Banker"], 10)

    assert refused.value.rule == "R11.2"
    assert frozen(game) == before and game.table.kitty == 20


def test_r11_2_paying_for_the_bank_needs_the_price():
    """R11.2: Pat holds 9 and cannot buy the bank for 10, by sale or by auction bid."""
    game = make_game(("Banker", "Pat", "Sam"), rules=SHOOT, chips={"Banker": 100, "Pat": 11,
                                                                    "Sam": 100},
                     top=["10S", "10H", "10C", "9S", "7H", "8C"])
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 10)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Pat", "pass")
    game.act("Sam", "shoot", amount=10)
    game.act("Pat", "stick")
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    assert game.chips("Pat") == 9 + 4 and game.table.kitty == 20
    game.club.cash_out(game.ids["Pat"], 4)
    before = frozen(game)

    with pytest.raises(InsufficientChips) as sale:
        game.club.sell_bank(game.table_id, game.ids["Pat"], 10)

    assert sale.value.rule == "R11.2"
    assert frozen(game) == before and game.table.banker == game.ids["Banker"]


def test_r11_2_a_bid_needs_the_price():
    """R11.2: at an auction Pat, holding 12, cannot bid 13; nothing is recorded."""
    game = make_game(("Banker", "Pat", "Sam"), rules=SHOOT,
                     top=["10S", "10H", "10C", "9S", "7H", "8C"])
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 10)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Pat", "shoot", amount=10)
    game.act("Pat", "stick")
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    assert game.table.kitty == 0 and game.chips("Pat") == 112
    game.club.cash_out(game.ids["Pat"], 100)
    game.club.open_auction(game.table_id, game.ids["Banker"])
    before = frozen(game)

    with pytest.raises(InsufficientChips) as refused:
        game.club.bid(game.table_id, game.ids["Pat"], 13)

    assert refused.value.rule == "R11.2"
    assert frozen(game) == before and game.table.auction == []


# --- R11.3 settlement may leave a debt ------------------------------------------------------

def test_r11_3_a_bankers_five_card_trick_may_take_a_player_below_zero():
    """R11.3: Pat staked all 5 chips; the banker's trick collects double: Pat owes 5."""
    game = make_game(top=["10S", "2C", "9S", "3C", "2D", "3D", "4D"],
                     chips={"Banker": 100, "Pat": 5})
    game.start()
    game.act("Pat", "stake", amount=5)
    game.act("Pat", "stick")
    game.act("Banker", "draw")
    game.act("Banker", "draw")

    game.act("Banker", "draw")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == -5 and game.chips("Banker") == 110
    assert game.club.total() == 0


def test_r11_3_a_bankers_pontoon_collection_may_take_a_player_below_zero():
    """R11.3: the banker's pontoon (R3.8) collects double from Pat who staked all 4 chips."""
    game = make_game(top=["10S", "AC", "9S", "KC"], chips={"Banker": 100, "Pat": 4})
    game.start()

    game.act("Pat", "stake", amount=4)

    assert game.chips("Pat") == -4 and game.club.total() == 0


def test_r11_3_a_banker_without_chips_still_pays_and_owes_the_table():
    """R11.3: the banker holds nothing; Pat's 19 beats 18 and is paid 10 all the same."""
    game = make_game(top=["10S", "10C", "9S", "8C"], chips={"Banker": 0, "Pat": 50})
    game.start()
    game.act("Pat", "stake", amount=10)
    game.act("Pat", "stick")

    game.act("Banker", "stay")

    assert game.chips("Banker") == -10 and game.chips("Pat") == 60
    assert game.club.total() == 0


def test_r11_3_a_doubled_bankers_second_stake_from_a_bust_hand_may_leave_a_debt():
    """R11.3 with R10.3: Pat staked all 3 chips and busts; the second stake leaves Pat at -3."""
    game = make_game(top=["10S", "10C", "6S", "8C", "KS"], rules={"banker_may_double": True},
                     chips={"Banker": 100, "Pat": 3})
    game.start()
    game.act("Pat", "stake", amount=3)
    game.act("Banker", "double")

    game.act("Pat", "twist")

    assert game.deal.phase == "settled"
    assert game.chips("Pat") == -3


# --- R11.4 nothing recorded is changed ------------------------------------------------------

def test_r11_4_the_posting_list_only_grows_and_earlier_postings_never_change():
    """R11.4: after each later command (bust, settlement, a sale, buy-in, cash-out, the next
    deal) every earlier posting is still in the log, in its place, with the same values."""
    game = make_game(("Banker", "Pat", "Sam"), rules=SHOOT,
                     top=["10S", "10H", "10C", "6S", "9H", "8C", "KS"])
    commands = [
        lambda: game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20),
        game.start,
        lambda: game.act("Pat", "stake", amount=2),
        lambda: game.act("Sam", "stake", amount=3),
        lambda: game.act("Pat", "shoot", amount=4),
        lambda: game.act("Sam", "shoot", amount=5),
        lambda: game.act("Pat", "twist"),
        lambda: game.act("Sam", "stick"),
        lambda: game.act("Banker", "stay"),
        lambda: game.club.sell_bank(game.table_id, game.ids["Sam"], 6),
        lambda: game.club.buy_in(game.ids["Pat"], 7),
        lambda: game.club.cash_out(game.ids["Sam"], 8),
        lambda: game.club.put_up_kitty(game.table_id, game.ids["Sam"], 15),
        game.start,
    ]
    history = []

    for command in commands:
        values = recorded(game)
        command()
        now = recorded(game)
        assert len(now) >= len(values) and now[:len(values)] == values
        history.append(len(now))

    assert history == sorted(history) and history[-1] > history[0]


def test_r11_4_a_deals_earlier_postings_are_unchanged_by_its_settlement():
    """R11.4: Pat's stake, shoot bet and the bust postings stay as recorded; settlement only
    adds postings (the second stake of a doubled banker is a new posting, not an edit)."""
    game = make_game(("Banker", "Pat", "Sam"), rules={**SHOOT, "banker_may_double": True},
                     top=["10S", "10H", "10C", "6S", "9H", "8C", "KS"])
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 20)
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=3)
    game.act("Banker", "double")
    game.act("Pat", "shoot", amount=4)
    game.act("Sam", "pass")
    game.act("Pat", "twist")
    game.act("Sam", "stick")
    before = [p.to_dict() for p in game.deal.postings]
    assert [p["rule"] for p in before] == ["R3.5", "R3.5", "R9.3", "R4.7", "R9.7"]

    game.act("Banker", "stay")

    after = [p.to_dict() for p in game.deal.postings]
    assert after[:len(before)] == before and len(after) > len(before)
    added = game.deal.postings[len(before):]
    assert any(p.rule == "R10.3" and p.amount == 2 and p.from_account == player_account(
        game.ids["Pat"]) for p in added)
    assert game.club.balances[kitty_account(game.table_id)] == 24


def test_r11_4_a_returned_stake_is_a_new_posting_not_a_deleted_one():
    """R11.4: Pat wins; the stake posting into escrow stays and a new posting returns it."""
    game = make_game(top=["10S", "10C", "9S", "8C"])
    game.start()
    game.act("Pat", "stake", amount=3)
    stake = game.club.postings[-1]
    game.act("Pat", "stick")

    game.act("Banker", "stay")

    escrow, pat = escrow_account(game.deal_id), player_account(game.ids["Pat"])
    assert stake in game.club.postings
    assert (stake.from_account, stake.to_account, stake.amount) == (pat, escrow, 3)
    returned = [p for p in game.club.postings if p.from_account == escrow]
    assert [(p.to_account, p.amount) for p in returned] == [(pat, 3)]
