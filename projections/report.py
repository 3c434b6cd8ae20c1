"""The period report (a club night, a month): each player's result and the checks that the
period balances, from the read models alone (postings, deals, disputes), never the log.

`start` is inclusive and `end` exclusive, both compared with a posting's `at` (or a deal's
start, a dispute's raising); None leaves that side open. A club night is the period of one
club day (projections/days.py).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

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
    sums = {row["account"]: {k: int(v) if k != "account" else v for k, v in row.items()}
            for row in _rows(store, _PER_ACCOUNT, start, end,
                             (KITTY, KITTY, ESCROW, ESCROW))}
    deals = _deals_played(store, start, end)
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
