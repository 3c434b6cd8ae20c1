"""The state of one deal and how each fact changes it. No decisions are taken here.

Applying a fact must be deterministic and must never draw a card: the card is in the fact.
`Deal` (deal.py) decides; this module only records, so replaying facts rebuilds the deal.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterator
from typing import Any

from domain.engine import facts as f
from domain.engine.deal_hand import Hand
from domain.engine.hands import BUST, OPEN
from domain.engine.postings import Posting, escrow_account, kitty_account
from domain.engine.rules import TableRules
from domain.errors import InvariantBroken, PackOutOfOrder, present

__all__ = ["BANKER", "DEALING", "DOUBLING", "PLAYING", "SETTLED", "SHOOTING", "STAKING",
           "VOID", "DealState"]

STAKING, DOUBLING, SHOOTING, DEALING, PLAYING, BANKER, SETTLED, VOID = (
    "staking", "doubling", "shooting", "dealing", "playing", "banker", "settled", "void")


class DealState(f.FactState):
    """Everything about one deal; rebuilt from facts by `apply`."""

    def __init__(self) -> None:
        self.deal_id = ""
        self.table_id = ""
        self.number = 0
        self.banker = ""
        self.rules = TableRules()
        self.dealt_in: list[str] = []  # every player dealt a first card, in turn order
        self.order: list[str] = []  # those still in the deal (R3.5: less those who sat out)
        self.sat_out: dict[str, str] = {}  # player: why they sat this deal out (R3.5)
        self.unseen: dict[str, list[str]] = {}  # their face-down first card, kept unseen
        self.hands: dict[str, list[Hand]] = {}
        self.pack: deque[str] | None = None
        self.in_play: Counter[str] = Counter()  # recorded mode: cards out of the pack
        self.kitty = 0
        self.shoot_outstanding = 0
        self.commitment: str | None = None
        self.phase = STAKING
        self.turn_index: int | None = None
        self.turn_hand = 0
        self.banker_cards: list[str] = []
        self.banker_face_up: list[bool] = []
        self.doubled = False
        self.postings: list[Posting] = []
        self.settlement: f.DealSettled | None = None
        self.voided: f.DealVoided | None = None
        self.escrow = ""
        self.kitty_account = ""
        self.version = 0

    # --- reading -----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase in (SETTLED, VOID)

    @property
    def turn(self) -> tuple[str, int] | None:
        """Who must act now: (player, hand); the banker's hand is 0."""
        if self.phase in (DOUBLING, BANKER):
            return (self.banker, 0)
        if self.phase in (STAKING, SHOOTING, PLAYING) and self.turn_index is not None:
            return (self.order[self.turn_index], self.turn_hand)
        return None

    def still_to_stake(self) -> list[str]:
        """The players whose stake is still to come, the one in turn first (R3.5)."""
        if self.phase != STAKING or self.turn_index is None:
            return []
        return self.order[self.turn_index:]

    def all_hands(self) -> Iterator[tuple[str, int, Hand]]:
        """Every player hand in table order (R1.5): players in turn, hands in play order."""
        for player in self.order:
            for index, hand in enumerate(self.hands[player]):
                yield player, index, hand

    def outstanding_shoot_bets(self) -> int:
        """Shoot bets of hands still standing (a bust hand's bet went to the kitty, R9.7)."""
        return self.shoot_outstanding

    def shoot_room(self) -> int:
        """R9.2: what may still be shot: the kitty less every shoot bet outstanding."""
        return self.kitty - self.outstanding_shoot_bets()

    # --- applying ----------------------------------------------------------------------

    def apply(self, fact: f.Fact) -> None:
        _APPLY[type(fact)](self, fact)
        self.version += 1

    def _started(self, e: f.DealStarted) -> None:
        self.deal_id, self.table_id, self.number = e.deal_id, e.table_id, e.number
        self.banker, self.order, self.dealt_in = e.banker, list(e.players), list(e.players)
        self.rules = TableRules.from_dict(e.rules)
        self.hands = {player: [Hand()] for player in self.order}
        self.pack = deque(e.pack) if e.pack is not None else None
        self.kitty, self.commitment = e.kitty, e.commitment
        self.escrow, self.kitty_account = escrow_account(e.deal_id), kitty_account(e.table_id)
        self.phase, self.turn_index, self.turn_hand = STAKING, 0, 0

    def _card_dealt(self, e: f.CardDealt) -> None:
        if self.pack is not None:
            top = self.pack.popleft()
            if top != e.card:
                raise PackOutOfOrder(f"deal {self.deal_id} deals {e.card}, but its pack's top "
                                     f"card is {top}", "R1.4")
        else:
            self.in_play[e.card] += 1
        if e.player == self.banker:
            self.banker_cards.append(e.card)
            self.banker_face_up.append(e.face_up)
        else:
            hand = self.hands[e.player][e.hand]
            hand.cards.append(e.card)
            hand.face_up.append(e.face_up)

    def _stake_placed(self, e: f.StakePlaced) -> None:
        hand = self.hands[e.player][0]
        hand.stake = hand.initial = e.amount
        self.postings.append(e.posting)
        self._next_in_round(after_staking=True)

    def _sat_out(self, e: f.PlayerSatOut) -> None:
        """R3.5: the player leaves the turn order; their first card stays unseen and goes to
        the bottom of the pack with the other used cards at the end of the deal (R1.4)."""
        if self.turn_index is None or self.order[self.turn_index] != e.player:
            raise InvariantBroken(f"{e.player} sits deal {self.deal_id} out out of turn",
                                  "R3.5", invariant="only the player in turn sits out")
        self.unseen[e.player] = self.hands.pop(e.player)[0].cards
        self.order.remove(e.player)
        self.sat_out[e.player] = e.reason
        self._end_of_round(after_staking=True)

    def _banker_doubled(self, e: f.BankerDoubled) -> None:
        self.doubled = True
        self._after_doubling()

    def _banker_declined(self, e: f.BankerDeclinedToDouble) -> None:
        self._after_doubling()

    def _after_doubling(self) -> None:
        self.phase = SHOOTING if self.rules.shoot else DEALING
        self.turn_index = 0 if self.rules.shoot else None

    def _shot(self, e: f.ShootBetPlaced) -> None:
        hand = self.hands[e.player][e.hand]
        hand.shoot_bet += e.amount
        self.shoot_outstanding += e.amount
        self.postings.append(e.posting)
        if e.window == "first_round":
            self._next_in_round(after_staking=False)
        elif e.window == "fourth_card":
            hand.shot = True

    def _passed(self, e: f.ShootPassed) -> None:
        self._next_in_round(after_staking=False)

    def _next_in_round(self, *, after_staking: bool) -> None:
        self.turn_index = present(self.turn_index, "the turn of a round in progress") + 1
        self._end_of_round(after_staking=after_staking)

    def _end_of_round(self, *, after_staking: bool) -> None:
        """Past the last player the round is over; with nobody left the deal is void next."""
        if self.turn_index is None or self.turn_index < len(self.order):
            return
        self.turn_index = None
        if not self.order:
            return
        if after_staking and self.rules.banker_may_double:
            self.phase = DOUBLING
        elif after_staking and self.rules.shoot:
            self.phase, self.turn_index = SHOOTING, 0
        else:
            self.phase = DEALING

    def _bought(self, e: f.CardBought) -> None:
        hand = self.hands[e.player][e.hand]
        hand.stake += e.amount
        hand.bought.append(e.amount)
        hand.acted = True
        self.postings.append(e.posting)

    def _twisted(self, e: f.HandTwisted) -> None:
        hand = self.hands[e.player][e.hand]
        hand.twisted = hand.acted = True

    def _split(self, e: f.HandSplit) -> None:
        hands = self.hands[e.player]
        old = hands[e.hand]
        new = Hand([old.cards.pop()], [True])
        old.face_up[0] = True
        del old.face_up[1:]
        new.stake = new.initial = e.stake
        old.split = new.split = True
        hands.insert(e.hand + 1, new)
        self.postings.append(e.posting)

    def _burned(self, e: f.HandBurned) -> None:
        hand = self.hands[e.player][e.hand]
        self._return_cards(hand.cards)
        hand.cards, hand.face_up, hand.acted = [], [], False

    def _finished(self, e: f.HandStuck | f.HandFinished) -> None:
        status = e.status if isinstance(e, f.HandFinished) else "stuck"
        hand = self.hands[e.player][e.hand]
        hand.status = status
        if status in ("pontoon", "royal_pontoon"):  # declared, so shown (R4.1, R6.1)
            hand.face_up = [True] * len(hand.cards)
        self._advance(e.player, e.hand)

    def _busted(self, e: f.HandBusted) -> None:
        hand = self.hands[e.player][e.hand]
        hand.status = BUST
        hand.face_up = [True] * len(hand.cards)
        self._return_cards(hand.cards)
        hand.returned = True
        self.shoot_outstanding -= hand.shoot_bet
        for posting in e.postings:
            self.postings.append(posting)
            if posting.to_account == self.kitty_account:
                self.kitty += posting.amount
        self._advance(e.player, e.hand)

    def _turns_began(self, e: f.PlayersTurnsBegan) -> None:
        self.phase = PLAYING
        self.turn_index, self.turn_hand = -1, 0
        self._advance(None, 0)

    def _banker_turn(self, e: f.BankerTurnBegan) -> None:
        self.phase = BANKER
        self.banker_face_up = [True] * len(self.banker_cards)

    def _banker_stayed(self, e: f.BankerStayed) -> None:
        pass

    def _settled(self, e: f.DealSettled) -> None:
        self.phase, self.settlement, self.kitty = SETTLED, e, e.kitty_after
        self.postings.extend(e.postings)
        self.turn_index = None
        self._reveal_all()

    def _voided(self, e: f.DealVoided) -> None:
        self.phase, self.voided, self.kitty = VOID, e, e.kitty_after
        self.postings.extend(e.postings)
        self.turn_index = None
        self._reveal_all()

    def _reveal_all(self) -> None:
        for _, _, hand in self.all_hands():
            hand.face_up = [True] * len(hand.cards)
        self.banker_face_up = [True] * len(self.banker_cards)

    def _return_cards(self, cards: list[str]) -> None:
        """To the bottom of the pack, under every card still in it (R1.5, R4.7, R10.8)."""
        if self.pack is not None:
            self.pack.extend(cards)
        else:
            self.in_play.subtract(cards)

    def _advance(self, player: str | None, hand: int) -> None:
        """When the hand in turn finishes, the turn moves to the next open hand (R4, R4.9)."""
        if self.phase != PLAYING or self.turn_index is None:
            return
        if player is not None and (self.order[self.turn_index], self.turn_hand) != (player, hand):
            return
        index, hand_index = self.turn_index, self.turn_hand + 1
        if index < 0:
            index, hand_index = 0, 0
        while index < len(self.order):
            hands = self.hands[self.order[index]]
            while hand_index < len(hands):
                if hands[hand_index].status == OPEN:
                    self.turn_index, self.turn_hand = index, hand_index
                    return
                hand_index += 1
            index, hand_index = index + 1, 0
        self.turn_index, self.turn_hand = None, 0


_APPLY: dict[type[f.Fact], Callable[[Any, Any], None]] = {
    f.DealStarted: DealState._started, f.CardDealt: DealState._card_dealt,
    f.StakePlaced: DealState._stake_placed, f.PlayerSatOut: DealState._sat_out,
    f.BankerDoubled: DealState._banker_doubled,
    f.BankerDeclinedToDouble: DealState._banker_declined, f.ShootBetPlaced: DealState._shot,
    f.ShootPassed: DealState._passed, f.CardBought: DealState._bought,
    f.HandTwisted: DealState._twisted, f.HandSplit: DealState._split,
    f.HandBurned: DealState._burned, f.HandStuck: DealState._finished,
    f.HandFinished: DealState._finished, f.HandBusted: DealState._busted,
    f.PlayersTurnsBegan: DealState._turns_began, f.BankerTurnBegan: DealState._banker_turn,
    f.BankerStayed: DealState._banker_stayed, f.DealSettled: DealState._settled,
    f.DealVoided: DealState._voided,
}
