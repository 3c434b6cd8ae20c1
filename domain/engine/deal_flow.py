"""What every phase of a deal stands on: recording facts, dealing cards, the steps no
command asks for, and the checks commands share.

The steps taken by themselves are the first and second cards (R3.4, R3.7), the banker's
pontoon (R3.8), hands that finish as they are formed (R4.1, R4.7, R4.8, R4.10) and the move
to the banker's turn (R6.2). The commands of each phase are mixins on `DealFlow`: staking
and doubling (deal_staking.py), shoot bets (deal_shooting.py), the players' turns
(deal_turns.py), the banker's turn and the end (deal_end.py); `Deal` (deal.py) joins them.
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.engine import facts as f
from domain.engine.deal_hand import Hand
from domain.engine.deal_state import DEALING, PLAYING, DealState
from domain.engine.deal_supply import CardSupply
from domain.engine.hands import BUST, OPEN, finished_status
from domain.engine.postings import Posting, check_affordable, check_amount, player_account
from domain.engine.settlement import settle
from domain.errors import NotAllowed, NotNow, present


class DealFlow(DealState):
    """A deal's state with the means to decide: facts emitted are applied at once."""

    _out: list[f.Fact]
    _holdings: Mapping[str, int]  # what players still to stake hold, during a command (R3.5)

    # --- recording and dealing ---------------------------------------------------------

    def _emit(self, fact: f.Fact) -> None:
        self.apply(fact)
        self._out.append(fact)

    def _deal(self, player: str, hand: int, face_up: bool, rule: str, supply: CardSupply) -> None:
        self._emit(f.CardDealt(player, hand, supply.next(), face_up, rule))

    def _into_escrow(self, player: str, amount: int, rule: str, reason: str, hand: int
                     ) -> Posting:
        """Chips a player puts on a hand are held by the deal until it ends (R11.1)."""
        return Posting(player_account(player), self.escrow, amount, rule, reason, hand)

    # --- the flow of a deal ------------------------------------------------------------

    def _open(self, opened: f.DealStarted, supply: CardSupply) -> None:
        self._emit(opened)
        for player in self.order:
            self._deal(player, 0, False, "R3.4", supply)
        self._deal(self.banker, 0, False, "R3.4", supply)

    def _continue(self, supply: CardSupply) -> None:
        """After the stakes, doubling and shoot round: second cards, then R3.8 or play."""
        if self.phase != DEALING:
            return
        for player in self.order:
            self._deal(player, 0, False, "R3.7", supply)
        self._deal(self.banker, 0, False, "R3.7", supply)
        if finished_status(self.banker_cards, self.rules, banker=True) == "pontoon":
            self._emit(settle(self))
            return
        for player in self.order:
            self._formed(player, 0)
        first = next((p for p, _, h in self.all_hands() if h.status == OPEN), None)
        self._emit(f.PlayersTurnsBegan(first))
        self._next_turn()

    def _formed(self, player: str, index: int) -> None:
        """A hand that finishes by itself as soon as it is formed (R4.1, R4.7, R4.8, R4.10)."""
        hand = self.hands[player][index]
        status = finished_status(hand.cards, self.rules)
        if status is None:
            return
        if status == BUST:
            self._emit(f.HandBusted(player, index, self._bust_postings(player, index, hand)))
        elif status == "stuck":
            self._emit(f.HandStuck(player, index, True, "R4.10"))
        elif status == "pontoon":
            self._emit(f.HandFinished(player, index, status, "R2.5" if hand.split else "R4.1"))
        elif status == "royal_pontoon":
            self._emit(f.HandFinished(player, index, status, "R10.6"))
        else:
            self._emit(f.HandFinished(player, index, status, "R4.8"))

    def _bust_postings(self, player: str, index: int, hand: Hand) -> list[Posting]:
        """R4.7: the banker takes the stake at once; R9.7: the shoot bet goes to the kitty."""
        postings = [Posting(self.escrow, player_account(self.banker), hand.stake, "R4.7",
                            f"hand {index} is bust: the banker takes its stake of "
                            f"{hand.stake}", index)]
        if hand.shoot_bet:
            postings.append(Posting(self.escrow, self.kitty_account, hand.shoot_bet, "R9.7",
                                    f"hand {index} is bust: its shoot bet of "
                                    f"{hand.shoot_bet} goes into the kitty", index))
        return postings

    def _next_turn(self) -> None:
        """When no player hand is open, the banker plays, or R6.2 settles at once."""
        if self.phase != PLAYING or self.turn_index is not None:
            return
        if all(h.status == BUST for _, _, h in self.all_hands()):
            self._emit(settle(self))
        else:
            self._emit(f.BankerTurnBegan(self.banker))

    # --- checks shared by commands -----------------------------------------------------

    def _hand_in_turn(self, player: str, hand: int | None, doing: str) -> Hand:
        if self.phase != PLAYING:
            raise NotNow(f"players {doing} only in their turn, after the second card (R4)",
                         "R4.2")
        turn = present(self.turn, "the turn of a deal in its playing phase")
        if turn[0] != player:
            raise NotNow(f"it is {turn[0]}'s turn, hand {turn[1]}, not {player}'s (R3.1)",
                         "R3.1")
        if hand is not None and hand != turn[1]:
            raise NotNow(f"{player} plays hand {turn[1]} now; hands are played in turn (R4.9)",
                         "R4.9")
        return self.hands[player][turn[1]]

    def _in_round(self, player: str, phase: str, rule: str, what: str) -> None:
        if self.phase != phase:
            raise NotNow(f"{what} not now: the deal is in its {self.phase} phase ({rule})", rule)
        turn = present(self.turn, "the turn of a round in progress")
        if turn[0] != player:
            raise NotNow(f"it is {turn[0]}'s turn, not {player}'s (R3.1)", "R3.1")

    def _need_amount(self, amount: int | None, what: str, rule: str) -> int:
        return check_amount(amount, what, rule)

    def _within_kitty(self, amount: int) -> None:
        room = self.shoot_room()
        if amount > room:
            raise NotAllowed(f"shoot bets may not exceed the kitty: at most {room} more can be "
                             f"shot now (R9.2)", "R9.2")

    @staticmethod
    def _afford(player: str, needed: int, chips: int | None) -> None:
        check_affordable(player, needed, chips)
