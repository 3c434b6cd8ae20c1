"""The legal actions at any moment: who acts, on which hand, and the amounts allowed.

Bots, the API and the web pages use this; a property test checks that every action listed
here is accepted by `Deal.act` and that others are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.deal import buy_range
from domain.deal_state import BANKER, DOUBLING, PLAYING, SHOOTING, STAKING, DealState
from domain.hands import can_split, hard_total, value


@dataclass(frozen=True, slots=True)
class LegalAction:
    player: str
    hand: int
    action: str
    amount_min: int | None = None  # for split: the optional shoot bet, when one is possible
    amount_max: int | None = None


def legal_actions(deal: DealState, chips: Mapping[str, int] | None = None
                  ) -> list[LegalAction]:
    """Every action `deal.act` accepts now; amounts within the player's `chips` if given."""
    turn = deal.turn
    if turn is None or deal.is_over:
        return []
    player, index = turn
    held = None if chips is None else chips.get(player, 0)
    rules = deal.rules
    out: list[LegalAction] = []

    def ranged(action: str, low: int, high: int) -> None:
        if held is not None:
            high = min(high, held)
        if low <= high:
            out.append(LegalAction(player, index, action, low, high))

    if deal.phase == STAKING:
        ranged("stake", rules.min_stake, rules.max_stake)
    elif deal.phase == DOUBLING:
        out += [LegalAction(player, 0, "double"), LegalAction(player, 0, "decline")]
    elif deal.phase == SHOOTING:
        out.append(LegalAction(player, 0, "pass"))
        ranged("shoot", 1, deal.shoot_room())
    elif deal.phase == BANKER:
        out += [LegalAction(player, 0, "draw"), LegalAction(player, 0, "stay")]
    elif deal.phase == PLAYING:
        hand = deal.hands[player][index]
        fresh = len(hand.cards) == 2 and not hand.acted
        if fresh and can_split(hand.cards, rules) and len(deal.hands[player]) < 4 and (
                held is None or held >= hand.initial):
            room = deal.shoot_room() if rules.shoot else 0
            if held is not None:
                room = min(room, held - hand.initial)
            out.append(LegalAction(player, index, "split", 1 if room >= 1 else None,
                                   room if room >= 1 else None))
        if fresh and rules.burn_total == hard_total(hand.cards):
            out.append(LegalAction(player, index, "burn"))
        low_four = (rules.no_fifth_card_buy_on_low_four and len(hand.cards) == 4
                    and hard_total(hand.cards) <= 11)
        if not hand.twisted and not low_four:
            ranged("buy", *buy_range(hand))
        out.append(LegalAction(player, index, "twist"))
        if value(hand.cards) >= rules.stick_minimum and not (hand.shot and len(hand.cards) == 3):
            out.append(LegalAction(player, index, "stick"))
        if rules.shoot and len(hand.cards) == 3 and not hand.shot:
            ranged("shoot", 1, deal.shoot_room())
    return out
