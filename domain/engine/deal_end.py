"""The banker's turn and the end of a deal: the banker draws or stays, then the deal is
settled (R6, R7); or, if the pack runs out, the deal is void (R1.6)."""

from __future__ import annotations

from domain.engine import facts as f
from domain.engine.deal_flow import DealFlow
from domain.engine.deal_state import BANKER
from domain.engine.deal_supply import CardSupply
from domain.engine.hands import finished_status
from domain.engine.settlement import settle, void_postings
from domain.errors import NotNow


class Ending(DealFlow):
    """The commands `draw` and `stay`, and the void deal."""

    def _banker_acts(self, player: str) -> None:
        if self.phase != BANKER:
            raise NotNow("the banker plays after every player has finished (R6.1, R6.3)", "R6.3")
        if player != self.banker:
            raise NotNow(f"only the banker, {self.banker}, draws or stays (R6.3)", "R6.3")

    def _draw(self, player: str, hand: int | None, amount: int | None, chips: int | None,
              supply: CardSupply) -> None:
        self._banker_acts(player)
        self._deal(self.banker, 0, True, "R6.3", supply)
        status = finished_status(self.banker_cards, self.rules, banker=True)
        if status == "stuck":
            self._emit(f.BankerStayed(self.banker, True, "R6.3"))
        if status is not None:
            self._emit(settle(self))

    def _stay(self, player: str, hand: int | None, amount: int | None, chips: int | None,
              supply: CardSupply) -> None:
        self._banker_acts(player)
        self._emit(f.BankerStayed(self.banker, False, "R6.3"))
        self._emit(settle(self))

    def _void(self) -> None:
        postings = void_postings(self)
        kitty_after = self.kitty - sum(p.amount for p in postings
                                       if p.from_account == self.kitty_account)
        self._emit(f.DealVoided(postings, kitty_after, "the pack ran out (R1.6)"))
