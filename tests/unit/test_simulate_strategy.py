"""The bots of `pontoon simulate` choose from the REST deal view and legal actions.

`choose_action` sees what a player's own token sees (GET /v1/deals/{id}) and that player's
entries of GET /v1/deals/{id}/legal-actions; it must choose as the engine's bot
(`domain.engine.strategy.choose`) does, and a refused action must not stop a deal.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from cli.simulate import Api, ApiError, Bot, Simulation, choose_action
from domain.engine.deal_state import DealState
from domain.engine.legal import LegalAction
from domain.engine.strategy import choose
from tests.ledger_club import LedgerClub

ME = "p-me"


class FixedRng:
    """random() always answers `chance`; randint the low end, or the high end if asked."""

    def __init__(self, chance: float = 0.99, *, high: bool = False) -> None:
        self.chance, self.high = chance, high

    def random(self) -> float:
        return self.chance

    def randint(self, a: int, b: int) -> int:
        return b if self.high else a


def item(action: str, low: int | None = None, high: int | None = None, *, hand: int = 0,
         player: str = ME) -> dict[str, Any]:
    return {"player_id": player, "hand": hand, "action": action, "amount_min": low,
            "amount_max": high}


def view(phase: str, cards: list[str | None], *, banker: list[str | None] | None = None,
         player: str = ME, hands: list[list[str | None]] | None = None) -> dict[str, Any]:
    return {"id": "d-1", "phase": phase, "turn": {"player_id": player, "hand": 0},
            "banker": {"player_id": "p-banker", "cards": banker or [None, None],
                       "doubled": False},
            "players": [{"player_id": player, "hands": [
                {"cards": c, "stake": 2, "shoot_bet": 0, "status": "open", "bought": [],
                 "twisted": False} for c in (hands or [cards])]}]}


PLAYING = [item("buy", 2, 4), item("twist"), item("stick")]


def chosen(v: dict[str, Any], items: list[dict[str, Any]], rng: Any = None
           ) -> tuple[str, int | None]:
    picked, amount = choose_action(v, items, rng or FixedRng())
    assert picked in items
    return picked["action"], amount


def test_a_stake_is_within_the_legal_range_r3_5():
    """R3.5: the stake lies between the least and the most allowed (chips held included)."""
    items = [item("stake", 1, 7)]
    assert chosen(view("staking", ["7H"]), items, FixedRng()) == ("stake", 1)
    assert chosen(view("staking", ["7H"]), items, FixedRng(high=True)) == ("stake", 7)
    for seed in range(20):
        _, amount = chosen(view("staking", ["7H"]), items, random.Random(seed))
        assert amount is not None and 1 <= amount <= 7


@pytest.mark.parametrize("cards", [["10H", "7C"], ["9S", "9D"], ["AS", "6C"], ["5H", "5D", "8C"]])
def test_sticks_on_17_or_more_r4_6(cards):
    """R4.6: a hand worth 17 or more sticks (a soft 17 too)."""
    assert chosen(view("playing", cards), PLAYING) == ("stick", None)


@pytest.mark.parametrize("cards", [["5H", "6C"], ["2H", "3C", "4D"], ["AS", "AC", "5D"]])
def test_buys_at_the_minimum_on_a_hard_total_of_11_or_less_r4_3(cards):
    """R4.3: a hard total of 11 or less buys its card, for the least amount."""
    items = [item("buy", 2, 4), item("twist")]
    assert chosen(view("playing", cards), items) == ("buy", 2)


@pytest.mark.parametrize("cards", [["10H", "5C"], ["9S", "4D"], ["10H", "2C", "4D"]])
def test_twists_under_17_when_buying_is_not_worth_it_r4_4(cards):
    """R4.4: 12 to 16 twists, even when it may stick (15, 16) or buy."""
    assert chosen(view("playing", cards), PLAYING) == ("twist", None)


def test_after_twisting_a_low_hand_twists_on_r4_5():
    """R4.5: no buy is offered after a twist; a hard 9 twists."""
    assert chosen(view("playing", ["2H", "3C", "4D"]), [item("twist")]) == ("twist", None)


@pytest.mark.parametrize("pair", [["AS", "AH"], ["8S", "8D"]])
def test_splits_aces_and_eights_r5_1(pair):
    """R5.1: aces and eights are split (without a new shoot bet)."""
    items = [item("split", 1, 5), *PLAYING]
    assert chosen(view("playing", pair), items) == ("split", None)


def test_keeps_other_pairs_r5_1():
    """R5.1: a pair of tens stands on 20, a pair of sevens twists."""
    items = [item("split"), *PLAYING]
    assert chosen(view("playing", ["10S", "10D"]), items)[0] == "stick"
    assert chosen(view("playing", ["7S", "7D"]), items)[0] == "twist"


def test_burns_when_allowed_r10_8():
    """R10.8: a hard 13 on two cards burns when the table allows it."""
    assert chosen(view("playing", ["6S", "7D"]), [item("burn"), *PLAYING]) == ("burn", None)


def test_first_shoot_round_shoots_within_the_limit_now_and_then_r9_3():
    """R9.2, R9.3: shoot now and then, never more than the room left; else pass."""
    items = [item("pass"), item("shoot", 1, 2)]
    action, amount = chosen(view("shooting", ["9H"]), items, FixedRng(0.0, high=True))
    assert action == "shoot" and amount == 2
    assert chosen(view("shooting", ["9H"]), items, FixedRng(0.9)) == ("pass", None)
    assert chosen(view("shooting", ["9H"]), [item("pass")], FixedRng(0.0)) == ("pass", None)


def test_fourth_card_shoot_then_buys_r9_5():
    """R9.5: three cards at a hard 11 or less may shoot before the fourth card, then buy."""
    cards = ["2H", "3C", "4D"]
    items = [item("buy", 2, 4), item("twist"), item("stick"), item("shoot", 1, 10)]
    items = items[:2] + items[3:]  # 9 may not stick
    assert chosen(view("playing", cards), items, FixedRng(0.0)) == ("shoot", 3)
    assert chosen(view("playing", cards), items, FixedRng(0.9)) == ("buy", 2)
    # After shooting: buy or twist only.
    assert chosen(view("playing", cards), items[:2], FixedRng(0.0)) == ("buy", 2)


def test_plays_the_hand_in_turn_of_a_split_player_r4_9():
    """R4.9: the hand named by the legal actions is the one looked at."""
    items = [item("buy", 2, 4, hand=1), item("twist", hand=1), item("stick", hand=1)]
    assert chosen(view("playing", [], hands=[["4H", "5C"], ["10S", "8D"]]), items) == \
        ("stick", None)
    assert chosen(view("playing", [], hands=[["10S", "8D"], ["4H", "5C"]]), items) == \
        ("buy", 2)


@pytest.mark.parametrize(("banker", "expected"), [
    (["10H", "6C"], "draw"), (["10H", "7C"], "stay"), (["AS", "6C"], "stay"),
    (["2S", "3C", "4D"], "draw"), (["5S", "5C", "5D", "2H"], "stay")])
def test_the_banker_draws_below_17_r6_3(banker, expected):
    """R6.3: the banker draws while under 17 and stays from 17."""
    v = view("banker", [None, None], banker=banker)
    assert chosen(v, [item("draw"), item("stay")]) == (expected, None)


@pytest.mark.parametrize(("first", "expected"), [("AS", "double"), ("KD", "double"),
                                                  ("7C", "decline")])
def test_the_banker_doubles_on_an_ace_or_ten_card_r10_3(first, expected):
    """R10.3: a banker showing an ace or a ten-card doubles."""
    v = view("doubling", [None], banker=[first])
    assert chosen(v, [item("double"), item("decline")]) == (expected, None)


def test_a_hand_the_viewer_cannot_see_sticks_when_it_may_r4_6():
    """R4.6: staff acting for a seat see null cards: stick when allowed, else twist."""
    assert chosen(view("playing", [None, None]), PLAYING) == ("stick", None)
    assert chosen(view("playing", [None, None]), PLAYING[:2]) == ("twist", None)


def _as_view(deal: DealState) -> dict[str, Any]:
    """What a player's own token shows of the deal, for the player in turn."""
    return {"id": deal.deal_id, "phase": deal.phase,
            "banker": {"player_id": deal.banker, "cards": list(deal.banker_cards)},
            "players": [{"player_id": p, "hands": [{"cards": list(h.cards)}
                                                   for h in deal.hands[p]]}
                        for p in deal.order]}


def _as_items(options: list[LegalAction]) -> list[dict[str, Any]]:
    return [item(o.action, o.amount_min, o.amount_max, hand=o.hand, player=o.player)
            for o in options]


@pytest.mark.parametrize("seed", range(6))
def test_chooses_as_the_engine_bot_does_r9_1(seed):
    """R9.1: over whole Shoot Pontoon deals (a kitty put up by each new banker), the REST
    strategy picks what `domain.engine.strategy.choose` picks, drawing the same random numbers."""
    counter = iter(range(1, 1_000_000))
    club = LedgerClub(
        new_seed=lambda: hashlib.sha256(f"{seed}:{next(counter)}".encode()).hexdigest())
    ids = [club.register_player(name) for name in ("A", "B", "C", "D", "E")]
    for player_id in ids:
        club.buy_in(player_id, 500)
    table_id = club.open_table("t", ids, rules={"shoot": True, "burn": "13"})
    ours, theirs = random.Random(seed), random.Random(seed)
    compared = 0
    for _ in range(12):
        table = club.table(table_id)
        if table.kitty_needed:
            club.put_up_kitty(table_id, table.banker, 40)
        deal_id = club.start_deal(table_id)
        while not (deal := club.deal(deal_id)).is_over:
            options = club.legal_actions(deal_id)
            expected, expected_amount = choose(deal, options, theirs)
            picked, amount = choose_action(_as_view(deal), _as_items(options), ours)
            assert (picked["action"], picked["hand"], amount) == \
                (expected.action, expected.hand, expected_amount)
            club.act(deal_id, expected.player, expected.action, hand=expected.hand,
                     amount=expected_amount)
            compared += 1
    assert compared > 100


class ScriptedApi(Api):
    """A deal where the first stick is refused (422): the bot must choose again."""

    def __init__(self) -> None:
        super().__init__("http://unused")
        self.posted: list[dict[str, Any]] = []

    def get(self, path: str, token: str | None, **query: Any) -> Any:
        if path.endswith("/legal-actions"):
            return {"phase": "playing", "items": [item("twist"), item("stick")]}
        return view("playing", ["10H", "7C"])

    def post(self, path: str, body: Any, token: str | None) -> Any:
        self.posted.append(dict(body))
        if body["action"] == "stick":
            raise ApiError("POST", path, 422, {"detail": "no", "rule": "R4.6"})
        return {**view("settled", ["10H", "7C", "2D"]), "turn": None}


def test_a_refused_action_is_logged_and_the_bot_chooses_again_r4_6():
    """R4.6: a 422 does not stop the deal; the refused action is not sent again."""
    from rich.console import Console

    api = ScriptedApi()
    sim = Simulation(api, "t", console=Console(quiet=True), rng=random.Random(1), players=2,
                     shoot=False)
    sim.bots[ME] = Bot(ME, "Me", "token-me")
    ended = sim.play_deal(view("playing", ["10H", "7C"]))
    assert ended["phase"] == "settled"
    assert [b["action"] for b in api.posted] == ["stick", "twist"]
    assert sim.tally.refusals == 1 and sim.tally.settled == 1
