"""Club nights on the pages: a month's calendar of the days with play, each night's sheet
(printable, with its checkpoint), its CSV, and closing a night with the chips counted."""

from __future__ import annotations

import calendar as months
from datetime import UTC, date, datetime, timedelta
from typing import Any

from flask import g, redirect, request, url_for
from werkzeug import Response

from api.calendar import OutOfRange, club_view, day_of_path
from api.downloads import csv_response
from api.web.pages.lookups import ledger, player_names, read
from api.web.pages.session import staff_page
from api.web.pages.site import FormError, arg_int, bp, render
from api.web.printout import local_time, printout
from application.eventstore import checkpoint
from domain.errors import PontoonError
from projections.asof import holdings
from projections.days import SHEET_COLUMNS, days_with_play, night_of

COUNT_MAX = 1_000_000_000


@bp.get("/days")
@staff_page()
def days_page() -> Response:
    """A month of club days, the days with play linked to their sheets; this month first."""
    club = club_view()
    first = _month(request.args.get("month"), club.calendar.day_of(datetime.now(UTC)))
    last = first.replace(day=months.monthrange(first.year, first.month)[1])
    try:
        played = {d["date"]: d for d in days_with_play(read(arg_int("min_position")),
                                                       club.calendar, first, last, 31)}
    except OverflowError:
        raise FormError("`month` is outside the years the ledger can record.") from None
    weeks = [[{"date": day, "in_month": day.month == first.month,
               "played": played.get(day.isoformat()),
               "closed": day.isoformat() in club.closes}
              for day in week]
             for week in months.Calendar().monthdatescalendar(first.year, first.month)]
    before = (first - timedelta(days=1)).replace(day=1)
    after = last + timedelta(days=1)
    return render("days.html", weeks=weeks, month=first, played=len(played),
                  previous=f"{before:%Y-%m}", following=f"{after:%Y-%m}",
                  weekdays=[months.day_name[n] for n in range(7)])


@bp.get("/days/<day>")
@staff_page()
def night_page(day: str) -> Response:
    refused = request.args.get("error")  # a close the ledger refused (close_night)
    return _night_page(_day(day), min_position=arg_int("min_position"),
                       errors={"": refused} if refused else {})


def _night_page(chosen: date, status: int = 200, *, min_position: int | None = None,
                errors: dict[str, str], typed: Any = None) -> Response:
    """The sheet, and the close form with what was typed in it and what to correct."""
    sheet, names = _sheet(chosen, min_position)
    over = club_view().calendar.end(chosen) <= datetime.now(UTC)
    sealed = sheet["closed"]["checkpoint"] if sheet["closed"] else checkpoint(ledger())
    period = (f"the night of {chosen.isoformat()}, from {local_time(sheet['from'])} to "
              f"{local_time(sheet['to'])}")
    return render("night.html", status, sheet=sheet, day=chosen, names=names, over=over,
                  checkpoint=sealed, next_day=chosen + timedelta(days=1),
                  previous_day=chosen - timedelta(days=1), errors=errors,
                  typed=typed or {}, printout=printout(period))


@bp.get("/days/<day>.csv")
@staff_page()
def night_csv(day: str) -> Response:
    chosen = _day(day)
    sheet, names = _sheet(chosen, None)
    return csv_response(({**row, "name": names.get(row["player_id"], row["name"])}
                         for row in sheet["players"]), SHEET_COLUMNS,
                        f"night-{chosen.isoformat()}.csv")


@bp.post("/days/<day>/close")
@staff_page("treasurer")
def close_night(day: str) -> Response:
    """Close the night: a count left empty is not counted."""
    chosen = _day(day)
    errors: dict[str, str] = {}
    counted = _counted(request.form, errors)
    if errors:  # the sheet again, the counts as typed, each one refused marked
        return _night_page(chosen, 400, errors=errors, typed=request.form)
    store = read(ledger().recorder.max_notification_id())
    try:
        outcome = ledger().close_day(chosen, counted=counted, holdings=holdings(store),
                                     closed_by=g.web_who.id)
    except PontoonError as refused:
        return redirect(url_for(".night_page", day=chosen.isoformat(),
                                error=refused.message, _anchor="close"), 303)
    return redirect(url_for(".night_page", day=chosen.isoformat(),
                            min_position=outcome.position, _anchor="closed"), 303)


def _sheet(day: date, min_position: int | None) -> tuple[dict[str, Any], dict[str, str]]:
    club = club_view()
    store = read(min_position)
    try:
        sheet = night_of(store, club.calendar, club.closes, day)
    except OverflowError:
        raise FormError(f"{day.isoformat()} is outside the years the ledger can record."
                        ) from None
    return sheet, player_names(store)


def _counted(form: Any, errors: dict[str, str]) -> dict[str, int]:
    """The chips counted per player; a count that is no number is kept in `errors` by its
    field's id (`counted-<player id>`)."""
    counted = {}
    for field, value in form.items():
        if not field.startswith("counted_") or not value.strip():
            continue
        written, player = value.strip(), field.removeprefix("counted_")
        if not (written.isascii() and written.isdigit()) or int(written) > COUNT_MAX:
            errors[f"counted-{player}"] = (f"{written[:20]!r} is no count: a count is a whole "
                                           "number of chips, 0 or more; leave it empty for "
                                           "a player not counted.")
            continue
        counted[f"player:{player}"] = int(written)
    return counted


def _day(written: str) -> date:
    try:
        return day_of_path(written)
    except (OutOfRange, ValueError):
        raise FormError(f"{written[:40]!r} is not a date such as 2026-12-05.") from None


def _month(written: str | None, today: date) -> date:
    if not written:
        return today.replace(day=1)
    try:
        return datetime.strptime(written, "%Y-%m").date() if len(written) == 7 else \
            _invalid_month()
    except ValueError:
        return _invalid_month()


def _invalid_month() -> date:
    raise FormError("`month` is a month such as 2026-12.")
