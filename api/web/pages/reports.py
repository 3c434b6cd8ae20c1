"""The period report on a page: a club night or a month, printable, with its CSV."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import request
from werkzeug import Response

from api.calendar import club_calendar
from api.downloads import csv_response
from api.web.pages.lookups import player_names, read, table_names
from api.web.pages.session import staff_page
from api.web.pages.site import Fields, FormError, arg_int, bp, render
from api.web.printout import period_words, printout
from projections.report import period_report

COLUMNS = ("player_id", "name", "net", "deals", "buy_ins", "cash_outs", "kitty_put_up",
           "kitty_won", "disputes_raised", "disputes", "corrections")


@bp.get("/reports/period")
@staff_page("treasurer")
def report_page() -> Response:
    """Today's club day when no dates are chosen: the night the treasurer is most likely
    closing."""
    today = club_calendar().day_of(datetime.now(UTC)).isoformat()
    chosen = {"from": request.args.get("from") or today, "to": request.args.get("to") or today}
    fields = Fields(**{"from": "From", "to": "To (inclusive)"})
    start, end = fields.period(default=today)
    if fields.errors:  # the form again, as typed, with what to correct: no figures
        return render("report.html", 400, report=None, chosen=chosen, errors=fields.errors)
    store = read(arg_int("min_position"))
    report = period_report(store, start, end)
    names, tables = player_names(store), table_names(store)
    rows = [dict(row, label=names.get(row["player_id"], row["name"])) for row in report["items"]]
    totals = {key: sum(row[key] for row in rows) for key in COLUMNS[2:]}
    kitties = [dict(k, name=tables.get(k["table_id"], "a table")) for k in report["kitties"]]
    return render("report.html", report=report, rows=rows, totals=totals, kitties=kitties,
                  chosen=chosen, errors={}, printout=printout(
                      period_words(chosen["from"], chosen["to"], since="the start")))


@bp.get("/reports/period.csv")
@staff_page("treasurer")
def report_csv() -> Response:
    fields = Fields()
    start, end = fields.period()
    if fields.errors:
        raise FormError(next(iter(fields.errors.values())))
    store = read()
    report = period_report(store, start, end)
    names = player_names(store)
    return csv_response(({**row, "name": names.get(row["player_id"], row["name"])}
                         for row in report["items"]), COLUMNS, "period-report.csv")
