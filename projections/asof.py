"""Every account as it stood at an instant (API.md, "The club's calendar": as-of balances).

`cutoff` is exclusive: the accounts after every posting recorded before it (a time given by
a client is that instant, so the caller passes the next microsecond; a club day's end is
exclusive already). The total of every account is 0 at every instant:

- a player's or a kitty's balance is its own last entry's `balance_after`: one aggregate's
  entries are stamped in the order they were saved, so that entry counts every one before;
- a posting between two accounts that keep entries stands from its second entry, as the
  balances read model applies it (projections/balances.py): an entry made before the cutoff
  whose posting's other entry was made after it is taken back out (the two are stamped
  within one command, microseconds apart);
- the treasury's entries come from many players' commands, stamped in no single order, so
  its balance is the sum of its entries before the cutoff, not its last `balance_after`;
- a deal's stakes (its escrow, which keeps no entries) are summed from the postings on its
  other side, for the deals that were open then.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from domain.engine.calendar import text
from projections.store import ReadStore

# Both entries of a posting are stamped within one command: far less than this apart.
STRADDLE = timedelta(minutes=1)
LAST_ENTRY = ("(SELECT p.balance_after FROM postings p WHERE p.account = a.account AND "
              "p.at < %s ORDER BY p.at DESC, p.position DESC LIMIT 1)")


def standing(store: ReadStore, cutoff: str, accounts: Sequence[str] | None = None,
             kinds: Sequence[str] = ("player", "kitty", "treasury", "escrow")
             ) -> dict[str, int]:
    """Balances just before `cutoff` of `accounts` (or of every account of `kinds`): only
    those not 0, with the escrows of the deals open then. One query: its parts are the
    module's readings, and the straddling entries taken back out."""
    moment = datetime.fromisoformat(cutoff)
    early, late = text(moment - STRADDLE), text(moment + STRADDLE)
    where, chosen = _which(accounts, kinds)
    parts, params = [], list[Any]()
    if set(kinds) & {"player", "kitty"}:
        parts.append(f"SELECT a.account, {LAST_ENTRY} AS balance FROM accounts a "
                     f"WHERE a.kind IN ('player', 'kitty') AND {where}")
        params += [cutoff, *chosen]
    if "treasury" in kinds and (accounts is None or "treasury" in accounts):
        parts.append("SELECT 'treasury' AS account, COALESCE(SUM(change), 0) AS balance "
                     "FROM postings WHERE account = 'treasury' AND at < %s")
        params.append(cutoff)
    if "escrow" in kinds:
        parts.append(_ESCROWS)
        params += [ESCROW, ESCROW, cutoff, early, cutoff]
    parts.append(_STRADDLING)
    params += [early, cutoff, cutoff, late]
    found: dict[str, int] = defaultdict(int)
    for row in store.rows(" UNION ALL ".join(parts), params):
        if _wanted(row["account"], accounts, kinds):
            found[row["account"]] += int(row["balance"] or 0)
    return {account: balance for account, balance in found.items() if balance}


ESCROW = "escrow:%"
# The stakes on each deal open just before the cutoff, from the other side of its postings
# (an escrow keeps no entries, and each escrow posting has exactly one).
_ESCROWS = ("SELECT 'escrow:' || deal_id AS account, SUM(CASE WHEN to_account LIKE %s THEN "
            "amount WHEN from_account LIKE %s THEN -amount ELSE 0 END) AS balance "
            "FROM postings WHERE deal_id IN (SELECT deal_id FROM deals WHERE started_at < %s "
            "AND (ended_at IS NULL OR ended_at >= %s)) AND at < %s AND account <> 'treasury' "
            "GROUP BY deal_id")
# Entries made before the cutoff whose posting's other entry was made at or after it: the
# posting stands from its second entry, so they are taken back out.
_STRADDLING = ("SELECT e.account, -SUM(e.change) AS balance FROM postings e WHERE e.at >= %s "
               "AND e.at < %s AND e.account <> 'treasury' AND EXISTS (SELECT 1 FROM "
               "postings o WHERE o.posting_id = e.posting_id AND o.at >= %s AND o.at < %s "
               "AND o.account <> e.account AND o.account <> 'treasury') GROUP BY e.account")


def holdings(store: ReadStore) -> Callable[[datetime, datetime, list[str]], dict[str, int]]:
    """What closing a night asks of the read models: each counted player's balance at the
    end of the day (application/club.py `Holdings`)."""
    def held_at_end(start: datetime, end: datetime, accounts: list[str]) -> dict[str, int]:
        found = standing(store, text(end), accounts=accounts, kinds=("player",))
        return {account: found.get(account, 0) for account in accounts}
    return held_at_end


def held(store: ReadStore, cutoff: str | None) -> int:
    """Chips held by players, kitties and the stakes on tables just before `cutoff` (None:
    now): every chip issued and not redeemed (R11.1)."""
    if cutoff is None:
        [now] = store.rows("SELECT COALESCE(SUM(balance), 0) AS held FROM accounts "
                           "WHERE kind <> 'treasury'")
        return int(now["held"])
    return sum(standing(store, cutoff, kinds=("player", "kitty", "escrow")).values())


def _which(accounts: Sequence[str] | None, kinds: Sequence[str]
           ) -> tuple[str, tuple[str, ...]]:
    if accounts is not None:
        if not accounts:
            return "1 = 0", ()
        return f"a.account IN ({', '.join(['%s'] * len(accounts))})", tuple(accounts)
    marks = ", ".join(["%s"] * len(kinds))
    return f"a.kind IN ({marks})", tuple(kinds)


def _wanted(account: str, accounts: Sequence[str] | None, kinds: Sequence[str]) -> bool:
    if accounts is not None:
        return account in accounts
    return account.partition(":")[0] in kinds
