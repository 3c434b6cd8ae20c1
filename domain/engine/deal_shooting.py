"""Shoot bets against the kitty: the first shoot round (R9.3) and the shoot before a hand's
fourth card (R9.5), always within what the kitty can cover (R9.2)."""

from __future__ import annotations

from domain.engine import facts as f
from domain.engine.deal_flow import DealFlow
from domain.engine.deal_state import PLAYING, SHOOTING
from domain.engine.deal_supply import CardSupply
from domain.errors import NotAllowed, NotNow, present


class Shooting(DealFlow):
    """The commands `shoot` and `pass`."""

    def _shoot(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        self._shoot_table()
        if self.phase == SHOOTING:
            self._shoot_first_round(player, hand, amount, chips, supply)
        elif self.phase == PLAYING:
            self._shoot_fourth_card(player, hand, amount, chips)
        else:
            raise NotNow("no shoot window is open: shoot in the first shoot round or before a "
                         "hand's fourth card (R9.3, R9.5)", "R9.5")

    def _shoot_first_round(self, player: str, hand: int | None, amount: int | None,
                           chips: int | None, supply: CardSupply) -> None:
        self._in_round(player, SHOOTING, "R9.3", "shoot bets")
        amount = self._shoot_amount(player, amount, chips)
        self._emit(f.ShootBetPlaced(player, 0, amount, "first_round", self._into_escrow(
            player, amount, "R9.3",
            f"a shoot bet of {amount} against the kitty in the first shoot round", 0)))
        if self.phase == SHOOTING and self.shoot_room() == 0:
            # Nothing is left to shoot, so the others are passed over without a command.
            turn_index = present(self.turn_index, "the turn of a shoot round in progress")
            for passed in self.order[turn_index:]:
                self._emit(f.ShootPassed(passed, True))
        self._continue(supply)

    def _shoot_fourth_card(self, player: str, hand: int | None, amount: int | None,
                           chips: int | None) -> None:
        current = self._hand_in_turn(player, hand, "shoot")
        if len(current.cards) != 3 or current.shot:
            raise NotNow("no shoot window is open: a hand shoots once, holding three cards, "
                         "before its fourth card (R9.5)", "R9.5")
        amount = self._shoot_amount(player, amount, chips)
        index = self.turn_hand
        self._emit(f.ShootBetPlaced(player, index, amount, "fourth_card", self._into_escrow(
            player, amount, "R9.5", f"a shoot bet of {amount} before hand {index}'s fourth card",
            index)))

    def _shoot_amount(self, player: str, amount: int | None, chips: int | None) -> int:
        amount = self._need_amount(amount, "a shoot bet", "R9.2")
        self._within_kitty(amount)
        self._afford(player, amount, chips)
        return amount

    def _pass(self, player: str, hand: int | None, amount: int | None, chips: int | None,
              supply: CardSupply) -> None:
        self._shoot_table()
        if self.phase == PLAYING:
            raise NotNow("pass belongs to the first shoot round; before the fourth card simply "
                         "buy or twist (R9.5)", "R9.5")
        self._in_round(player, SHOOTING, "R9.3", "passing")
        self._emit(f.ShootPassed(player, False))
        self._continue(supply)

    def _shoot_table(self) -> None:
        if not self.rules.shoot:
            raise NotAllowed("this table does not play Shoot Pontoon (R9.12)", "R9.12")
