"""Statements: every entry on every account with the balance after it (R11). A kitty's
statement is its table's kitty history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.aggregates import Account
from projections.base import ReadModel, at
from projections.store import ReadStore, Statement

INSERT = ("INSERT INTO postings (account, position, posting_id, at, change, balance_after, "
          "from_account, to_account, amount, rule, reason, deal_id, table_id, hand) "
          "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
COLUMNS = ("account, position, posting_id, at, change, balance_after, from_account, "
           "to_account, amount, rule, reason, deal_id, table_id, hand")


class StatementsModel(ReadModel):
    name = "statements"
    reads = (Account.Credited, Account.Debited)
    tables = ("postings",)

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        credit = isinstance(event, Account.Credited)
        account = event.to_account if credit else event.from_account
        yield INSERT, (account, position, event.posting_id, at(event),
                       event.amount if credit else -event.amount, event.balance_after,
                       event.from_account, event.to_account, event.amount, event.rule,
                       event.reason, event.deal_id, event.table_id, event.hand)


def statement(store: ReadStore, account: str, *, after: int = 0, limit: int = 50
              ) -> list[dict[str, Any]]:
    """Entries after position `after`, oldest first (cursor paging)."""
    return store.rows(f"SELECT {COLUMNS} FROM postings WHERE account = %s AND position > %s "
                      "ORDER BY position LIMIT %s", (account, after, limit))


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


def entries_between(store: ReadStore, start: str, end: str, *, kind: str | None = None
                    ) -> list[dict[str, Any]]:
    """Every entry in a period, for the treasurer's CSV export."""
    prefix = f"{kind}:%" if kind else "%"
    return store.rows(f"SELECT {COLUMNS} FROM postings WHERE at >= %s AND at < %s AND "
                      "account LIKE %s ORDER BY position, account", (start, end, prefix))
