"""The period report (a club night, a month): each player's result and the checks that the
period balances, from the read models alone (postings, deals, disputes), never the log.

`start` is inclusive and `end` exclusive, both compared with a posting's `at` (or a deal's
start, a dispute's raising); None leaves that side open. A club night is the period of one
club day (projections/days.py).
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from projections.activity import SUMS
from projections.asof import held
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
    "ELSE 0 END) AS to_escrow, "
    "SUM(CASE WHEN rule = 'R11.4' THEN change ELSE 0 END) AS corrections "
    "FROM postings WHERE account <> 'treasury'{period} GROUP BY account")
KITTY, ESCROW = "kitty:%", "escrow:%"


def period_report(store: ReadStore, start: str | None, end: str | None) -> dict[str, Any]:
    hours, edges = _split(start, end)
    sums: dict[str, dict[str, int]] = {}
    deals: Counter[str] = Counter()
    if hours is not None:
        for row in _rows(store, _BY_HOUR, *hours, (), "hour"):
            account = row.pop("account")
            sums[account] = {k: int(v) for k, v in row.items()}
            if account.startswith("player:"):
                deals[account.partition(":")[2]] += sums[account].pop("deals")
        deals.subtract(_deals_played(store, *hours, void=True))
    for edge in edges:
        for row in _rows(store, _PER_ACCOUNT, *edge, (KITTY, KITTY, ESCROW, ESCROW)):
            added = sums.setdefault(row.pop("account"), {})
            for key, value in row.items():
                added[key] = added.get(key, 0) + int(value)
        deals.update(_deals_played(store, *edge))
    deals = +deals  # players left with no deal are left out
    disputes = _disputes(store, start, end)
    names = {row["owner"]: row["name"] for row in store.rows(
        "SELECT owner, name FROM accounts WHERE kind = 'player'")}
    on_deals: Counter[str] = Counter()
    raised_by: Counter[str] = Counter()
    for dispute in disputes:  # who played the deal, and who raised it, stay out of the list
        on_deals.update(dispute.pop("dealt"))
        kind, _, who = dispute.pop("raised_by").partition(":")
        raised_by.update([who] if kind == "player" else [])
    players = {a.partition(":")[2] for a in sums if a.startswith("player:")} \
        | set(deals) | set(on_deals)
    items = [_player_row(player, names.get(player, ""), sums.get(f"player:{player}", {}),
                         deals, on_deals, raised_by) for player in players]
    items.sort(key=lambda row: (row["name"].casefold(), row["player_id"]))
    issued = sum(s["issued"] for s in sums.values())
    redeemed = sum(s["redeemed"] for s in sums.values())
    held_before = held(store, start) if start is not None else 0
    held_after = held(store, end)
    return {
        "from": start, "to": end, "items": items, "next": None,
        "deals": _deal_count(store, start, end),
        "kitties": [{"account": a, "table_id": a.partition(":")[2], "change": s["change"]}
                    for a, s in sorted(sums.items()) if a.startswith("kitty:")],
        "disputes": disputes,
        "dispute_counts": {"raised": len(disputes),
                           "resolved": _resolved(store, start, end)},
        "checks": {"chips_issued": issued, "chips_redeemed": redeemed,
                   "chips_held_before": held_before, "chips_held": held_after,
                   "balanced": held_before + issued - redeemed == held_after},
    }


def _player_row(player: str, name: str, sums: dict[str, int], deals: Counter[str],
                disputes: Counter[str], raised: Counter[str]) -> dict[str, Any]:
    buy_ins, cash_outs = sums.get("buy_ins", 0), sums.get("cash_outs", 0)
    return {"player_id": player, "name": name,
            "net": sums.get("change", 0) - buy_ins + cash_outs, "deals": deals[player],
            "buy_ins": buy_ins, "cash_outs": cash_outs,
            "kitty_put_up": sums.get("kitty_put_up", 0), "kitty_won": sums.get("kitty_won", 0),
            "disputes": disputes[player], "corrections": sums.get("corrections", 0),
            "disputes_raised": raised[player]}


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


def _deals_played(store: ReadStore, start: str | None, end: str | None, *,
                  void: bool = False) -> Counter[str]:
    """Deals each player sat in (as banker or player) that started in the period, void
    deals left out (or, with `void`, those alone)."""
    played: Counter[str] = Counter()
    phase = "phase = 'void'" if void else "phase <> 'void'"
    for row in _rows(store, f"SELECT banker, players FROM deals WHERE {phase}{{period}}",
                     start, end, (), "started_at"):
        played.update({row["banker"], *json.loads(row["players"])})
    return played


# The same sums by the hour (projections/activity.py), for the period's whole hours.
_BY_HOUR = ("SELECT account, " + ", ".join(f"SUM({c}) AS {c}" for c in SUMS)
            + " FROM account_hours WHERE 1 = 1{period} GROUP BY account")
Span = tuple[str | None, str | None]


def _split(start: str | None, end: str | None) -> tuple[Span | None, list[Span]]:
    """The period's whole hours, read from `account_hours`, and the stretches of its first
    and last hour outside them, read from the postings: a year's report adds up hours."""
    first = None if start is None else _hour_at_or_after(start)
    last = None if end is None else end[:13]  # the hours before the one `end` falls in
    if first is not None and last is not None and first >= last:
        return None, [(start, end)]
    edges: list[Span] = []
    if start is not None and first is not None and _hour_start(first) != start:
        edges.append((start, _hour_start(first)))
    if end is not None and last is not None and _hour_start(last) != end:
        edges.append((_hour_start(last), end))
    return (first, last), edges


def _hour_start(hour: str) -> str:
    return f"{hour}:00:00.000000+00:00"


def _hour_at_or_after(moment: str) -> str:
    if _hour_start(moment[:13]) == moment:
        return moment[:13]
    later = datetime.fromisoformat(moment[:13] + ":00+00:00") + timedelta(hours=1)
    return later.isoformat()[:13]


def _deal_count(store: ReadStore, start: str | None, end: str | None) -> int:
    [row] = _rows(store, "SELECT COUNT(*) AS n FROM deals WHERE phase <> 'void'{period}",
                  start, end, (), "started_at")
    return int(row["n"])


def _disputes(store: ReadStore, start: str | None, end: str | None
              ) -> list[dict[str, Any]]:
    """The disputes raised in the period, oldest first, each with its deal's table, number
    and players (`dealt`: banker and players, whoever raised it) and the chips its
    corrections moved."""
    rows = _rows(store, "SELECT d.dispute_id, d.deal_id, d.status, d.raised_at, d.raised_by, "
                 "d.corrections, x.number, x.banker, x.players, t.name AS table_name "
                 "FROM disputes d LEFT JOIN deals x ON x.deal_id = d.deal_id "
                 "LEFT JOIN tables t ON t.table_id = x.table_id WHERE 1 = 1{period} "
                 "ORDER BY d.raised_position", start, end, (), "d.raised_at")
    return [{"id": r["dispute_id"], "deal_id": r["deal_id"], "table_name": r["table_name"],
             "deal_number": r["number"], "status": r["status"], "raised_at": r["raised_at"],
             "corrections_total": sum(c["amount"] for c in json.loads(r["corrections"] or "[]")),
             "raised_by": r["raised_by"],
             "dealt": {r["banker"], *json.loads(r["players"])} if r["banker"] else set()}
            for r in rows]


def _resolved(store: ReadStore, start: str | None, end: str | None) -> int:
    [resolved] = _rows(store, "SELECT COUNT(*) AS n FROM disputes WHERE resolved_at IS NOT "
                       "NULL{period}", start, end, (), "resolved_at")
    return int(resolved["n"])
