"""One hand of a player in a deal: its cards, stake, buys and what it has done (R4, R5.5)."""

from __future__ import annotations

from typing import Any

from domain.engine.hands import OPEN
from domain.engine.sealed import SealedList, sealed_class


class Hand:
    """One set of cards with its own stake, buy history and twist state (R5.5)."""

    __slots__ = ("cards", "face_up", "stake", "initial", "shoot_bet", "status", "bought",
                 "twisted", "split", "acted", "shot", "returned")

    def __init__(self, cards: list[str] | None = None, face_up: list[bool] | None = None) -> None:
        self.cards: list[str] = cards or []
        self.face_up: list[bool] = face_up or []
        self.stake = 0
        self.initial = 0
        self.shoot_bet = 0
        self.status = OPEN
        self.bought: list[int] = []
        self.twisted = False
        self.split = False  # formed by splitting (R2.5: its pontoon does not take the bank)
        self.acted = False  # any action taken, which closes split and burn (R5.1, R10.8)
        self.shot = False  # the fourth-card shoot window was used (R9.5)
        self.returned = False  # its cards already went to the bottom of the pack (R4.7)

    def __deepcopy__(self, memo: dict[int, Any]) -> Hand:
        """An independent copy, without `copy.deepcopy`'s generic walk."""
        clone = Hand.__new__(Hand)
        clone.cards, clone.face_up, clone.bought = \
            list(self.cards), list(self.face_up), list(self.bought)
        clone.stake, clone.initial, clone.shoot_bet = self.stake, self.initial, self.shoot_bet
        clone.status, clone.twisted, clone.split = self.status, self.twisted, self.split
        clone.acted, clone.shot, clone.returned = self.acted, self.shot, self.returned
        return clone

    def seal(self) -> None:
        """Make this hand read-only in place (domain/engine/sealed.py): the process's cache
        shares it between threads."""
        if type(self) is not Hand:
            return  # sealed already
        setting = object.__setattr__
        setting(self, "cards", SealedList(self.cards))
        setting(self, "face_up", SealedList(self.face_up))
        setting(self, "bought", SealedList(self.bought))
        setting(self, "__class__", sealed_class(Hand))

    def snapshot(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in Hand.__slots__}
