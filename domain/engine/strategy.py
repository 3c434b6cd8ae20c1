"""A sensible bot: stick on 17 or more, buy on strong totals, split aces and eights, shoot a
little within the limits. Used by the demonstration game; `pontoon simulate` plays a hand and
the shooting round with the same functions, on what the REST API shows.

Randomness is an input (`rng`), so the same generator gives the same game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from domain.engine.cards import RANK
from domain.engine.deal_state import DealState
from domain.engine.hands import hard_total, value
from domain.engine.legal import LegalAction


class Rng(Protocol):
    def random(self) -> float: ...

    def randint(self, a: int, b: int) -> int: ...


# The actions offered for one hand, each with its (amount_min, amount_max).
Offered = Mapping[str, tuple[int | None, int | None]]

DOUBLE_ON = frozenset({"A", "10", "J", "Q", "K"})  # the banker's first card ranks (R10.3)


def choose(deal: DealState, options: Sequence[LegalAction], rng: Rng
           ) -> tuple[LegalAction, int | None]:
    """Pick one of the legal `options` and an amount for it."""
    by_action = {option.action: option for option in options}

    def pick(action: str, amount: int | None = None) -> tuple[LegalAction, int | None]:
        return by_action[action], amount

    if "stake" in by_action:
        option = by_action["stake"]
        if option.amount_min is None or option.amount_max is None:
            return pick("stake")  # too few chips left: the stake sits the deal out (R3.5)
        return pick("stake", rng.randint(option.amount_min, option.amount_max))
    if "double" in by_action:
        first = RANK[deal.banker_cards[0]]
        return pick("double" if first in DOUBLE_ON else "decline")
    if "draw" in by_action:
        return pick("draw" if value(deal.banker_cards) < 17 else "stay")
    shoot = by_action.get("shoot")
    if deal.phase == "shooting":
        amount = shooting_round_bet(shoot.amount_max if shoot else None, rng)
        return pick("shoot", amount) if amount is not None else pick("pass")
    player, index = options[0].player, options[0].hand
    offered = {option.action: (option.amount_min, option.amount_max) for option in options}
    choice = play_hand(deal.hands[player][index].cards, offered, rng)
    return pick(*choice) if choice is not None else (options[0], None)


def shooting_round_bet(amount_max: int | None, rng: Rng) -> int | None:
    """A small shoot bet now and then, within the room left (R9.2, R9.3); None: pass."""
    if amount_max and rng.random() < 0.4:
        return max(1, min(amount_max, rng.randint(1, 5)))
    return None


def play_hand(cards: Sequence[str], offered: Offered, rng: Rng) -> tuple[str, int | None] | None:
    """The action and amount for a hand whose `cards` are known, or None when no rule applies.

    None leaves the fallback to the caller: the engine's bot takes its first option, the REST
    bot sticks when it may.
    """
    if "split" in offered and RANK[cards[0]] in ("A", "8"):
        return "split", None
    if "burn" in offered:
        return "burn", None
    total = value(cards)
    if total >= 17 and "stick" in offered:
        return "stick", None
    shoot_max = offered["shoot"][1] if "shoot" in offered else None
    if shoot_max and len(cards) == 3 and hard_total(cards) <= 11 and rng.random() < 0.5:
        return "shoot", max(1, min(shoot_max, 3))
    buy_min = offered["buy"][0] if "buy" in offered else None
    if buy_min is not None and hard_total(cards) <= 11:
        return "buy", buy_min
    if "twist" in offered and (total < 17 or "stick" not in offered):
        return "twist", None
    return None
