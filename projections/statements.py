"""Statements: every entry on every account with the balance after it (R11). A kitty's
statement is its table's kitty history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.aggregates import TREASURY_ID, Account
from domain.engine.postings import TREASURY
from projections.base import ReadModel, at
from projections.store import ReadStore, Statement

INSERT = ("INSERT INTO postings (account, position, posting_id, at, change, balance_after, "
          "from_account, to_account, amount, rule, reason, deal_id, table_id, hand) "
          "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
COLUMNS = ("account, position, posting_id, at, change, balance_after, from_account, "
           "to_account, amount, rule, reason, deal_id, table_id, hand")
# The treasury's entries are written from their counterparts' (it keeps none of its own,
# application/base.py `_post`): its balance after each is the one before plus the change,
# read from its own last row in the same transaction, so rows stay in position order.
TREASURY_INSERT = (
    "INSERT INTO postings (account, position, posting_id, at, change, balance_after, "
    "from_account, to_account, amount, rule, reason, deal_id, table_id, hand) "
    "SELECT %s, %s, %s, %s, %s, COALESCE((SELECT balance_after FROM postings WHERE "
    "account = 'treasury' ORDER BY position DESC LIMIT 1), 0) + %s, %s, %s, %s, %s, %s, "
    "%s, %s, %s")


class StatementsModel(ReadModel):
    name = "statements"
    reads = (Account.Credited, Account.Debited)
    tables = ("postings",)

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        if event.originator_id == TREASURY_ID:
            return  # a store's own treasury entries from before: see TREASURY_INSERT
        credit = isinstance(event, Account.Credited)
        account = event.to_account if credit else event.from_account
        change = event.amount if credit else -event.amount
        posting = (event.from_account, event.to_account, event.amount, event.rule,
                   event.reason, event.deal_id, event.table_id, event.hand)
        yield INSERT, (account, position, event.posting_id, at(event), change,
                       event.balance_after, *posting)
        if TREASURY in (event.from_account, event.to_account):
            yield TREASURY_INSERT, (TREASURY, position, event.posting_id, at(event), -change,
                                    -change, *posting)


def statement(store: ReadStore, account: str, *, after: int | None = None, limit: int = 50,
              start: str | None = None, end: str | None = None, descending: bool = False
              ) -> list[dict[str, Any]]:
    """Entries recorded in [start, end) when given, oldest first (or newest first), after
    the position `after` in that order (cursor paging)."""
    where, params = _period("account = %s", [account], start, end)
    if after is not None:
        where += " AND position < %s" if descending else " AND position > %s"
        params.append(after)
    order = "DESC" if descending else "ASC"
    return store.rows(f"SELECT {COLUMNS} FROM postings WHERE {where} "
                      f"ORDER BY position {order} LIMIT %s", (*params, limit))


# One row per deal, one per posting outside deals (buy-ins, cash-outs, kitty put-ups) and
# one per correction (R11.4: it names the disputed deal but is recorded later, on its own).
_GROUP = "CASE WHEN deal_id IS NULL OR rule = 'R11.4' THEN posting_id ELSE deal_id END"


def deal_nets(store: ReadStore, account: str, *, after: int | None = None, limit: int = 50,
              start: str | None = None, end: str | None = None, descending: bool = False
              ) -> list[dict[str, Any]]:
    """The account's net change per deal (and each posting outside a deal on its own row),
    ordered by the position of each group's last entry, which is also the cursor."""
    where, params = _period("account = %s", [account], start, end)
    having, order = "", "DESC" if descending else "ASC"
    if after is not None:
        having = " HAVING MAX(position) < %s" if descending else " HAVING MAX(position) > %s"
        params.append(after)
    groups = store.rows(
        "SELECT MAX(deal_id) AS deal_id, MAX(table_id) AS table_id, MIN(at) AS at, "
        "MAX(at) AS last_at, MIN(position) AS first_position, MAX(position) AS position, "
        "SUM(change) AS net, COUNT(*) AS postings, MIN(rule) AS rule, MIN(reason) AS reason, "
        "MIN(posting_id) AS posting_id, "
        f"MAX(CASE WHEN rule = 'R11.4' THEN 1 ELSE 0 END) AS correction FROM postings "
        f"WHERE {where} GROUP BY {_GROUP}{having} ORDER BY MAX(position) {order} LIMIT %s",
        (*params, limit))
    if not groups:
        return []
    marks = ", ".join(["%s"] * len(groups))
    after_rows = store.rows(f"SELECT position, balance_after FROM postings WHERE account = %s "
                            f"AND position IN ({marks})",
                            (account, *(g["position"] for g in groups)))
    balance = {row["position"]: row["balance_after"] for row in after_rows}
    for group in groups:
        group["balance_after"] = balance[group["position"]]
        group["net"] = int(group["net"])  # PostgreSQL sums BIGINT as NUMERIC
        in_deal = group["deal_id"] is not None and not group["correction"]
        group["kind"] = "deal" if in_deal else "correction" if group["correction"] \
            else "posting"
        if in_deal:
            group["rule"] = group["reason"] = None
        del group["correction"]
    return groups


def _period(where: str, params: list[Any], start: str | None, end: str | None
            ) -> tuple[str, list[Any]]:
    """`from` and `to` compare with a posting's `at`: from inclusive, to exclusive."""
    if start is not None:
        where += " AND at >= %s"
        params.append(start)
    if end is not None:
        where += " AND at < %s"
        params.append(end)
    return where, params


def balance_at(store: ReadStore, account: str, *, position: int | None = None,
               time: str | None = None) -> int:
    """The balance after the last entry at or before a position or a time."""
    if position is not None:
        rows = store.rows("SELECT balance_after FROM postings WHERE account = %s AND "
                          "position <= %s ORDER BY position DESC LIMIT 1", (account, position))
    else:
        rows = store.rows("SELECT balance_after FROM postings WHERE account = %s AND "
                          "at <= %s ORDER BY position DESC LIMIT 1", (account, time))
    return int(rows[0]["balance_after"]) if rows else 0


def entry_count(store: ReadStore, account: str, *, start: str | None = None,
                end: str | None = None, by_deal: bool = False) -> int:
    """How many rows `statement` (or, `by_deal`, `deal_nets`) holds for the period: what a
    printed page that shows some of them says it leaves out."""
    where, params = _period("account = %s", [account], start, end)
    counted = f"COUNT(DISTINCT {_GROUP})" if by_deal else "COUNT(*)"
    return int(store.rows(f"SELECT {counted} AS n FROM postings WHERE {where}", params)[0]["n"])
