"""Staking on the first card (R3.5), sitting a deal out when the chips for it are gone
(R3.5's Decision), and the banker's choice to double (R10.3)."""

from __future__ import annotations

from domain.engine import facts as f
from domain.engine.deal_flow import DealFlow
from domain.engine.deal_state import DOUBLING, STAKING
from domain.engine.deal_supply import CardSupply
from domain.engine.settlement import pack_after
from domain.errors import NotAllowed, NotNow


class Staking(DealFlow):
    """The commands `stake`, `double` and `decline`."""

    def _stake(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        self._in_round(player, STAKING, "R3.5", "stakes")
        rules = self.rules
        if chips is not None and chips < rules.min_stake:
            # Their chips went to another table after this deal started. Refusing would
            # leave the deal waiting for a stake that cannot come: like R1.6's void deal,
            # the command is answered with what the rules make of it.
            self._sit_out(player)
        else:
            amount = self._need_amount(amount, "a stake", "R3.5")
            if not rules.min_stake <= amount <= rules.max_stake:
                raise NotAllowed(f"an initial stake must be between {rules.min_stake} and "
                                 f"{rules.max_stake} chips (R3.5)", "R3.5")
            self._afford(player, amount, chips)
            self._emit(f.StakePlaced(player, amount, self._into_escrow(
                player, amount, "R3.5", f"a stake of {amount} on the first card", 0)))
        self._pass_over_the_short()
        self._continue(supply)

    def _pass_over_the_short(self) -> None:
        """R3.5: staking reaches each next player in turn; one who is known to hold less
        than the minimum stake sits out at once."""
        while self.phase == STAKING and self.turn is not None:
            held = self._holdings.get(self.turn[0])
            if held is None or held >= self.rules.min_stake:
                return
            self._sit_out(self.turn[0])

    def _sit_out(self, player: str) -> None:
        """R3.5: the player sits this deal out, their first card going under the pack unseen;
        with no player but the banker left, the deal is void and the pack is kept."""
        minimum = self.rules.min_stake
        self._emit(f.PlayerSatOut(player, f"when their turn to stake came they held less "
                                          f"than the minimum stake of {minimum} (R3.5)", "R3.5"))
        if not self.order:
            # Nobody staked, so R1.6's refunds are none; the pack is kept (R3.5), not shuffled.
            self._emit(f.DealVoided([], self.kitty, "every player sat the deal out, holding "
                                    "less than the minimum stake (R3.5)", pack_after(self),
                                    False))

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
