"""Staking on the first card (R3.5) and the banker's choice to double (R10.3)."""

from __future__ import annotations

from domain.engine import facts as f
from domain.engine.deal_flow import DealFlow
from domain.engine.deal_state import DOUBLING, STAKING
from domain.engine.deal_supply import CardSupply
from domain.errors import NotAllowed, NotNow


class Staking(DealFlow):
    """The commands `stake`, `double` and `decline`."""

    def _stake(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        self._in_round(player, STAKING, "R3.5", "stakes")
        rules = self.rules
        amount = self._need_amount(amount, "a stake", "R3.5")
        if not rules.min_stake <= amount <= rules.max_stake:
            raise NotAllowed(f"an initial stake must be between {rules.min_stake} and "
                             f"{rules.max_stake} chips (R3.5)", "R3.5")
        self._afford(player, amount, chips)
        self._emit(f.StakePlaced(player, amount, self._into_escrow(
            player, amount, "R3.5", f"a stake of {amount} on the first card", 0)))
        self._continue(supply)

    def _double(self, player: str, hand: int | None, amount: int | None, chips: int | None,
                supply: CardSupply) -> None:
        self._doubling(player)
        self._emit(f.BankerDoubled(player))
        self._continue(supply)

    def _decline(self, player: str, hand: int | None, amount: int | None, chips: int | None,
                 supply: CardSupply) -> None:
        self._doubling(player)
        self._emit(f.BankerDeclinedToDouble(player))
        self._continue(supply)

    def _doubling(self, player: str) -> None:
        if not self.rules.banker_may_double:
            raise NotAllowed("this table does not let the banker double (R10.3)", "R10.3")
        if self.phase != DOUBLING:
            raise NotNow("the banker decides to double only right after the stakes (R10.3)",
                         "R10.3")
        if player != self.banker:
            raise NotNow(f"only the banker, {self.banker}, decides to double (R10.3)", "R10.3")
