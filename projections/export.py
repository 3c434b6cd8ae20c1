"""CSV exports for treasurers (`pontoon export`)."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from typing import IO, Any

from projections.audit import deal_row, escrow_balances_at
from projections.balances import balances
from projections.statements import COLUMNS, balance_at, entries_between
from projections.store import ReadStore
from projections.tables import fair_shuffles

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
    # The last column says whether a deal's entry came from a fair shuffle: false at a table
    # with an ordered pack (API.md), empty for entries of no deal.
    columns = [c.strip() for c in COLUMNS.split(",")]
    writer.writerow([*columns, "fair_shuffle"])
    fair = fair_shuffles(store)
    for entry in entries:
        table_id = entry["table_id"] or _table_of(store, entry["deal_id"])  # corrections
        shown = "" if not entry["deal_id"] or table_id not in fair else \
            str(fair[table_id]).lower()
        writer.writerow([*(entry[c] for c in columns), shown])
    return len(entries)


def _table_of(store: ReadStore, deal_id: str | None) -> str | None:
    row = deal_row(store, deal_id) if deal_id else None
    return row["table_id"] if row else None


def _utc(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
