"""What happened when, summed for the reports over long periods: by the minute (UTC), the
deals started, entries on accounts, chips issued and redeemed, the kitties' change and
disputes raised (`activity`); by the hour, each account's sums as the period report adds
them up (`account_hours`).

Club days are summed from the minutes when they are read (projections/days.py), under the
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
# The period report's sums of one account (projections/report.py, `SUMS`).
SUMS = ("change", "buy_ins", "cash_outs", "kitty_put_up", "kitty_won", "issued", "redeemed",
        "to_escrow", "corrections", "deals")
HOURLY = (f"INSERT INTO account_hours (hour, account, {', '.join(SUMS)}) VALUES "
          f"(%s, %s, {', '.join(['%s'] * len(SUMS))}) ON CONFLICT (hour, account) DO UPDATE "
          "SET " + ", ".join(f"{c} = account_hours.{c} + excluded.{c}" for c in SUMS))


def minute(at_text: str) -> str:
    """`2026-03-28T19:45`: the minute of a recorded time (RFC 3339 UTC text)."""
    return at_text[:16]


def hour(at_text: str) -> str:
    """`2026-03-28T19`: the hour of a recorded time."""
    return at_text[:13]


class ActivityModel(ReadModel):
    name = "activity"
    reads = (DealAggregate.DealStarted, Account.Credited, Account.Debited, Dispute.Raised)
    tables = ("activity", "account_hours")

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        counts = _counts(event)
        if counts is None:
            return
        when = at(event)
        yield UPSERT, (minute(when), *counts)
        if isinstance(event, DealAggregate.DealStarted):
            fact = event.fact
            for player in sorted({fact["banker"], *fact["players"]}):
                yield HOURLY, (hour(when), f"player:{player}", *[0] * 9, 1)
        elif counts[1]:  # an entry on an account
            yield HOURLY, (hour(when), *_sums(event))

    def compact(self, statements: list[Statement]) -> list[Statement]:
        """A page's rows of one minute (or one account's hour) add up: one row each."""
        net: dict[tuple[str, tuple[Any, ...]], list[Any]] = {}
        for sql, params in statements:
            keys = 2 if sql == HOURLY else 1  # (hour, account) or the minute
            row = net.setdefault((sql, tuple(params[:keys])), [0] * (len(params) - keys))
            for index, count in enumerate(params[keys:]):
                row[index] += count
        return [(sql, (*key, *row)) for (sql, key), row in net.items()]


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


def _sums(entry: Any) -> tuple[Any, ...]:
    """The account of an entry and its share of each of the report's sums (as the report's
    SQL over postings reads the same entry)."""
    credit = isinstance(entry, Account.Credited)
    account = entry.to_account if credit else entry.from_account
    amount, source, target = entry.amount, entry.from_account, entry.to_account
    change = amount if credit else -amount
    r11_1 = entry.rule == "R11.1"
    escrow = amount if target.startswith("escrow:") else \
        -amount if source.startswith("escrow:") else 0
    return (account, change, amount if source == TREASURY and r11_1 else 0,
            amount if target == TREASURY and r11_1 else 0,
            amount if target.startswith("kitty:") else 0,
            amount if source.startswith("kitty:") else 0,
            amount if source == TREASURY else 0, amount if target == TREASURY else 0,
            escrow, change if entry.rule == "R11.4" else 0, 0)
