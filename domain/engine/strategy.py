"""A sensible bot: stick on 17 or more, buy on strong totals, split aces and eights, shoot a
little within the limits. Used by the demonstration game and, later, `pontoon simulate`.

Randomness is an input (`rng`), so the same generator gives the same game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from domain.engine.cards import RANK
from domain.engine.deal_state import DealState
from domain.engine.hands import hard_total, value
from domain.engine.legal import LegalAction


class Rng(Protocol):
    def random(self) -> float: ...

    def randint(self, a: int, b: int) -> int: ...


def choose(deal: DealState, options: Sequence[LegalAction], rng: Rng
           ) -> tuple[LegalAction, int | None]:
    """Pick one of the legal `options` and an amount for it."""
    by_action = {option.action: option for option in options}

    def pick(action: str, amount: int | None = None) -> tuple[LegalAction, int | None]:
        return by_action[action], amount

    if "stake" in by_action:
        option = by_action["stake"]
        assert option.amount_min is not None and option.amount_max is not None
        return pick("stake", rng.randint(option.amount_min, option.amount_max))
    if "double" in by_action:
        first = RANK[deal.banker_cards[0]]
        return pick("double" if first in ("A", "10", "J", "Q", "K") else "decline")
    if "draw" in by_action:
        return pick("draw" if value(deal.banker_cards) < 17 else "stay")
    shoot = by_action.get("shoot")
    if deal.phase == "shooting":
        if shoot and shoot.amount_max and rng.random() < 0.4:
            return pick("shoot", max(1, min(shoot.amount_max, rng.randint(1, 5))))
        return pick("pass")
    player, index = options[0].player, options[0].hand
    cards = deal.hands[player][index].cards
    if "split" in by_action and RANK[cards[0]] in ("A", "8"):
        return pick("split")
    if "burn" in by_action:
        return pick("burn")
    total = value(cards)
    if total >= 17 and "stick" in by_action:
        return pick("stick")
    if shoot and shoot.amount_max and len(cards) == 3 and hard_total(cards) <= 11 \
            and rng.random() < 0.5:
        return pick("shoot", max(1, min(shoot.amount_max, 3)))
    buy = by_action.get("buy")
    if buy and buy.amount_min is not None and hard_total(cards) <= 11:
        return pick("buy", buy.amount_min)
    if "twist" in by_action and (total < 17 or "stick" not in by_action):
        return pick("twist")
    return options[0], None
