"""What happened in each minute (UTC): deals started, entries on accounts, chips issued and
redeemed by the treasury, the kitties' change and disputes raised.

Club days are summed from these minutes when they are read (projections/days.py), under the
calendar of that moment: a change of time zone moves no row (docs/decisions.md 105). A
club day starts on a whole minute in every zone in use since 1972.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.aggregates import TREASURY_ID, Account, DealAggregate, Dispute
from domain.engine.postings import TREASURY
from projections.base import ReadModel, at
from projections.store import Statement

COLUMNS = ("deals", "postings", "chips_issued", "chips_redeemed", "kitty_change",
           "disputes_raised")
UPSERT = ("INSERT INTO activity (minute, deals, postings, chips_issued, chips_redeemed, "
          "kitty_change, disputes_raised) VALUES (%s, %s, %s, %s, %s, %s, %s) "
          "ON CONFLICT (minute) DO UPDATE SET "
          + ", ".join(f"{c} = activity.{c} + excluded.{c}" for c in COLUMNS))


def minute(at_text: str) -> str:
    """`2026-03-28T19:45`: the minute of a recorded time (RFC 3339 UTC text)."""
    return at_text[:16]


class ActivityModel(ReadModel):
    name = "activity"
    reads = (DealAggregate.DealStarted, Account.Credited, Account.Debited, Dispute.Raised)
    tables = ("activity",)

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        counts = _counts(event)
        if counts is not None:
            yield UPSERT, (minute(at(event)), *counts)

    def compact(self, statements: list[Statement]) -> list[Statement]:
        """A page's rows of one minute add up: one row per minute, same result."""
        net: dict[str, list[Any]] = {}
        for _, (key, *counts) in statements:
            row = net.setdefault(key, [0] * len(COLUMNS))
            for index, count in enumerate(counts):
                row[index] += count
        return [(UPSERT, (key, *row)) for key, row in net.items()]


def _counts(event: Any) -> tuple[int, ...] | None:
    """deals, postings, issued, redeemed, kitty change, disputes of one event."""
    if isinstance(event, DealAggregate.DealStarted):
        return 1, 0, 0, 0, 0, 0
    if isinstance(event, Dispute.Raised):
        return 0, 0, 0, 0, 0, 1
    if event.originator_id == TREASURY_ID:
        return None  # a store's own treasury entries from before: their counterparts count
    credit = isinstance(event, Account.Credited)
    account = event.to_account if credit else event.from_account
    issued = event.amount if credit and event.from_account == TREASURY else 0
    redeemed = event.amount if not credit and event.to_account == TREASURY else 0
    kitty = (event.amount if credit else -event.amount) if account.startswith("kitty:") else 0
    return 0, 1, issued, redeemed, kitty, 0
