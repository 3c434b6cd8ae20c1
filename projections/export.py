"""CSV exports for treasurers (`pontoon export`)."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from typing import IO, Any

from projections.audit import escrow_balances_at
from projections.balances import balances
from projections.statements import COLUMNS, balance_at, entries_between
from projections.store import ReadStore

CHECKPOINT_ROW = "# checkpoint:"


def write_csv(store: ReadStore, kind: str, start: datetime, end: datetime,
              handle: IO[str], checkpoint: str | None = None) -> int:
    """Write one CSV; returns the number of data rows. With a `checkpoint` (`POSITION
    HASH`, the log sealed when the export was made), a last row `# checkpoint: POSITION
    HASH` carries it, to keep with the export and check with `pontoon verify --checkpoint`."""
    rows = _write_rows(store, kind, start, end, csv.writer(handle))
    if checkpoint is not None:
        csv.writer(handle).writerow([f"{CHECKPOINT_ROW} {checkpoint}"])
    return rows


def _write_rows(store: ReadStore, kind: str, start: datetime, end: datetime,
                writer: Any) -> int:
    since, until = _utc(start), _utc(end)
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
