"""The legal actions at any moment: who acts, on which hand, and the amounts allowed.

Bots, the API and the web pages use this; a property test checks that every action listed
here is accepted by `Deal.act` and that others are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.engine.deal import buy_range
from domain.engine.deal_state import BANKER, DOUBLING, PLAYING, SHOOTING, STAKING, DealState
from domain.engine.hands import can_split, hard_total, value
from domain.errors import present


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
        if held is not None and held < rules.min_stake:
            # R3.5: their stake, whatever its amount, is answered by sitting the deal out.
            out.append(LegalAction(player, index, "stake"))
        else:
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


# Actions whose legality a viewer who cannot see the hand's face-down cards could learn from.
_CARD_DEPENDENT = frozenset({"split", "burn", "stick"})


def blind_actions(deal: DealState, chips: Mapping[str, int] | None = None
                  ) -> list[LegalAction]:
    """The legal actions that tell nothing about face-down cards (for staff at a shuffled or
    ordered table): in a player's turn, never split, burn or stick, and a buy is offered
    whenever the stake history allows one (R10.5 depends on the hidden total)."""
    if deal.phase != PLAYING:
        return legal_actions(deal, chips)
    turn = present(deal.turn, "the turn of a deal in its playing phase")
    hand = deal.hands[turn[0]][turn[1]]
    out = [a for a in legal_actions(deal, chips) if a.action not in _CARD_DEPENDENT
           and a.action != "buy"]
    if not hand.twisted:
        low, high = buy_range(hand)
        held = None if chips is None else chips.get(turn[0], 0)
        high = high if held is None else min(high, held)
        if low <= high:
            out.append(LegalAction(turn[0], turn[1], "buy", low, high))
    return out
