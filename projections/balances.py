"""Balances of every account (R11.1): players, the treasury, kitties and deals' escrows.

Each posting is applied whole at one of its two entries (the credit, or the debit when the
credit side keeps no entries: a deal's escrow, or the treasury, whose side of a posting is
its counterpart's entry), so the total of all balances is zero after every event, not only
after every command. The treasury's own entries, which stores kept before its balance was
derived, are never applied: their counterparts carry the same postings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.aggregates import TREASURY_ID, Account
from domain.engine.postings import TREASURY
from domain.errors import InvariantBroken
from projections.base import ReadModel
from projections.store import ReadStore, Statement

UPSERT = ("INSERT INTO accounts (account, kind, owner, name, balance, position) "
          "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (account) DO UPDATE SET "
          "balance = accounts.balance + excluded.balance, position = excluded.position")
OPENED = ("INSERT INTO accounts (account, kind, owner, name, name_key, balance, position) "
          "VALUES (%s, %s, %s, %s, %s, 0, %s) ON CONFLICT (account) DO UPDATE SET "
          "kind = excluded.kind, owner = excluded.owner, name = excluded.name, "
          "name_key = excluded.name_key")


def name_key(name: str | None) -> str | None:
    """A name folded for case-insensitive prefix search, the same on both stores."""
    return None if name is None else name.casefold()


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
                           event.name, name_key(event.name), position)
        elif _applies_posting(event):
            for account, change in ((event.from_account, -event.amount),
                                    (event.to_account, event.amount)):
                kind, owner = _kind_and_owner(account)
                # The treasury is never opened as an account of its own: it is named here.
                name = TREASURY if account == TREASURY else None
                yield UPSERT, (account, kind, owner, name, change, position)


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


def _applies_posting(entry: Any) -> bool:
    """Whether this entry is the one its posting is applied at (see the module's text)."""
    if entry.originator_id == TREASURY_ID:
        return False
    credit_keeps_entries = not (entry.to_account.startswith("escrow:")
                                or entry.to_account == TREASURY)
    return isinstance(entry, Account.Credited) == credit_keeps_entries


def balances(store: ReadStore) -> list[dict[str, Any]]:
    return store.rows("SELECT account, kind, owner, name, balance, position FROM accounts "
                      "ORDER BY kind, account")


KIND_RANK = "CASE kind WHEN 'player' THEN 0 WHEN 'kitty' THEN 1 WHEN 'treasury' THEN 2 ELSE 3 END"
KINDS = ("player", "kitty", "treasury", "escrow")


def balance_page(store: ReadStore, kinds: Sequence[str], *, after: str | None = None,
                 limit: int = 50) -> list[dict[str, Any]]:
    """Accounts of `kinds`, players first then kitties, the treasury and escrows, by name;
    cursor paging on the account after which the page starts (never OFFSET)."""
    if not kinds or not set(kinds) <= set(KINDS):
        raise InvariantBroken(f"balances are listed by kinds of account among {KINDS}, not "
                              f"{list(kinds)}", invariant="accounts are of a known kind")
    marks = ", ".join(["%s"] * len(kinds))
    where, params = f"kind IN ({marks})", list(kinds)
    if after is not None:
        where += (f" AND ({KIND_RANK}, COALESCE(name_key, ''), account) > "
                  f"(SELECT {KIND_RANK}, COALESCE(name_key, ''), account FROM accounts "
                  "WHERE account = %s)")
        params.append(after)
    return store.rows("SELECT account, kind, owner, name, balance, position FROM accounts "
                      f"WHERE {where} ORDER BY {KIND_RANK}, COALESCE(name_key, ''), account "
                      "LIMIT %s", (*params, limit))


def account_count(store: ReadStore, kinds: Sequence[str]) -> int:
    """How many accounts `balance_page` lists for `kinds`, on all its pages."""
    marks = ", ".join(["%s"] * len(kinds))
    return int(store.rows(f"SELECT COUNT(*) AS n FROM accounts WHERE kind IN ({marks})",
                          list(kinds))[0]["n"])


def balance_totals(store: ReadStore) -> dict[str, int | None]:
    """Over every account whatever a list shows: the total (0, R11.1), the players' debts and
    the last position applied."""
    [row] = store.rows("SELECT COALESCE(SUM(balance), 0) AS total, COALESCE(SUM(CASE WHEN "
                       "kind = 'player' AND balance < 0 THEN balance ELSE 0 END), 0) AS debts, "
                       "MAX(position) AS position FROM accounts")
    return {"total": int(row["total"]), "debts": int(row["debts"]),
            "position": None if row["position"] is None else int(row["position"])}


def account_exists(store: ReadStore, account: str) -> bool:
    return bool(store.rows("SELECT 1 AS found FROM accounts WHERE account = %s", (account,)))


def players(store: ReadStore, *, name: str | None = None, after: str | None = None,
            limit: int = 50) -> list[dict[str, Any]]:
    """Players by name (case-insensitive), optionally those with a word of their name that
    starts with `name` ("quinn" finds Nora Quinn; words are parted by spaces and hyphens);
    cursor paging on the player id after which the page starts."""
    where, params = "kind = 'player'", []
    if name:
        where += (" AND (name_key LIKE %s ESCAPE '\\' OR name_key LIKE %s ESCAPE '\\' "
                  "OR name_key LIKE %s ESCAPE '\\')")
        params += [like_prefix(name), "% " + like_prefix(name), "%-" + like_prefix(name)]
    if after is not None:
        where += (" AND (name_key, account) > (SELECT name_key, account FROM accounts "
                  "WHERE account = %s)")
        params.append(f"player:{after}")
    return store.rows("SELECT owner AS id, name, balance, position FROM accounts "
                      f"WHERE {where} ORDER BY name_key, account LIMIT %s", (*params, limit))


def like_prefix(text: str) -> str:
    """A LIKE pattern matching names that start with `text`, whatever it holds."""
    folded = text.casefold()
    return folded.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
