"""The players' turns: each hand in turn splits, burns, buys, twists or sticks until it is
finished (R4, R5, R10.5, R10.8)."""

from __future__ import annotations

from domain.engine import facts as f
from domain.engine.cards import RANK
from domain.engine.deal_flow import DealFlow
from domain.engine.deal_hand import Hand
from domain.engine.deal_supply import CardSupply
from domain.engine.hands import can_split, hard_total, value
from domain.errors import NotAllowed


class PlayersTurns(DealFlow):
    """The commands `split`, `burn`, `buy`, `twist` and `stick`."""

    def _split_hand(self, player: str, hand: int | None, amount: int | None,
                    chips: int | None, supply: CardSupply) -> None:
        current = self._splittable(player, hand, amount)
        if amount is not None:
            amount = self._need_amount(amount, "a shoot bet on the new hand", "R9.6")
            self._within_kitty(amount)
        self._afford(player, current.initial + (amount or 0), chips)
        index = self.turn_hand
        self._emit(f.HandSplit(player, index, current.initial, self._into_escrow(
            player, current.initial, "R5.1",
            f"hand {index} splits: a second stake of {current.initial} on the new hand",
            index + 1)))
        if amount:
            self._emit(f.ShootBetPlaced(player, index + 1, amount, "split", self._into_escrow(
                player, amount, "R9.6",
                f"a shoot bet of {amount} on the new hand {index + 1} when splitting",
                index + 1)))
        self._deal(player, index, False, "R5.2", supply)
        self._deal(player, index + 1, False, "R5.2", supply)
        self._formed(player, index)
        self._formed(player, index + 1)
        self._next_turn()

    def _splittable(self, player: str, hand: int | None, amount: int | None) -> Hand:
        """The hand in turn, if the table and its cards let it split now (R5.1, R10.1)."""
        rules = self.rules
        if rules.split == "none":
            raise NotAllowed("this table does not allow splitting (R10.1)", "R10.1")
        if amount is not None and not rules.shoot:
            raise NotAllowed("a split's amount is a shoot bet, and this table does not play "
                             "Shoot Pontoon (R9.12)", "R9.12")
        current = self._hand_in_turn(player, hand, "split")
        if len(current.cards) != 2 or current.acted:
            raise NotAllowed("a hand splits only its first two cards, before any other action "
                             "(R5.1)", "R5.1")
        if RANK[current.cards[0]] != RANK[current.cards[1]]:
            raise NotAllowed("only two cards of equal rank split: Q-Q splits, Q-J does not "
                             "(R5.1)", "R5.1")
        if not can_split(current.cards, rules):
            raise NotAllowed("this table splits aces only (R10.1, R5.6)", "R10.1")
        if len(self.hands[player]) >= 4:
            raise NotAllowed("a player may hold at most four hands (R5.3)", "R5.3")
        return current

    def _burn(self, player: str, hand: int | None, amount: int | None, chips: int | None,
              supply: CardSupply) -> None:
        total = self.rules.burn_total
        if total is None:
            raise NotAllowed("this table does not allow burning (R10.8)", "R10.8")
        current = self._hand_in_turn(player, hand, "burn")
        if len(current.cards) != 2 or current.acted:
            raise NotAllowed("a hand burns only its first two cards, before any other action "
                             "(R10.8)", "R10.8")
        if hard_total(current.cards) != total:
            raise NotAllowed(f"only two cards making a hard {total} may be burned (R10.8)",
                             "R10.8")
        index = self.turn_hand
        self._emit(f.HandBurned(player, index, list(current.cards)))
        self._deal(player, index, False, "R10.8", supply)  # two new cards, a fresh start
        self._take_card(player, index, False, "R10.8", supply)

    def _buy(self, player: str, hand: int | None, amount: int | None, chips: int | None,
             supply: CardSupply) -> None:
        current = self._hand_in_turn(player, hand, "buy")
        if current.twisted:
            raise NotAllowed("a hand that has twisted can no longer buy: twist instead (R4.5)",
                             "R4.5")
        if (self.rules.no_fifth_card_buy_on_low_four and len(current.cards) == 4
                and hard_total(current.cards) <= 11):
            raise NotAllowed("four cards with a hard total of 11 or less cannot fail to make a "
                             "five card trick: the fifth card can only be twisted (R10.5)",
                             "R10.5")
        low, high = buy_range(current)
        nth = ("third", "fourth", "fifth")[len(current.cards) - 2]
        if amount is None or isinstance(amount, bool) or not low <= amount <= high:
            raise NotAllowed(f"a buy for the {nth} card must be between {low} and {high} chips "
                             "(R4.3)", "R4.3")
        self._afford(player, amount, chips)
        index = self.turn_hand
        self._emit(f.CardBought(player, index, amount, self._into_escrow(
            player, amount, "R4.3", f"hand {index} buys its {nth} card for {amount}", index)))
        self._take_card(player, index, False, "R4.3", supply)

    def _twist(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        self._hand_in_turn(player, hand, "twist")
        index = self.turn_hand
        self._emit(f.HandTwisted(player, index))
        self._take_card(player, index, True, "R4.4", supply)

    def _stick(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        current = self._hand_in_turn(player, hand, "stick")
        if current.shot and len(current.cards) == 3:
            raise NotAllowed("after shooting before the fourth card the hand must buy or twist "
                             "(R9.5)", "R9.5")
        minimum = self.rules.stick_minimum
        if value(current.cards) < minimum:
            # The total is not stated: staff acting for a seat must not learn hidden cards.
            raise NotAllowed(f"this hand may not stick under {minimum}: buy or twist "
                             f"({'R4.6' if minimum == 15 else 'R10.2'})",
                             "R4.6" if minimum == 15 else "R10.2")
        self._emit(f.HandStuck(player, self.turn_hand, False, "R4.6"))
        self._next_turn()

    def _take_card(self, player: str, index: int, face_up: bool, rule: str,
                   supply: CardSupply) -> None:
        """The hand in turn takes a card; it may finish by itself, and the turn move on."""
        self._deal(player, index, face_up, rule, supply)
        self._formed(player, index)
        self._next_turn()


def buy_range(hand: Hand) -> tuple[int, int]:
    """R4.3: the third card costs the initial stake to twice it; later ones at most the last."""
    if len(hand.cards) == 2:
        return hand.initial, 2 * hand.initial
    return hand.initial, hand.bought[-1] if hand.bought else hand.initial
