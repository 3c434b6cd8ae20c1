"""Refusals made precise (API.md Additions), for every action of API.md: who is not in the
deal (R3.1, 409), a `hand` the sender does not hold (422 naming the action's rule), a hand
held but not in turn (409, R4.9), and an `amount` on an action that takes none (422).

One Shoot Pontoon table lets the banker double and burns a hard 13, so every action has a
moment when it is expected: staking (Pat, Sam), doubling (the banker), the first shoot
round (Pat, Sam), the players' turns (Pat holds 8-8, Sam 6-7) and the banker's turn.
The seats began as Ex (banker), Banker, Pat, Sam, Una: Ex sold the bank to Banker and
left, Una left, so the deal goes Pat, Sam, Banker; Tom was never seated.
"""

import pytest

from domain.engine.deal import ACTIONS
from domain.errors import NotAllowed, NotNow
from tests.ledger_club import make_game

RULES = {"shoot": True, "kitty_min": 10, "kitty_max": 100, "banker_may_double": True,
         "burn": "13"}
# Pat, Sam, Banker; Pat, Sam, Banker; then Sam's twist and, after a split, Pat's two hands.
TOP = ["8S", "6C", "10D", "8H", "7D", "7S", "5H", "4C"]

PHASE_OF = {"stake": "staking", "double": "doubling", "decline": "doubling",
            "shoot": "shooting", "pass": "shooting", "split": "playing", "buy": "playing",
            "twist": "playing", "stick": "playing", "burn": "playing", "draw": "banker",
            "stay": "banker"}
RULE_OF = {"stake": "R3.5", "double": "R10.3", "decline": "R10.3", "shoot": "R9.3",
           "pass": "R9.3", "split": "R5.1", "buy": "R4.3", "twist": "R4.4", "stick": "R4.6",
           "burn": "R10.8", "draw": "R6.3", "stay": "R6.3"}
AMOUNT_OF = {"stake": 5, "shoot": 1, "buy": 5}
STEPS = [("Pat", "stake", {"amount": 5}), ("Sam", "stake", {"amount": 5}),
         ("Banker", "decline", {}), ("Pat", "pass", {}), ("Sam", "pass", {}),
         ("Pat", "stick", {}), ("Sam", "twist", {}), ("Sam", "stick", {})]


def game_at(phase, top=TOP):
    """The deal of the module's table, played on until it is in `phase`."""
    game = make_game(("Ex", "Banker", "Pat", "Sam", "Una"), top=top, rules=RULES,
                     banker="Ex")
    club, table = game.club, game.table_id
    club.sell_bank(table, game.ids["Banker"], 1)
    club.leave(table, game.ids["Ex"])
    club.leave(table, game.ids["Una"])
    game.ids["Tom"] = club.register_player("Tom")
    club.buy_in(game.ids["Tom"], 100)
    club.put_up_kitty(table, game.ids["Banker"], 50)
    game.start()
    for name, action, body in STEPS:
        if game.deal.phase == phase:
            break
        game.act(name, action, **body)
    assert game.deal.phase == phase
    return game


def in_turn(game):
    return game.names[game.deal.turn[0]]


def snapshot(game):
    deal = game.deal
    return (deal.version, dict(game.club.balances), game.club.head, deal.turn,
            {p: [h.snapshot() for h in hs] for p, hs in deal.hands.items()})


def refused(game, name, action, error, rule, **body):
    before = snapshot(game)

    with pytest.raises(error) as caught:
        game.act(name, action, **body)

    assert type(caught.value) is error and caught.value.rule == rule, caught.value
    assert snapshot(game) == before
    return caught.value


# --- who is not in the deal: 409 naming R3.1 ----------------------------------------------

@pytest.mark.parametrize("outsider", ["Tom", "Una", "Ex"],
                         ids=["never-seated", "left-the-table", "former-banker-who-left"])
@pytest.mark.parametrize("action", ACTIONS)
def test_r3_1_an_action_by_a_player_holding_no_hand_in_the_deal_is_not_expected_now(
        action, outsider):
    """R3.1 (API.md, Refusals made precise): a player who holds no hand in the deal and is
    not its banker is never expected to act in it, even at the moment the action is
    expected of someone: 409 naming R3.1, nothing recorded."""
    game = game_at(PHASE_OF[action])

    error = refused(game, outsider, action, NotNow, "R3.1", amount=AMOUNT_OF.get(action))

    assert "not playing in this deal" in error.message


# --- a hand the sender does not hold: 422 naming the action's rule ---------------------------

@pytest.mark.parametrize("action", ACTIONS)
def test_r3_5_r4_r6_r9_r10_a_hand_the_sender_does_not_hold_is_refused_by_the_actions_rule(
        action):
    """API.md: a `hand` the sender does not hold is 422 naming the action's rule, sent by
    whoever is expected now (Pat staking on hand 1 before any split: R3.5; the banker
    doubling, drawing or staying on hand 1: R10.3, R6.3, since the banker holds hand 0
    only; a first-round shoot or pass on hand 1: R9.3; a split, buy, twist, stick or burn
    on hand 1 before any split: R5.1, R4.3, R4.4, R4.6, R10.8)."""
    game = game_at(PHASE_OF[action])

    error = refused(game, in_turn(game), action, NotAllowed, RULE_OF[action], hand=1,
                    amount=AMOUNT_OF.get(action))

    assert "holds no hand 1" in error.message


@pytest.mark.parametrize("action", ["stake", "twist", "stay"])
def test_r3_1_a_hand_not_held_is_422_even_when_the_action_is_not_expected_now(action):
    """API.md: whenever the sender holds no such hand the request is 422 naming the
    action's rule, before asking whether the action is expected (a stake on hand 3 in the
    players' turns, a twist on hand 3 while staking, the banker's stay on hand 2)."""
    game = game_at("playing" if action == "stake" else "staking")
    name = "Banker" if action == "stay" else "Pat"

    refused(game, name, action, NotAllowed, RULE_OF[action], hand=3 if name == "Pat" else 2,
            amount=AMOUNT_OF.get(action))


def test_r9_5_a_fourth_card_shoot_on_a_hand_not_held_names_r9_5():
    """R9.5: before the fourth card a shoot on a hand the player does not hold is 422
    naming the window's rule."""
    game = game_at("playing")
    game.act("Pat", "buy", amount=5)

    refused(game, "Pat", "shoot", NotAllowed, "R9.5", hand=2, amount=1)


def test_r6_3_the_bankers_hand_is_hand_0():
    """R6.3: the banker holds one hand, hand 0: naming it is accepted."""
    game = game_at("banker")

    game.act("Banker", "stay", hand=0)

    assert game.deal.phase == "settled"


# --- a hand held but not in turn: 409 naming R4.9 --------------------------------------------

@pytest.mark.parametrize("action", ["split", "buy", "twist", "stick", "burn", "shoot"])
def test_r4_9_a_hand_held_but_not_in_turn_is_not_expected_now(action):
    """R4.9 (API.md): after Pat splits 8-8 both hands are held, hand 0 is in turn: any
    action on hand 1 is 409 naming R4.9."""
    game = game_at("playing")
    game.act("Pat", "split")
    assert game.deal.turn == (game.ids["Pat"], 0) and len(game.hand("Pat", 1).cards) == 2

    refused(game, "Pat", action, NotNow, "R4.9", hand=1, amount=AMOUNT_OF.get(action))


# --- an amount on an action that takes none: 422 naming the action's rule ----------------------

@pytest.mark.parametrize("action", ["pass", "twist", "stick", "burn", "double", "decline",
                                    "draw", "stay"])
def test_r3_1_an_amount_on_an_action_that_takes_none_is_refused_by_its_rule(action):
    """API.md: `amount` is for stake, buy and shoot (and split's shoot bet); sent with any
    other action by whoever is expected now it is 422 naming the action's rule (R9.3,
    R4.4, R4.6, R10.8, R10.3, R6.3), not silently ignored."""
    game = game_at(PHASE_OF[action])

    error = refused(game, in_turn(game), action, NotAllowed, RULE_OF[action], amount=5)

    assert "takes no amount" in error.message
