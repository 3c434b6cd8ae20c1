"""CSV exports for treasurers (`pontoon export`): statements, kitty history or balances, for
a period, a player or a table, with names beside the ids."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

from domain.engine.postings import reason_in_words
from projections.audit import escrow_balances_at
from projections.balances import KIND_RANK
from projections.spreadsheet import SafeWriter
from projections.statements import COLUMNS, balance_at
from projections.store import ReadStore
from projections.tables import fair_shuffles

NAMED = ("account_name", "from_name", "to_name", "table_name", "deal_number")


@dataclass(frozen=True)
class Selection:
    """What to export: `start` inclusive, `end` exclusive (RFC 3339 UTC text, or None for
    open); one player's or one table's entries only when given."""

    start: str | None = None
    end: str | None = None
    player: str | None = None
    table: str | None = None


def write_csv(store: ReadStore, kind: str, selection: Selection, handle: IO[str], *,
              now: str) -> int:
    """Write one CSV, a header and its rows only (a spreadsheet reads nothing else: the
    checkpoint goes beside it, decision 147); returns the number of data rows. Balances are
    as of `selection.end`, or `now` when the period is open."""
    writer = SafeWriter(handle)  # names are the clients': never a formula (CSV injection)
    names = Names(store)
    if kind == "balances":
        rows = _balances(store, selection, selection.end or now, names, writer)
    else:
        rows = _postings(store, kind, selection, names, writer)
    return rows


def _postings(store: ReadStore, kind: str, selection: Selection, names: Names,
              writer: SafeWriter) -> int:
    """Statement or kitty entries; after the ids, whether a deal's entry came from a fair
    shuffle (false at a table with an ordered pack, API.md; empty for entries of no deal),
    then the names beside the ids."""
    columns = [c.strip() for c in COLUMNS.split(",")]
    writer.writerow([*columns, "fair_shuffle", *NAMED])
    fair = fair_shuffles(store)
    rows = 0
    for entry in _entries(store, "kitty" if kind == "kitty" else "player", selection):
        table_id = entry["table_id"] or names.table_of(entry["deal_id"])  # corrections
        shown = "" if not entry["deal_id"] or table_id not in fair else \
            str(fair[table_id]).lower()
        entry["reason"] = reason_in_words(entry["reason"], entry["hand"])
        writer.writerow([*(entry[c] for c in columns), shown,
                         names.account(entry["account"]),
                         names.account(entry["from_account"]),
                         names.account(entry["to_account"]),
                         names.tables.get(entry["table_id"] or "", ""),
                         names.deal_numbers.get(entry["deal_id"] or "", "")])
        rows += 1
    return rows


def _entries(store: ReadStore, kind: str, selection: Selection) -> list[dict[str, Any]]:
    where, params = "account LIKE %s", [f"{kind}:%"]
    for clause, value in (("at >= %s", selection.start), ("at < %s", selection.end),
                          ("account = %s", selection.player and f"player:{selection.player}"),
                          ("table_id = %s", selection.table)):
        if value is not None:
            where += f" AND {clause}"
            params.append(value)
    return store.rows(f"SELECT {COLUMNS} FROM postings WHERE {where} "
                      "ORDER BY position, account", params)


def _balances(store: ReadStore, selection: Selection, as_of: str, names: Names,
              writer: SafeWriter) -> int:
    """Players by name, then kitties, the treasury and the stakes still on a table at
    `as_of` (an escrow holding nothing is left out: it adds 0 to the total)."""
    writer.writerow(["account", "kind", "name", "balance", "as_of"])
    accounts = store.rows(f"SELECT account, kind FROM accounts ORDER BY {KIND_RANK}, "
                          "COALESCE(name_key, ''), account")
    escrows = escrow_balances_at(store, as_of)
    rows = 0
    for row in accounts:
        account = row["account"]
        if selection.player and account != f"player:{selection.player}":
            continue
        if selection.table and account not in (f"kitty:{selection.table}",):
            continue
        held = escrows.get(account, 0) if row["kind"] == "escrow" else \
            balance_at(store, account, time=as_of)
        if row["kind"] == "escrow" and held == 0:
            continue
        writer.writerow([account, row["kind"], names.account(account), held, as_of])
        rows += 1
    return rows


class Names:
    """Players' and tables' names, and deals' numbers, for the columns beside the ids."""

    def __init__(self, store: ReadStore) -> None:
        self.players = {r["owner"]: r["name"] for r in store.rows(
            "SELECT owner, name FROM accounts WHERE kind = 'player'")}
        self.tables = {r["table_id"]: r["name"] for r in store.rows(
            "SELECT table_id, name FROM tables")}
        self.deals = {r["deal_id"]: (r["table_id"], r["number"]) for r in store.rows(
            "SELECT deal_id, table_id, number FROM deals")}
        self.deal_numbers = {deal: number for deal, (_, number) in self.deals.items()}

    def table_of(self, deal_id: str | None) -> str | None:
        table = self.deals.get(deal_id or "", (None, None))[0]
        return None if table is None else str(table)

    def account(self, account: str) -> str:
        kind, _, owner = account.partition(":")
        if kind == "player":
            return str(self.players.get(owner, ""))
        if kind == "kitty":
            return f"kitty of {self.tables.get(owner, 'a table')}"
        if kind == "escrow":
            table, number = self.deals.get(owner, ("", None))
            return f"stakes of {self.tables.get(table, 'a table')}, deal {number}"
        return kind


def players_named(store: ReadStore, name: str) -> list[str]:
    """The ids of players with exactly this name (any case), for `--player NAME`."""
    return [r["owner"] for r in store.rows(
        "SELECT owner FROM accounts WHERE kind = 'player' AND name_key = %s",
        (name.casefold(),))]
