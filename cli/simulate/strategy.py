"""The bots' choice of action, made on what the REST API shows a player.

The rules of play are `domain.engine.strategy`'s; this module only reads them off the deal
view and the legal-actions listing, and copes with cards the viewer cannot see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.engine.hands import value
from domain.engine.strategy import DOUBLE_ON, Rng, play_hand, shooting_round_bet

Choice = tuple[Mapping[str, Any], int | None]


def _rank(card: str) -> str:
    return card[:-1]


def _hand_cards(view: Mapping[str, Any], player_id: str, hand: int) -> list[str | None] | None:
    for seat in view.get("players") or []:
        if seat.get("player_id") == player_id:
            hands = seat.get("hands") or []
            return list(hands[hand]["cards"]) if 0 <= hand < len(hands) else None
    return None


def _with_amount(item: Mapping[str, Any]) -> Choice:
    """An item as it stands: the least amount when the action needs one."""
    needs = item["action"] in ("stake", "buy", "shoot")
    return item, item.get("amount_min") if needs else None


def choose_action(view: Mapping[str, Any], items: Sequence[Mapping[str, Any]], rng: Rng
                  ) -> Choice:
    """Pick one of the legal `items` and an amount for it, as `domain.engine.strategy.choose` does.

    `view` is the deal as the acting player sees it (GET /v1/deals/{id} with its own token);
    `items` are that player's entries of GET /v1/deals/{id}/legal-actions. Stick on 17 or
    more, buy on a hard total of 11 or less (at the minimum), twist otherwise; split aces and
    eights, burn when allowed, shoot a little within the limits now and then; the banker
    draws below 17. A hand whose cards this viewer cannot see (staff acting for a seat whose
    token it does not hold) sticks as soon as it may and twists until then.
    """
    if not items:
        raise ValueError("no legal action to choose from")
    by_action = {item["action"]: item for item in items}

    def pick(action: str, amount: int | None = None) -> Choice:
        return by_action[action], amount

    if "stake" in by_action:
        stake = by_action["stake"]
        if stake.get("amount_min") is None or stake.get("amount_max") is None:
            return pick("stake")  # too few chips left: the stake sits the deal out (R3.5)
        return pick("stake", rng.randint(stake["amount_min"], stake["amount_max"]))
    banker_cards = list((view.get("banker") or {}).get("cards") or [])
    if "double" in by_action:
        first = banker_cards[0] if banker_cards else None
        return pick("double" if first is not None and _rank(first) in DOUBLE_ON
                    else "decline")
    if "draw" in by_action:
        seen = [card for card in banker_cards if card is not None]
        low = bool(seen) and len(seen) == len(banker_cards) and value(seen) < 17
        return pick("draw" if low or "stay" not in by_action else "stay")
    if view.get("phase") == "shooting" or "pass" in by_action:
        shoot = by_action.get("shoot")
        amount = shooting_round_bet(shoot.get("amount_max") if shoot else None, rng)
        if amount is not None:
            return pick("shoot", amount)
        if "pass" in by_action:
            return pick("pass")
    first_item = items[0]
    cards = _hand_cards(view, first_item["player_id"], first_item["hand"])
    if not cards or any(card is None for card in cards):
        for action in ("stick", "twist"):
            if action in by_action:
                return pick(action)
        return _with_amount(first_item)
    offered = {action: (item.get("amount_min"), item.get("amount_max"))
               for action, item in by_action.items()}
    choice = play_hand([card for card in cards if card is not None], offered, rng)
    if choice is not None:
        return pick(*choice)
    if "stick" in by_action:
        return pick("stick")
    return _with_amount(first_item)
