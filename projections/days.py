"""Club days from the read models: the days with play, and each night's sheet.

The days are summed from the activity by minute (projections/activity.py) under the calendar
given, one query for a stretch of days, so a year of nights pages as fast as a week. A night
sheet is the period report of its day, with what each player held at its end.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import date, datetime, timedelta
from typing import Any

from domain.engine.calendar import Calendar, text
from projections.activity import minute
from projections.asof import standing
from projections.report import period_report
from projections.store import ReadStore

STRETCH = 62  # days summed by one query while walking back through the calendar
# A night sheet's CSV (the API's, the pages' and the shell's): one row per player.
SHEET_COLUMNS = ("player_id", "name", "net", "deals", "buy_ins", "cash_outs", "held_at_end",
                 "to_cash_out", "debt_to_collect", "disputes", "corrections")
ONE_DAY = timedelta(days=1)
ONE_MICROSECOND = timedelta(microseconds=1)


def play_span(store: ReadStore, calendar: Calendar) -> tuple[date, date] | None:
    """The first and last club days with anything recorded, or None."""
    [row] = store.rows("SELECT MIN(minute) AS first, MAX(minute) AS last FROM activity")
    if row["first"] is None:
        return None
    first = calendar.day_of(_instant(row["first"]))
    return first, calendar.day_of(_instant(row["last"]))


def days_between(store: ReadStore, calendar: Calendar, start: str | None, end: str | None,
                 *, before: date | None = None, limit: int) -> list[dict[str, Any]]:
    """The club days with play that meet [start, end) (recorded times; None: open), before
    the day `before` if given, newest first, at most `limit`."""
    span = play_span(store, calendar)
    if span is None:
        return []
    first, last = span
    if start is not None:
        first = max(first, calendar.day_of(datetime.fromisoformat(start)))
    if end is not None:
        last = min(last, calendar.day_of(datetime.fromisoformat(end) - ONE_MICROSECOND))
    if before is not None:
        last = min(last, before - ONE_DAY)
    return days_with_play(store, calendar, first, last, limit)


def days_with_play(store: ReadStore, calendar: Calendar, first: date, last: date,
                   limit: int) -> list[dict[str, Any]]:
    """Up to `limit` club days with play from `last` back to `first`, newest first."""
    found: list[dict[str, Any]] = []
    for days in _stretches(first, last):
        windows = [(d.isoformat(), *calendar.bounds(d)) for d in days]
        sums = _sums(store, [(day, minute(text(s)), minute(text(e))) for day, s, e in windows])
        for day, start, end in windows:
            counted = sums.get(day)
            if counted and any(counted.values()):  # a deal, an entry or a dispute
                del counted["started"], counted["postings"]
                found.append({"date": day, **counted, "from": text(start), "to": text(end)})
        if len(found) >= limit:
            break
    found = found[:limit]
    deals = _deals(store, [(d["date"], d["from"], d["to"]) for d in found])
    for item in found:
        item["deals"] = deals.get(item["date"], 0)
    return found


def _stretches(first: date, last: date) -> Iterator[list[date]]:
    """The days from `last` back to `first`, newest first, a stretch at a time."""
    day = last
    while day >= first:
        low = max(first, day - (STRETCH - 1) * ONE_DAY)
        yield [day - n * ONE_DAY for n in range((day - low).days + 1)]
        day = low - ONE_DAY


def _sums(store: ReadStore, windows: list[tuple[str, str, str]]) -> dict[str, dict[str, int]]:
    values = ", ".join(["(%s, %s, %s)"] * len(windows))
    rows = store.rows(
        f"WITH w (day, s, e) AS (VALUES {values}) SELECT w.day, SUM(a.deals) AS started, "
        "SUM(a.postings) AS postings, SUM(a.chips_issued) AS chips_issued, "
        "SUM(a.chips_redeemed) AS chips_redeemed, SUM(a.kitty_change) AS kitty_change, "
        "SUM(a.disputes_raised) AS disputes_raised FROM w JOIN activity a "
        "ON a.minute >= w.s AND a.minute < w.e GROUP BY w.day",
        [value for window in windows for value in window])
    return {row.pop("day"): {key: int(value) for key, value in row.items()} for row in rows}


def _deals(store: ReadStore, windows: list[tuple[str, str, str]]) -> dict[str, int]:
    """The deals started in each window that were not void (the sheet's count)."""
    if not windows:
        return {}
    values = ", ".join(["(%s, %s, %s)"] * len(windows))
    rows = store.rows(
        f"WITH w (day, s, e) AS (VALUES {values}) SELECT w.day, COUNT(*) AS n FROM w "
        "JOIN deals d ON d.started_at >= w.s AND d.started_at < w.e WHERE d.phase <> 'void' "
        "GROUP BY w.day", [value for window in windows for value in window])
    return {row["day"]: int(row["n"]) for row in rows}


def night_of(store: ReadStore, calendar: Calendar, closes: Mapping[str, Any], day: date
             ) -> dict[str, Any]:
    """The sheet of the club day `day` on `calendar`, with the rule its day follows and its
    close, if closed; OverflowError for a day beyond the years the ledger can record."""
    start, end = calendar.bounds(day)
    sheet = night_sheet(store, text(start), text(end))
    rule = calendar.rule_for(day)
    sheet.update(date=day.isoformat(), time_zone=rule.time_zone,
                 day_starts_at=rule.day_starts_at,
                 closed=closed_as_shown(closes.get(day.isoformat())))
    return sheet


def night_sheet(store: ReadStore, start: str, end: str) -> dict[str, Any]:
    """The night of one club day, [start, end): each player's result and what they held at
    its end (to cash out, or a debt to collect); each table's deals and kitty change; the
    day's disputes and the checks that it balances."""
    report = period_report(store, start, end)
    accounts = [f"player:{row['player_id']}" for row in report["items"]]
    held = standing(store, end, accounts=accounts, kinds=("player",))
    players = []
    for row in report["items"]:
        balance = held.get(f"player:{row['player_id']}", 0)
        players.append({**row, "held_at_end": balance, "to_cash_out": max(balance, 0),
                        "debt_to_collect": max(-balance, 0)})
    return {"from": start, "to": end, "deals": report["deals"], "players": players,
            "tables": _tables(store, start, end, report["kitties"]),
            "disputes": report["disputes"], "dispute_counts": report["dispute_counts"],
            "checks": report["checks"]}


def _tables(store: ReadStore, start: str, end: str, kitties: list[dict[str, Any]]
            ) -> list[dict[str, Any]]:
    """Each table with deals started in the night or a kitty that changed: by name."""
    deals = {row["table_id"]: int(row["n"]) for row in store.rows(
        "SELECT table_id, COUNT(*) AS n FROM deals WHERE started_at >= %s AND started_at < %s "
        "AND phase <> 'void' GROUP BY table_id", (start, end))}
    changes = {k["table_id"]: k["change"] for k in kitties}
    ids = sorted(set(deals) | set(changes))
    names: dict[str, str] = {}
    if ids:
        marks = ", ".join(["%s"] * len(ids))
        names = {r["table_id"]: r["name"] for r in store.rows(
            f"SELECT table_id, name FROM tables WHERE table_id IN ({marks})", ids)}
    tables = [{"table_id": t, "name": names.get(t, ""), "deals": deals.get(t, 0),
               "kitty_change": changes.get(t, 0)} for t in ids]
    return sorted(tables, key=lambda t: (t["name"].casefold(), t["table_id"]))


def closed_as_shown(close: dict[str, Any] | None) -> dict[str, Any] | None:
    """A recorded close as the sheet shows it."""
    if close is None:
        return None
    return {"at": text(close["at"]), "by": close["by"], "checkpoint": close["checkpoint"],
            "counted": dict(close["counted"]), "held": dict(close["held"]),
            "differences": dict(close["differences"]), "time_zone": close["time_zone"],
            "day_starts_at": close["day_starts_at"]}


def _instant(minute_text: str) -> datetime:
    return datetime.fromisoformat(minute_text + ":00+00:00")
