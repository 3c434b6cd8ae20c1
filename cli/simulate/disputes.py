"""Disputes at a simulated club: now and then a player (or the operator) disputes a deal
just played, and the treasurer resolves it later that night, upholding most with a
correcting posting from the banker to the player (R11.4), a debt now and then (R11.3)."""

from __future__ import annotations

from dataclasses import dataclass

from cli.simulate.books import OPERATOR, TREASURER, Books
from domain.aggregates import DealAggregate
from domain.errors import PontoonError

DISPUTE_CHANCE = 1 / 140  # of settled deals (a month of 2,049 deals had 14)
UPHELD = 0.6
REASONS = ("the banker's total was misread", "a card was dealt out of turn",
           "my stake was taken twice", "the shoot bet was not paid",
           "the banker paid the wrong hand")
NOTES = ("one chip back to the player", "the payment is corrected",
         "the stake is returned")


@dataclass(frozen=True)
class Raised:
    dispute_id: str
    deal_id: str
    banker: str
    player: str  # the player the correction would go to


class Disputes:
    def __init__(self, books: Books) -> None:
        self.books, self.ledger, self.rng = books, books.ledger, books.rng

    def maybe_raise(self, deal: DealAggregate) -> Raised | None:
        """Now and then a settled deal is disputed, by one of its players or the operator."""
        engine = deal.engine
        others = [p for p in engine.dealt_in if p != engine.banker]
        if engine.phase == "void" or not others or self.rng.random() >= DISPUTE_CHANCE:
            return None
        player = self.rng.choice(others)
        raised_by = f"player:{player}" if self.rng.random() < 0.75 else OPERATOR
        try:
            outcome = self.ledger.raise_dispute(str(deal.id), self.rng.choice(REASONS),
                                                raised_by=raised_by)
        except PontoonError:
            self.books.tally.refusals += 1
            return None
        self.books.tally.disputes += 1
        return Raised(str(outcome.result["id"]), str(deal.id), engine.banker, player)

    def resolve(self, raised: Raised) -> None:
        """The treasurer's decision: upheld with a correction of a few chips from the banker,
        allowing a debt if the banker holds less (R11.3, R11.4), or rejected."""
        if self.rng.random() < UPHELD:
            amount = self.rng.randint(1, 3)
            held = self.books.chips.get(raised.banker, 0)
            correction = {"from_account": f"player:{raised.banker}",
                          "to_account": f"player:{raised.player}", "amount": amount}
            try:
                self.books.absorb(self.ledger.resolve_dispute(
                    raised.dispute_id, decision="upheld", note=self.rng.choice(NOTES),
                    corrections=[correction], resolved_by=TREASURER,
                    allow_debt=held < amount))
                self.books.tally.upheld += 1
                return
            except PontoonError:  # e.g. the deal moved fewer chips: rejected instead
                self.books.tally.refusals += 1
        self.ledger.resolve_dispute(raised.dispute_id, decision="rejected",
                                    note="the deal was played as recorded", corrections=[],
                                    resolved_by=TREASURER)
        self.books.tally.rejected += 1
