"""Where a deal's cards come from: the pack's top, or the operator's entries (R1.6, R1.7)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.engine.cards import check_card
from domain.engine.deal_state import DealState
from domain.errors import NotAllowed


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
