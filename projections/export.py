"""CSV exports for treasurers (`pontoon export`)."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from typing import IO

from projections.audit import escrow_balances_at
from projections.balances import balances
from projections.statements import COLUMNS, balance_at, entries_between
from projections.store import ReadStore


def write_csv(store: ReadStore, kind: str, start: datetime, end: datetime,
              handle: IO[str]) -> int:
    """Write one CSV; returns the number of data rows."""
    since, until = _utc(start), _utc(end)
    writer = csv.writer(handle)
    if kind == "balances":
        writer.writerow(["account", "kind", "name", "balance", "as_of"])
        rows = balances(store)
        escrows = escrow_balances_at(store, until)
        for row in rows:
            account = row["account"]
            held = escrows.get(account, 0) if row["kind"] == "escrow" else \
                balance_at(store, account, time=until)
            writer.writerow([account, row["kind"], row["name"], held, until])
        return len(rows)
    entries = entries_between(store, since, until,
                              kind="kitty" if kind == "kitty" else "player")
    writer.writerow([c.strip() for c in COLUMNS.split(",")])
    for entry in entries:
        writer.writerow([entry[c.strip()] for c in COLUMNS.split(",")])
    return len(entries)


def _utc(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
