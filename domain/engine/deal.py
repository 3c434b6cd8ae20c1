"""One deal as a state machine (R3–R9): each command checks, then records facts.

A command first checks everything that can refuse it, then emits facts; an emitted fact is
applied at once, so later steps of the same command see the state it made (a bought card,
then a bust). Cards come from the pack in the state, or in recorded mode from the operator.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence

from domain.engine import facts as f
from domain.engine.cards import RANK, check_card
from domain.engine.deal_state import (
    BANKER,
    DEALING,
    DOUBLING,
    PLAYING,
    SHOOTING,
    STAKING,
    DealState,
    Hand,
)
from domain.engine.hands import BUST, OPEN, can_split, finished_status, hard_total, value
from domain.engine.postings import Posting, check_affordable, check_amount, player_account
from domain.engine.rules import TableRules
from domain.engine.settlement import settle, void_postings
from domain.errors import NotAllowed, NotNow

ACTIONS = ("stake", "shoot", "pass", "split", "buy", "twist", "stick", "burn", "double",
           "decline", "draw", "stay")


# The rule that governs each action, named when a request for it is malformed.
ACTION_RULES = {"stake": "R3.5", "shoot": "R9.2", "pass": "R9.3", "split": "R5.1",
                "buy": "R4.3", "twist": "R4.4", "stick": "R4.6", "burn": "R10.8",
                "double": "R10.3", "decline": "R10.3", "draw": "R6.3", "stay": "R6.3"}


class PackExhausted(Exception):
    """The pack ran out mid-deal: the deal is void (R1.6)."""


class CardSupply:
    """Where the next card comes from: the pack's top, or the operator's entries (R1.7)."""

    def __init__(self, deal: DealState, cards: Sequence[object] | None) -> None:
        self.deal = deal
        self.entered = list(cards) if cards is not None else None
        self.used = 0
        if cards is not None and deal.pack is not None:
            raise NotAllowed("this table deals its own cards; send no card unless the table "
                             "is in recorded mode (R1.7)", "R1.7")

    def next(self) -> str:
        deal = self.deal
        if deal.pack is not None:
            if not deal.pack:
                raise PackExhausted
            return deal.pack[0]
        if sum(deal.in_play.values()) >= 52 * deal.rules.packs:
            raise PackExhausted  # every card is on the table: the deal is void (R1.6)
        if self.entered is None or self.used >= len(self.entered):
            raise NotAllowed("this action deals more cards: enter each card dealt, in order, "
                             "as `cards` (R1.7)", "R1.7")
        card = check_card(self.entered[self.used])
        if deal.in_play[card] >= deal.rules.packs:
            raise NotAllowed(f"{card} cannot be dealt: every {card} of the pack is already on "
                             f"the table (R1.7)", "R1.7")
        self.used += 1
        return card

    def check_all_used(self) -> None:
        if self.entered is not None and self.used != len(self.entered):
            raise NotAllowed(f"this action dealt {self.used} card(s) but {len(self.entered)} "
                             "were entered (R1.7)", "R1.7")


class Deal(DealState):
    """Decides commands for one deal. `act` returns the facts it recorded."""

    _out: list[f.Fact]

    @classmethod
    def start(cls, *, deal_id: str, table_id: str, number: int, banker: str,
              seats: Sequence[str], rules: TableRules, pack: Iterable[str] | None, kitty: int,
              commitment: str | None, cards: Sequence[str] | None = None
              ) -> tuple[Deal, list[f.Fact]]:
        """R3.4: one card face down to each player from the banker's left, then the banker."""
        start = seats.index(banker)
        players = [seats[(start + i) % len(seats)] for i in range(1, len(seats))]
        opened = f.DealStarted(deal_id, table_id, number, banker, players, rules.to_dict(),
                               list(pack) if pack is not None else None, kitty, commitment)
        deal = cls()
        return deal, deal._decide(lambda d, supply: d._open(opened, supply), cards)

    @classmethod
    def replay(cls, history: Iterable[f.Fact]) -> Deal:
        deal = cls()
        for fact in history:
            deal.apply(fact)
        return deal

    def act(self, player: str, action: str, *, hand: int | None = None,
            amount: int | None = None, cards: Sequence[str] | None = None,
            chips: int | None = None) -> list[f.Fact]:
        """Carry out one action of API.md for `player`; `chips` is what they hold (R11.2)."""
        name = _HANDLERS.get(action)
        if name is None:
            raise NotAllowed(f"unknown action {action!r}; actions are {', '.join(ACTIONS)}")
        if self.is_over:
            raise NotNow(f"deal {self.number} is over ({self.phase}); start a new deal")
        if player != self.banker and player not in self.hands:
            raise NotAllowed(f"{player} is not playing in this deal (R3.1)", "R3.1")
        if amount is not None and action not in ("stake", "buy", "shoot", "split"):
            raise NotAllowed(f"a {action} takes no amount ({ACTION_RULES[action]})",
                             ACTION_RULES[action])
        return self._decide(
            lambda d, supply: getattr(d, name)(player, hand, amount, chips, supply), cards)

    # --- plumbing ----------------------------------------------------------------------

    def _decide(self, command: Callable[[Deal, CardSupply], None],
                cards: Sequence[str] | None) -> list[f.Fact]:
        """Run a command, returning its facts; a refusal leaves the deal as it was.

        Checks come before the first fact, except the cards an operator enters in recorded
        mode, which are checked as they are dealt: there the command runs on a copy first.
        """
        recorded = cards is not None or (self.pack is None and self.number > 0)
        target = copy.deepcopy(self) if recorded else self
        target._out = []
        supply = CardSupply(target, cards)
        try:
            command(target, supply)
        except PackExhausted:
            target._void()
        supply.check_all_used()
        decided: list[f.Fact] = target._out
        if target is not self:
            for fact in decided:
                self.apply(fact)
        return decided

    def _emit(self, fact: f.Fact) -> None:
        self.apply(fact)
        self._out.append(fact)

    def _deal(self, player: str, hand: int, face_up: bool, rule: str, supply: CardSupply) -> None:
        self._emit(f.CardDealt(player, hand, supply.next(), face_up, rule))

    def _void(self) -> None:
        postings = void_postings(self)
        kitty_after = self.kitty - sum(p.amount for p in postings
                                       if p.from_account == self.kitty_account)
        self._emit(f.DealVoided(postings, kitty_after, "the pack ran out (R1.6)"))

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
        turn = self.turn
        assert turn is not None
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
        turn = self.turn
        assert turn is not None
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

    # --- commands ----------------------------------------------------------------------

    def _stake(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        self._in_round(player, STAKING, "R3.5", "stakes")
        rules = self.rules
        amount = self._need_amount(amount, "a stake", "R3.5")
        if not rules.min_stake <= amount <= rules.max_stake:
            raise NotAllowed(f"an initial stake must be between {rules.min_stake} and "
                             f"{rules.max_stake} chips (R3.5)", "R3.5")
        self._afford(player, amount, chips)
        self._emit(f.StakePlaced(player, amount, Posting(
            player_account(player), self.escrow, amount, "R3.5",
            f"a stake of {amount} on the first card", 0)))
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

    def _shoot(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        if not self.rules.shoot:
            raise NotAllowed("this table does not play Shoot Pontoon (R9.12)", "R9.12")
        if self.phase == SHOOTING:
            self._in_round(player, SHOOTING, "R9.3", "shoot bets")
            if hand not in (None, 0):
                raise NotNow("the first shoot round bets on hand 0 (R9.3)", "R9.3")
            amount = self._need_amount(amount, "a shoot bet", "R9.2")
            self._within_kitty(amount)
            self._afford(player, amount, chips)
            self._emit(f.ShootBetPlaced(player, 0, amount, "first_round", Posting(
                player_account(player), self.escrow, amount, "R9.3",
                f"a shoot bet of {amount} against the kitty in the first shoot round", 0)))
            if self.phase == SHOOTING and self.shoot_room() == 0:
                assert self.turn_index is not None
                for passed in self.order[self.turn_index:]:
                    self._emit(f.ShootPassed(passed, True))
            self._continue(supply)
            return
        if self.phase != PLAYING:
            raise NotNow("no shoot window is open: shoot in the first shoot round or before a "
                         "hand's fourth card (R9.3, R9.5)", "R9.5")
        current = self._hand_in_turn(player, hand, "shoot")
        if len(current.cards) != 3 or current.shot:
            raise NotNow("no shoot window is open: a hand shoots once, holding three cards, "
                         "before its fourth card (R9.5)", "R9.5")
        amount = self._need_amount(amount, "a shoot bet", "R9.2")
        self._within_kitty(amount)
        self._afford(player, amount, chips)
        index = self.turn_hand
        self._emit(f.ShootBetPlaced(player, index, amount, "fourth_card", Posting(
            player_account(player), self.escrow, amount, "R9.5",
            f"a shoot bet of {amount} before hand {index}'s fourth card", index)))

    def _pass(self, player: str, hand: int | None, amount: int | None, chips: int | None,
              supply: CardSupply) -> None:
        if not self.rules.shoot:
            raise NotAllowed("this table does not play Shoot Pontoon (R9.12)", "R9.12")
        if self.phase == PLAYING:
            raise NotNow("pass belongs to the first shoot round; before the fourth card simply "
                         "buy or twist (R9.5)", "R9.5")
        self._in_round(player, SHOOTING, "R9.3", "passing")
        self._emit(f.ShootPassed(player, False))
        self._continue(supply)

    def _split_hand(self, player: str, hand: int | None, amount: int | None,
                    chips: int | None, supply: CardSupply) -> None:
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
        if amount is not None:
            amount = self._need_amount(amount, "a shoot bet on the new hand", "R9.6")
            self._within_kitty(amount)
        self._afford(player, current.initial + (amount or 0), chips)
        index = self.turn_hand
        self._emit(f.HandSplit(player, index, current.initial, Posting(
            player_account(player), self.escrow, current.initial, "R5.1",
            f"hand {index} splits: a second stake of {current.initial} on the new hand",
            index + 1)))
        if amount:
            self._emit(f.ShootBetPlaced(player, index + 1, amount, "split", Posting(
                player_account(player), self.escrow, amount, "R9.6",
                f"a shoot bet of {amount} on the new hand {index + 1} when splitting",
                index + 1)))
        self._deal(player, index, False, "R5.2", supply)
        self._deal(player, index + 1, False, "R5.2", supply)
        self._formed(player, index)
        self._formed(player, index + 1)
        self._next_turn()

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
        self._deal(player, index, False, "R10.8", supply)
        self._deal(player, index, False, "R10.8", supply)
        self._formed(player, index)
        self._next_turn()

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
        self._emit(f.CardBought(player, index, amount, Posting(
            player_account(player), self.escrow, amount, "R4.3",
            f"hand {index} buys its {nth} card for {amount}", index)))
        self._deal(player, index, False, "R4.3", supply)
        self._formed(player, index)
        self._next_turn()

    def _twist(self, player: str, hand: int | None, amount: int | None, chips: int | None,
               supply: CardSupply) -> None:
        self._hand_in_turn(player, hand, "twist")
        index = self.turn_hand
        self._emit(f.HandTwisted(player, index))
        self._deal(player, index, True, "R4.4", supply)
        self._formed(player, index)
        self._next_turn()

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


def buy_range(hand: Hand) -> tuple[int, int]:
    """R4.3: the third card costs the initial stake to twice it; later ones at most the last."""
    if len(hand.cards) == 2:
        return hand.initial, 2 * hand.initial
    return hand.initial, hand.bought[-1] if hand.bought else hand.initial


_HANDLERS: dict[str, str] = {
    "stake": "_stake", "shoot": "_shoot", "pass": "_pass", "split": "_split_hand",
    "buy": "_buy", "twist": "_twist", "stick": "_stick", "burn": "_burn",
    "double": "_double", "decline": "_decline", "draw": "_draw", "stay": "_stay"}


