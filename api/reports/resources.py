"""Reports for the treasurer: a period (a club night, a month) at a glance."""

from __future__ import annotations

from typing import Any

from api.auth import require
from api.calendar import with_club_days
from api.common import Blueprint, wants_csv
from api.downloads import csv_response
from api.reads import read_store, told_apart
from api.reports.schemas import PeriodReportQuerySchema, PeriodReportSchema
from projections.report import period_report

blp = Blueprint("reports", __name__, url_prefix="/v1/reports", description="Reports")

CSV_COLUMNS = ("player_id", "name", "net", "deals", "buy_ins", "cash_outs", "kitty_put_up",
               "kitty_won", "disputes_raised", "disputes", "corrections")


@blp.read("/period", PeriodReportSchema, query=PeriodReportQuerySchema, csv=True)
def report_period(query: dict[str, Any]) -> Any:
    """Each player's result over a period, and the checks that the period balances."""
    require("treasurer")
    report = period_report(read_store(query.get("min_position")), query.get("start"),
                           query.get("end"))
    report["start"], report["end"] = report.pop("from"), report.pop("to")
    with_club_days(report["disputes"], "raised_at")
    if wants_csv(query):
        shown = told_apart({row["player_id"]: row["name"] for row in report["items"]})
        return csv_response(({**row, "name": shown[row["player_id"]]}
                             for row in report["items"]), CSV_COLUMNS, "period-report.csv")
    return report
