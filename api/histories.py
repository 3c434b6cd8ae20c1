"""Statements and kitty histories as lists: a period, an order, paging, a per-deal net
view and CSV downloads (API.md, "Lists, filters, downloads")."""

from __future__ import annotations

from typing import Any

from api.calendar import day_texts, with_club_days
from api.common import wants_csv
from api.downloads import PAGE, AccountNames, csv_response, every
from api.reads import page, read_store
from projections.audit import kitty_players
from projections.statements import deal_nets, statement
from projections.store import ReadStore

ENTRY_COLUMNS = ("at", "position", "posting_id", "deal_id", "table", "deal_number", "hand",
                 "from_account", "from_name", "to_account", "to_name", "amount", "change",
                 "balance_after", "rule", "reason", "club_day")
NET_COLUMNS = ("at", "last_at", "position", "kind", "deal_id", "table", "deal_number",
               "postings", "net", "balance_after", "rule", "reason", "club_day")


def history(query: dict[str, Any], account: str, *, filename: str, by_deal: bool = False
            ) -> Any:
    """One account's entries (or its net per deal): a page as JSON, or all of them as CSV."""
    store = read_store(query.get("min_position"))
    fetch = deal_nets if by_deal else statement
    options = {"start": query.get("start"), "end": query.get("end"),
               "descending": query["order"] == "desc"}
    days = day_texts()  # taken now: a CSV's rows are read after the request has ended
    if wants_csv(query):
        words = AccountNames(store)
        rows = every(lambda after: _numbered(store, fetch(store, account, after=after,
                                                          limit=PAGE, **options)), "position")
        return csv_response(({**_named(row, words), "club_day": days(row["at"])}
                             for row in rows), NET_COLUMNS if by_deal else ENTRY_COLUMNS,
                            filename)
    rows = fetch(store, account, after=query.get("after"), limit=query["limit"], **options)
    if account.startswith("kitty:") and not by_deal:
        whose = kitty_players(store, {row["deal_id"] for row in rows if row["deal_id"]})
        for row in rows:
            row["player_id"] = whose.get(row["posting_id"]) or player_of(row)
    with_club_days(rows, "at")
    return page(_numbered(store, rows) if by_deal else rows, query["limit"])


def player_of(row: dict[str, Any]) -> str | None:
    """The player on the other side of a kitty's entry, when it is a player's account."""
    other = row["from_account"] if row["change"] > 0 else row["to_account"]
    return other.partition(":")[2] if other.startswith("player:") else None


def _numbered(store: ReadStore, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its deal's number, in one query for the page."""
    deal_ids = sorted({row["deal_id"] for row in rows if row.get("deal_id")})
    numbers: dict[str, int] = {}
    if deal_ids:
        marks = ", ".join(["%s"] * len(deal_ids))
        numbers = {r["deal_id"]: r["number"] for r in store.rows(
            f"SELECT deal_id, number FROM deals WHERE deal_id IN ({marks})", deal_ids)}
    for row in rows:
        row["number"] = numbers.get(row.get("deal_id") or "")
    return rows


def _named(row: dict[str, Any], words: AccountNames) -> dict[str, Any]:
    return {**row, "from_name": words(row.get("from_account")),
            "to_name": words(row.get("to_account")),
            "table": words.tables.get(row.get("table_id") or "", ""),
            "deal_number": row.get("number")}
