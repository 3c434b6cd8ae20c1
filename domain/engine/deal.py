"""One deal as a state machine (R3–R9): each command checks, then records facts.

A command first checks everything that can refuse it, then emits facts; an emitted fact is
applied at once, so later steps of the same command see the state it made (a bought card,
then a bust). Cards come from the pack in the state, or in recorded mode from the operator.
The commands live with their phase: deal_staking.py, deal_shooting.py, deal_turns.py and
deal_end.py, on what they share in deal_flow.py; this module joins them into `Deal`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence

from domain.engine import facts as f
from domain.engine.deal_end import Ending
from domain.engine.deal_shooting import Shooting
from domain.engine.deal_staking import Staking
from domain.engine.deal_state import BANKER, PLAYING
from domain.engine.deal_supply import CardSupply, PackExhausted
from domain.engine.deal_turns import PlayersTurns, buy_range
from domain.engine.rules import TableRules
from domain.errors import NotAllowed, NotNow

__all__ = ["ACTIONS", "ACTION_RULES", "CardSupply", "Deal", "PackExhausted", "buy_range"]

ACTIONS = ("stake", "shoot", "pass", "split", "buy", "twist", "stick", "burn", "double",
           "decline", "draw", "stay")


# The rule that governs each action, named when a request for it is malformed (a shoot's
# depends on its window: `Deal.rule_of`).
ACTION_RULES = {"stake": "R3.5", "shoot": "R9.3", "pass": "R9.3", "split": "R5.1",
                "buy": "R4.3", "twist": "R4.4", "stick": "R4.6", "burn": "R10.8",
                "double": "R10.3", "decline": "R10.3", "draw": "R6.3", "stay": "R6.3"}


class Deal(Staking, Shooting, PlayersTurns, Ending):
    """Decides commands for one deal. `act` returns the facts it recorded."""

    @classmethod
    def start(cls, *, deal_id: str, table_id: str, number: int, banker: str,
              seats: Sequence[str], rules: TableRules, pack: Iterable[str] | None, kitty: int,
              commitment: str | None, cards: Sequence[str] | None = None,
              contributions: Sequence[Mapping[str, str]] = ()
              ) -> tuple[Deal, list[f.Fact]]:
        """R3.4: one card face down to each player from the banker's left, then the banker.
        `contributions`: the players' randomness the pack was shuffled with (R1.7)."""
        start = seats.index(banker)
        players = [seats[(start + i) % len(seats)] for i in range(1, len(seats))]
        opened = f.DealStarted(deal_id, table_id, number, banker, players, rules.to_dict(),
                               list(pack) if pack is not None else None, kitty, commitment,
                               [dict(c) for c in contributions])
        deal = cls()
        return deal, deal._decide(lambda d, supply: d._open(opened, supply), cards)

    def act(self, player: str, action: str, *, hand: int | None = None,
            amount: int | None = None, cards: Sequence[str] | None = None,
            chips: int | None = None, holdings: Mapping[str, int] | None = None
            ) -> list[f.Fact]:
        """Carry out one action of API.md for `player`; `chips` is what they hold (R11.2),
        `holdings` what the players still to stake hold, when known (R3.5)."""
        name = _HANDLERS.get(action)
        if name is None:
            raise NotAllowed(f"unknown action {action!r}; actions are {', '.join(ACTIONS)}")
        if self.is_over:
            raise NotNow(f"deal {self.number} is over ({self.phase}); start a new deal")
        if player != self.banker and player not in self.hands:
            # Never expected from them: they hold no hand in this deal (API.md, Refusals).
            why = " (they sat it out, R3.5)" if player in self.sat_out else ""
            raise NotNow(f"{player} is not playing in this deal{why} (R3.1)", "R3.1")
        rule = self.rule_of(action)
        if amount is not None and action not in ("stake", "buy", "shoot", "split"):
            raise NotAllowed(f"a {action} takes no amount ({rule})", rule)
        held = 1 if player == self.banker else len(self.hands[player])
        if hand is not None and not 0 <= hand < held:
            # A hand they do not hold: a rule refuses the request, whatever the turn.
            holds = "hand 0 only" if held == 1 else f"hands 0 to {held - 1}"
            raise NotAllowed(f"{player} holds no hand {hand} in this deal, {holds} ({rule})",
                             rule)
        return self._decide(
            lambda d, supply: getattr(d, name)(player, hand, amount, chips, supply), cards,
            holdings)

    def rule_of(self, action: str) -> str:
        """The rule an action's malformed request is refused under: a shoot's is its
        window's, the first shoot round (R9.3) or before a fourth card (R9.5)."""
        if action == "shoot" and self.phase in (PLAYING, BANKER):
            return "R9.5"
        return ACTION_RULES[action]

    def _decide(self, command: Callable[[Deal, CardSupply], None],
                cards: Sequence[str] | None, holdings: Mapping[str, int] | None = None
                ) -> list[f.Fact]:
        """Run a command, returning its facts; a refusal leaves the deal as it was.

        Checks come before the first fact, except the cards an operator enters in recorded
        mode, which are checked as they are dealt: there the command runs on a copy first.
        """
        recorded = cards is not None or (self.pack is None and self.number > 0)
        target = copy.deepcopy(self) if recorded else self
        supply = CardSupply(target, cards)
        target._out, target._holdings = [], dict(holdings or {})
        try:
            command(target, supply)
        except PackExhausted:
            target._void()
        finally:
            del target._holdings  # an input of this command only, not state
        supply.check_all_used()
        decided: list[f.Fact] = target._out
        if target is not self:
            for fact in decided:
                self.apply(fact)
        return decided


_HANDLERS: dict[str, str] = {
    "stake": "_stake", "shoot": "_shoot", "pass": "_pass", "split": "_split_hand",
    "buy": "_buy", "twist": "_twist", "stick": "_stick", "burn": "_burn",
    "double": "_double", "decline": "_decline", "draw": "_draw", "stay": "_stay"}
