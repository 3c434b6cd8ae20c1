"""What a printed page carries, so a committee can file it (decision 149): the club's name
(its settings', base.html), the period it covers, when it was printed in the club's zone,
and the checkpoint of the log as printed (to check later with `pontoon verify
--checkpoint`); and, on a page that shows one page of a longer list, what it leaves out and
how to print it all.

Page numbers are the style sheet's (`@page` margin boxes), so they hold however the browser
breaks the pages.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import request

ROWS_ALL = 10_000  # the most rows a page shows when asked for all of them (`rows=all`)


def printout(period: str) -> dict[str, Any]:
    """The head of a printed page: `period` in words, the time now in the club's zone
    (named, with its offset), and the log's checkpoint (None for an empty log)."""
    from api.web.pages.lookups import ledger
    from application.eventstore import checkpoint

    sealed = checkpoint(ledger())
    return {"period": period, "printed_at": local_time(datetime.now().astimezone()),
            "checkpoint": None if sealed is None else str(sealed)}


def local_time(moment: datetime | str | None) -> str:
    """`2026-12-05 21:03:11 Europe/London (UTC+00:00)`: a time (or a recorded one, RFC
    3339) in the club's zone, the zone named."""
    from api.calendar import club_view
    from domain.engine.calendar import zone

    if not moment:
        return "—"
    name = club_view().rule.time_zone
    when = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    there = when.astimezone(zone(name))
    offset = there.strftime("%z")
    return f"{there:%Y-%m-%d %H:%M:%S} {name} (UTC{offset[:3]}:{offset[3:]})"


def period_words(start: str | None, end: str | None, *, since: str) -> str:
    """`2026-12-05 to 2026-12-06 (inclusive)` as the form reads them (club days, or times
    in the club's zone), or from `since`."""
    if start and end:
        return f"{start} to {end} (inclusive)" if start != end else start
    if start:
        return f"from {start} to now"
    if end:
        return f"{since} to {end} (inclusive)"
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
