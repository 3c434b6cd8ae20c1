"""The period report (a club night, a month): each player's result and the checks that the
period balances, from the read models alone (postings, deals, disputes), never the log.

`start` is inclusive and `end` exclusive, both compared with a posting's `at` (or a deal's
start, a dispute's raising); None leaves that side open.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from projections.store import ReadStore

KITTY, ESCROW = "kitty:%", "escrow:%"
# Each player's and kitty's balance just before a moment: its last entry then (the
# statement's index on account and time; one lookup an account, in one statement).
_LAST = ("(SELECT p.balance_after FROM postings p WHERE p.account = a.account{bound} "
         "ORDER BY p.at DESC, p.position DESC LIMIT 1)")


def period_report(store: ReadStore, start: str | None, end: str | None) -> dict[str, Any]:
    balances = _balances(store, start, end)
    sums = _sums(store, start, end, balances)
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
    held_before = sum(b["before"] for b in balances) + _escrows(store, start) \
        if start is not None else 0
    held = sum(b["after"] for b in balances) + _escrows(store, end) if end is not None \
        else held_at(store, None)
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
    now): each account's last balance, and the stakes of the deals open then."""
    if moment is None:
        [now] = store.rows("SELECT COALESCE(SUM(balance), 0) AS held FROM accounts "
                           "WHERE kind <> 'treasury'")
        return int(now["held"])
    held: int = sum(b["after"] for b in _balances(store, None, moment))
    return held + _escrows(store, moment)


def _escrows(store: ReadStore, moment: str | None) -> int:
    """The stakes of the deals open just before `moment`, from the other side of their
    postings (an escrow has no statement of its own, and every escrow posting has exactly
    one entry)."""
    held = 0
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


def _balances(store: ReadStore, start: str | None, end: str | None
              ) -> list[dict[str, Any]]:
    """Every player's and kitty's balance before the period and at its end, and whether it
    moved in it: a few index lookups an account, however many postings the period holds
    (a year's report no longer adds up a year of postings)."""
    params: list[Any] = []
    before = "NULL"
    if start is not None:
        before, params = _LAST.format(bound=" AND p.at < %s"), [start]
    after = _LAST.format(bound="" if end is None else " AND p.at < %s")
    params += [] if end is None else [end]
    period, bounds = _bounds("p.at", start, end)
    rows = store.rows(
        f"SELECT a.account, {before} AS before, {after} AS after, CASE WHEN EXISTS (SELECT 1 "
        f"FROM postings p WHERE p.account = a.account{period}) THEN 1 ELSE 0 END AS moved "
        "FROM accounts a WHERE a.kind IN ('player', 'kitty')", (*params, *bounds))
    return [{"account": r["account"], "before": int(r["before"] or 0),
             "after": int(r["after"] or 0), "moved": bool(r["moved"])} for r in rows]


def _sums(store: ReadStore, start: str | None, end: str | None,
          balances: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each account's change over the period (its balances), what a player received from
    the treasury or returned (the treasury's own rows) and put into or won from kitties
    (the kitties' rows): the accounts that moved, as one query over every posting gave."""
    sums: dict[str, dict[str, int]] = {
        b["account"]: dict.fromkeys(("buy_ins", "cash_outs", "kitty_put_up", "kitty_won",
                                     "issued", "redeemed"), 0) | {"change": b["after"]
                                                                   - b["before"]}
        for b in balances if b["moved"]}
    period, bounds = _bounds("at", start, end)
    for row in store.rows("SELECT from_account, to_account, rule, SUM(amount) AS amount FROM "
                          f"postings WHERE account = 'treasury'{period} GROUP BY "
                          "from_account, to_account, rule", bounds):
        issued = row["from_account"] == "treasury"
        other = sums.get(row["to_account"] if issued else row["from_account"])
        if other is not None:
            other["issued" if issued else "redeemed"] += int(row["amount"])
            if row["rule"] == "R11.1":
                other["buy_ins" if issued else "cash_outs"] += int(row["amount"])
    for row in store.rows("SELECT from_account, to_account, SUM(amount) AS amount FROM "
                          "postings WHERE account >= 'kitty:' AND account < 'kitty;'"
                          f"{period} GROUP BY from_account, to_account", bounds):
        if row["from_account"].startswith("player:") and row["from_account"] in sums:
            sums[row["from_account"]]["kitty_put_up"] += int(row["amount"])
        if row["to_account"].startswith("player:") and row["to_account"] in sums:
            sums[row["to_account"]]["kitty_won"] += int(row["amount"])
    return sums


def _bounds(column: str, start: str | None, end: str | None) -> tuple[str, list[Any]]:
    period, bounds = "", []
    if start is not None:
        period += f" AND {column} >= %s"
        bounds.append(start)
    if end is not None:
        period += f" AND {column} < %s"
        bounds.append(end)
    return period, bounds


def _rows(store: ReadStore, sql: str, start: str | None, end: str | None,
          params: tuple[Any, ...], column: str = "at") -> list[dict[str, Any]]:
    period, bounds = _bounds(column, start, end)
    return store.rows(sql.format(period=period), (*params, *bounds))


def _deals_played(store: ReadStore, start: str | None, end: str | None) -> Counter[str]:
    """Deals each player sat in (as banker or player) that started in the period, void
    deals left out."""
    played: Counter[str] = Counter()
    for row in _rows(store, "SELECT banker, players FROM deals WHERE phase <> 'void'{period}",
                     start, end, (), "started_at"):
        played.update({row["banker"], *orjson.loads(row["players"])})
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
