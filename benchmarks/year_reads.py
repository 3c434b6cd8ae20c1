"""The reads `benchmarks/year.py` times on a year's store: every treasurer page and API list,
the period reports, a night sheet and the busiest player's whole-year statement CSV.

`READS` is the one list of what is measured, with the aim each is held to; a path the app
does not serve is reported as "not built yet" rather than failing the run. Each read is sent through
the app itself (Flask's test client, no sockets), as the treasurer, signed in for the
pages; p95 is over `samples` requests, a list's alternating between its first page and
the pages its `next` cursors lead to.
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from benchmarks.history import percentile
from projections import proofs
from projections.store import ReadStore

PAGE_MS, REPORT_MS, CSV_MS = 300, 1000, 2000
PROOF_MS = 50  # issue 26: a Merkle proof of the whole log


@dataclass(frozen=True)
class Read:
    name: str
    path: str  # formatted with `places` (player, table, deal, night, month, year, tree)
    aim_ms: int
    samples: int = 20
    pages: bool = False  # a list: follow its `next` cursor


READS = (
    # The treasurer's pages.
    Read("page: home", "/web/", PAGE_MS),
    Read("page: balances", "/web/balances", PAGE_MS),
    Read("page: players", "/web/players", PAGE_MS),
    Read("page: the busiest player", "/web/players/{player}", PAGE_MS),
    Read("page: tables", "/web/tables", PAGE_MS),
    Read("page: the busiest table", "/web/tables/{table}", PAGE_MS),
    Read("page: a deal", "/web/deals/{deal}", PAGE_MS),
    Read("page: a deal's hand history", "/web/deals/{deal}/history", PAGE_MS),
    Read("page: the busiest table's pack", "/web/tables/{table}/pack", PAGE_MS),
    Read("page: disputes", "/web/disputes", PAGE_MS),
    Read("page: the busiest night's disputes", "/web/disputes?day={night}", PAGE_MS),
    Read("page: balances as of a night", "/web/balances?as_of={night}", PAGE_MS),
    Read("page: a night's report", "/web/reports/period?from={night_from}&to={night_to}",
         PAGE_MS),
    Read("page: the calendar (days)", "/web/days", PAGE_MS),
    Read("page: the busiest night's month", "/web/days?month={month}", PAGE_MS),
    Read("page: a night sheet", "/web/days/{night}", PAGE_MS),
    # Every API list.
    Read("list: players", "/v1/players", PAGE_MS, pages=True),
    Read("list: tables", "/v1/tables", PAGE_MS, pages=True),
    Read("list: balances", "/v1/balances", PAGE_MS),
    Read("list: balances as of a night", "/v1/balances?as_of={night}", PAGE_MS),
    Read("list: a table's deals", "/v1/tables/{table}/deals", PAGE_MS, pages=True),
    Read("list: a kitty's history", "/v1/tables/{table}/kitty-history", PAGE_MS, pages=True),
    Read("list: a kitty by deal", "/v1/tables/{table}/kitty-history/by-deal", PAGE_MS,
         pages=True),
    Read("list: a table's packs", "/v1/tables/{table}/packs", PAGE_MS, pages=True),
    Read("list: a statement", "/v1/players/{player}/statement", PAGE_MS, pages=True),
    Read("list: a statement by deal", "/v1/players/{player}/statement/by-deal", PAGE_MS,
         pages=True),
    Read("list: disputes", "/v1/disputes", PAGE_MS, pages=True),
    Read("list: events", "/v1/events", PAGE_MS, pages=True),
    Read("list: tokens", "/v1/tokens", PAGE_MS, pages=True),
    Read("list: webhooks", "/v1/webhooks", PAGE_MS, pages=True),
    Read("list: days", "/v1/days", PAGE_MS, pages=True),
    Read("list: the year's days", "/v1/days?from={year_from}&to={year_to}", PAGE_MS,
         pages=True),
    Read("list: checkpoints", "/v1/checkpoints", PAGE_MS, pages=True),
    # Reports, the night sheet, the whole year's statement.
    Read("report: the year", "/v1/reports/period?from={year_from}&to={year_to}", REPORT_MS,
         samples=5),
    Read("report: a month", "/v1/reports/period?from={month_from}&to={month_to}", REPORT_MS,
         samples=5),
    Read("report: a month, the page", "/web/reports/period?from={month_from}&to={month_to}",
         REPORT_MS, samples=5),
    Read("night sheet", "/v1/days/{night}", PAGE_MS),
    Read("night sheet, CSV", "/v1/days/{night}.csv", PAGE_MS),
    Read("CSV: the busiest player's year", "/v1/players/{player}/statement?format=csv",
         CSV_MS, samples=3),
    Read("CSV: the same, from the page", "/web/players/{player}/statement.csv", CSV_MS,
         samples=3),
    # Merkle proofs of the year's log, its whole tree (issue 26's aim).
    Read("proof: inclusion", "/v1/proofs/inclusion?index={leaf}&size={tree}", PROOF_MS),
    Read("proof: consistency", "/v1/proofs/consistency?from={half}&to={tree}", PROOF_MS),
)


def places(store: ReadStore) -> dict[str, str]:
    """What the paths name: the busiest player and table, a deal, the busiest night (its
    club date and its hours in UTC), a month, the whole year, and the Merkle log's size
    with a leaf and an older size in it."""
    [player] = store.rows("SELECT account, COUNT(*) AS n FROM postings WHERE account LIKE %s "
                          "GROUP BY account ORDER BY n DESC LIMIT 1", ("player:%",))
    [table] = store.rows("SELECT table_id FROM tables ORDER BY deals_played DESC LIMIT 1")
    [deal] = store.rows("SELECT deal_id FROM deals WHERE table_id = %s ORDER BY number DESC "
                        "LIMIT 1", (table["table_id"],))
    [span] = store.rows("SELECT MIN(started_at) AS first, MAX(started_at) AS last FROM deals")
    [night] = store.rows("SELECT SUBSTR(started_at, 1, 10) AS day, COUNT(*) AS n FROM deals "
                         "GROUP BY SUBSTR(started_at, 1, 10) ORDER BY n DESC LIMIT 1")
    first, last, day = str(span["first"])[:10], str(span["last"])[:10], str(night["day"])
    month = day[:7]
    tree = proofs.head(store).size
    return {"tree": str(tree), "leaf": str(tree * 2 // 3), "half": str(max(tree // 2, 1)),
            "player": player["account"].partition(":")[2], "table": table["table_id"],
            "month": month,
            "deal": deal["deal_id"], "night": day, "night_from": f"{day}T12:00:00Z",
            "night_to": f"{_next_day(day)}T06:00:00Z", "month_from": f"{month}-01",
            "month_to": _month_end(month), "year_from": first, "year_to": last}


def _next_day(day: str) -> str:
    from datetime import date, timedelta

    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def _month_end(month: str) -> str:
    from datetime import date, timedelta

    year, number = (int(part) for part in month.split("-"))
    following = date(year + number // 12, number % 12 + 1, 1)
    return (following - timedelta(days=1)).isoformat()


def built(app: Flask, path: str) -> bool:
    """Whether the app serves this path (not the pages' catch-all for unknown ones)."""
    from werkzeug.exceptions import HTTPException

    try:
        endpoint, _ = app.url_map.bind("localhost").match(path.split("?")[0], method="GET")
    except HTTPException:
        return False
    return bool(endpoint != "web.not_found")


def signed_in(app: Flask, token: str) -> FlaskClient:
    browser = app.test_client()
    form = browser.get("/web/sign-in").get_data(as_text=True)
    found = re.search(r'name="csrf" value="([A-Za-z0-9_-]{43})"', form)
    assert found, "no form token on the sign-in form"
    answer = browser.post("/web/sign-in", data={"token": token, "next": "/web/",
                                                "csrf": found.group(1)})
    assert answer.status_code in (302, 303), answer.status_code
    return browser


def measure(app: Flask, token: str, where: dict[str, str]) -> list[dict[str, Any]]:
    """Each read of READS timed; a row per read with its p50, p95 and verdict."""
    browser = signed_in(app, token)
    headers = {"Authorization": f"Bearer {token}"}
    rows: list[dict[str, Any]] = []
    for read in READS:
        path = read.path.format(**where)
        if not built(app, path):
            rows.append({"read": read.name, "path": path, "verdict": "not built yet"})
            continue
        times, cpu = _timed(browser, path, read, headers)
        p95 = percentile(times, 0.95)
        rows.append({"read": read.name, "path": path, "samples": len(times),
                     "p50_ms": statistics.median(times), "p95_ms": p95, "aim_ms": read.aim_ms,
                     "cpu_p50_ms": statistics.median(cpu), "cpu_p95_ms": percentile(cpu, 0.95),
                     "verdict": "within" if p95 < read.aim_ms else "MISSED"})
    return rows


def _timed(browser: FlaskClient, path: str, read: Read, headers: dict[str, str]
           ) -> tuple[list[float], list[float]]:
    """Each request's time, and the CPU time this process spent on it (the app's and, with
    SQLite, the database's: what a loaded machine's queue does not inflate)."""
    times, cpu, cursor = [], [], None
    for sample in range(read.samples):
        url = path
        if read.pages and cursor is not None and sample % 2 == 1:
            url += ("&" if "?" in path else "?") + f"after={cursor}"
        start, used = time.perf_counter(), time.process_time()
        answer = browser.get(url, headers=headers if url.startswith("/v1/") else None)
        body = answer.get_data()
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - used) * 1000)
        if answer.status_code != 200:
            raise RuntimeError(f"GET {url}: {answer.status_code} {body[:300]!r}")
        if read.pages and sample % 2 == 1 or cursor is None and read.pages:
            cursor = (answer.get_json(silent=True) or {}).get("next") or cursor
    return times, cpu
