"""The period report (a club night, a month): each player's result and the checks that the
period balances, from the read models alone (postings, deals, disputes), never the log.

`start` is inclusive and `end` exclusive, both compared with a posting's `at` (or a deal's
start, a dispute's raising); None leaves that side open.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from projections.store import ReadStore

# Chips a player received from the treasury (R11.1) or returned to it, and what moved
# between the player and a kitty, per player over the period; corrections (R11.4) count in
# the player's net, not as buy-ins or cash-outs.
_PER_ACCOUNT = (
    "SELECT account, SUM(change) AS change, "
    "SUM(CASE WHEN from_account = 'treasury' AND rule = 'R11.1' THEN amount ELSE 0 END) "
    "AS buy_ins, "
    "SUM(CASE WHEN to_account = 'treasury' AND rule = 'R11.1' THEN amount ELSE 0 END) "
    "AS cash_outs, "
    "SUM(CASE WHEN to_account LIKE %s THEN amount ELSE 0 END) AS kitty_put_up, "
    "SUM(CASE WHEN from_account LIKE %s THEN amount ELSE 0 END) AS kitty_won, "
    "SUM(CASE WHEN from_account = 'treasury' THEN amount ELSE 0 END) AS issued, "
    "SUM(CASE WHEN to_account = 'treasury' THEN amount ELSE 0 END) AS redeemed, "
    "SUM(CASE WHEN to_account LIKE %s THEN amount WHEN from_account LIKE %s THEN -amount "
    "ELSE 0 END) AS to_escrow "
    "FROM postings WHERE account <> 'treasury'{period} GROUP BY account")
KITTY, ESCROW = "kitty:%", "escrow:%"


def period_report(store: ReadStore, start: str | None, end: str | None) -> dict[str, Any]:
    sums = {row["account"]: {k: int(v) if k != "account" else v for k, v in row.items()}
            for row in _rows(store, _PER_ACCOUNT, start, end,
                             (KITTY, KITTY, ESCROW, ESCROW))}
    deals = _deals_played(store, start, end)
    raised, resolved, by_player = _disputes(store, start, end)
    names = {row["owner"]: row["name"] for row in store.rows(
        "SELECT owner, name FROM accounts WHERE kind = 'player'")}
    players = {a.partition(":")[2] for a in sums if a.startswith("player:")} \
        | set(deals) | set(by_player)
    items = [_player_row(player, names.get(player, ""), sums.get(f"player:{player}", {}),
                         deals, by_player) for player in players]
    items.sort(key=lambda row: (row["name"].casefold(), row["player_id"]))
    issued = sum(s["issued"] for s in sums.values())
    redeemed = sum(s["redeemed"] for s in sums.values())
    held_before = held_at(store, start) if start is not None else 0
    held = held_at(store, end)
    return {
        "from": start, "to": end, "items": items, "next": None,
        "deals": _deal_count(store, start, end),
        "kitties": [{"account": a, "table_id": a.partition(":")[2], "change": s["change"]}
                    for a, s in sorted(sums.items()) if a.startswith("kitty:")],
        "disputes": {"raised": raised, "resolved": resolved},
        "checks": {"chips_issued": issued, "chips_redeemed": redeemed,
                   "chips_held_before": held_before, "chips_held": held,
                   "balanced": held_before + issued - redeemed == held},
    }


def _player_row(player: str, name: str, sums: dict[str, int], deals: Counter[str],
                disputes: Counter[str]) -> dict[str, Any]:
    buy_ins, cash_outs = sums.get("buy_ins", 0), sums.get("cash_outs", 0)
    return {"player_id": player, "name": name,
            "net": sums.get("change", 0) - buy_ins + cash_outs, "deals": deals[player],
            "buy_ins": buy_ins, "cash_outs": cash_outs,
            "kitty_put_up": sums.get("kitty_put_up", 0), "kitty_won": sums.get("kitty_won", 0),
            "disputes_raised": disputes[player]}


def held_at(store: ReadStore, moment: str | None) -> int:
    """Chips held by players, kitties and the stakes on tables just before `moment` (None:
    now): each account's last balance (one index lookup per account), and the stakes of
    the deals open then, from the other side of their postings (an escrow has no statement
    of its own, and every escrow posting has exactly one entry)."""
    if moment is None:
        [now] = store.rows("SELECT COALESCE(SUM(balance), 0) AS held FROM accounts "
                           "WHERE kind <> 'treasury'")
        return int(now["held"])
    held = 0
    for row in store.rows("SELECT account FROM accounts WHERE kind IN ('player', 'kitty')"):
        last = store.rows("SELECT balance_after FROM postings WHERE account = %s AND at < %s "
                          "ORDER BY at DESC, position DESC LIMIT 1", (row["account"], moment))
        held += int(last[0]["balance_after"]) if last else 0
    open_then = [r["deal_id"] for r in store.rows(
        "SELECT deal_id FROM deals WHERE started_at < %s AND (ended_at IS NULL OR "
        "ended_at >= %s)", (moment, moment))]
    for deal_id in open_then:
        [stakes] = store.rows(
            "SELECT COALESCE(SUM(CASE WHEN to_account LIKE %s THEN amount WHEN from_account "
            "LIKE %s THEN -amount ELSE 0 END), 0) AS held FROM postings WHERE deal_id = %s "
            "AND at < %s", (ESCROW, ESCROW, deal_id, moment))
        held += int(stakes["held"])
    return held


def _rows(store: ReadStore, sql: str, start: str | None, end: str | None,
          params: tuple[Any, ...], column: str = "at") -> list[dict[str, Any]]:
    period, bounds = "", []
    if start is not None:
        period += f" AND {column} >= %s"
        bounds.append(start)
    if end is not None:
        period += f" AND {column} < %s"
        bounds.append(end)
    return store.rows(sql.format(period=period), (*params, *bounds))


def _deals_played(store: ReadStore, start: str | None, end: str | None) -> Counter[str]:
    """Deals each player sat in (as banker or player) that started in the period, void
    deals left out."""
    played: Counter[str] = Counter()
    for row in _rows(store, "SELECT banker, players FROM deals WHERE phase <> 'void'{period}",
                     start, end, (), "started_at"):
        played.update({row["banker"], *json.loads(row["players"])})
    return played


def _deal_count(store: ReadStore, start: str | None, end: str | None) -> int:
    [row] = _rows(store, "SELECT COUNT(*) AS n FROM deals WHERE phase <> 'void'{period}",
                  start, end, (), "started_at")
    return int(row["n"])


def _disputes(store: ReadStore, start: str | None, end: str | None
              ) -> tuple[int, int, Counter[str]]:
    raised = _rows(store, "SELECT raised_by FROM disputes WHERE 1 = 1{period}", start, end,
                   (), "raised_at")
    [resolved] = _rows(store, "SELECT COUNT(*) AS n FROM disputes WHERE resolved_at IS NOT "
                       "NULL{period}", start, end, (), "resolved_at")
    by_player = Counter(row["raised_by"].partition(":")[2] for row in raised
                        if row["raised_by"].startswith("player:"))
    return len(raised), int(resolved["n"]), by_player
