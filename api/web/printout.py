"""What a printed page carries, so a committee can file it (decision 149): the club's name,
the period it covers, when it was printed and in which zone, and the checkpoint of the log
as printed (to check later with `pontoon verify --checkpoint`); and, on a page that shows
one page of a longer list, what it leaves out and how to print it all.

Page numbers are the style sheet's (`@page` margin boxes), so they hold however the browser
breaks the pages.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import request

# The club's name on every printout, until the club's own settings name it (issue 23):
# the one place it is written.
CLUB_NAME = "Pontoon club"
ROWS_ALL = 10_000  # the most rows a page shows when asked for all of them (`rows=all`)


def printout(period: str) -> dict[str, Any]:
    """The head of a printed page: `period` in words, the time now with its zone, and the
    log's checkpoint (None for an empty log)."""
    from api.web.pages.lookups import ledger
    from application.eventstore import checkpoint

    sealed = checkpoint(ledger())
    return {"period": period, "printed_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
            "checkpoint": None if sealed is None else str(sealed)}


def period_words(start: str | None, end: str | None, *, since: str) -> str:
    """`from 2026-12-05 to 2026-12-06 (inclusive)` as the form reads them, or `since`."""
    if start and end:
        return f"{start} to {end} (inclusive, UTC)" if start != end else f"{start} (UTC)"
    if start:
        return f"from {start} (UTC) to now"
    if end:
        return f"{since} to {end} (inclusive, UTC)"
    return f"{since} to now"


def wants_all() -> bool:
    """The page asked for every row at once, to print it whole (`rows=all`)."""
    return request.args.get("rows") == "all"


def rows_shown(page: int) -> int:
    return ROWS_ALL if wants_all() else page


def left_out(shown: int, total: int, what: str, all_url: str,
             csv_url: str | None = None) -> dict[str, Any] | None:
    """What a page of `shown` rows of `total` leaves out, and where to get them all: the
    whole list on one page (`all_url`, up to ROWS_ALL rows) or its CSV."""
    if shown >= total:
        return None
    return {"shown": shown, "total": total, "what": what, "csv_url": csv_url,
            "all_url": all_url if total <= ROWS_ALL else None, "most": ROWS_ALL}
