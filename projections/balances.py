"""Balances of every account (R11.1): players, the treasury, kitties and deals' escrows.

Each posting is applied whole at one of its two entries (the credit, or the debit when the
credit is a deal's escrow, which has no account events), so the total of all balances is
zero after every event, not only after every command.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.aggregates import Account
from projections.base import ReadModel
from projections.store import ReadStore, Statement

UPSERT = ("INSERT INTO accounts (account, kind, owner, name, balance, position) "
          "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (account) DO UPDATE SET "
          "balance = accounts.balance + excluded.balance, position = excluded.position")
OPENED = ("INSERT INTO accounts (account, kind, owner, name, balance, position) "
          "VALUES (%s, %s, %s, %s, 0, %s) ON CONFLICT (account) DO UPDATE SET "
          "kind = excluded.kind, owner = excluded.owner, name = excluded.name")


def account_name(kind: str, owner: str | None) -> str:
    return "treasury" if kind == "treasury" else f"{kind}:{owner}"


def _kind_and_owner(account: str) -> tuple[str, str | None]:
    kind, _, owner = account.partition(":")
    return kind, owner or None


class BalancesModel(ReadModel):
    name = "balances"
    reads = (Account.Opened, Account.Credited, Account.Debited)
    tables = ("accounts",)

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        if isinstance(event, Account.Opened):
            yield OPENED, (account_name(event.kind, event.owner), event.kind, event.owner,
                           event.name, position)
        elif isinstance(event, Account.Credited) or event.to_account.startswith("escrow:"):
            for account, change in ((event.from_account, -event.amount),
                                    (event.to_account, event.amount)):
                kind, owner = _kind_and_owner(account)
                yield UPSERT, (account, kind, owner, None, change, position)


    def compact(self, statements: list[Statement]) -> list[Statement]:
        """A page's changes to one account add up: one row per account, same result."""
        opened = [st for st in statements if st[0] == OPENED]
        net: dict[str, list[Any]] = {}
        for sql, params in statements:
            if sql == UPSERT:
                account, kind, owner, name, change, position = params
                row = net.setdefault(account, [account, kind, owner, name, 0, position])
                row[4] += change
                row[5] = max(row[5], position)
        return [*opened, *((UPSERT, tuple(row)) for row in net.values())]


def balances(store: ReadStore) -> list[dict[str, Any]]:
    return store.rows("SELECT account, kind, owner, name, balance, position FROM accounts "
                      "ORDER BY kind, account")
