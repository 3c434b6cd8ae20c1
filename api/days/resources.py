"""Club days: the days with play, each night's sheet, and closing a night (API.md, "The
club's calendar")."""

from __future__ import annotations

import datetime as dt
from typing import Any

import flask_smorest

from api.auth import require
from api.calendar import OutOfRange, club_view, day_of_path, with_club_days
from api.common import Blueprint, idempotency_key, ledger, positioned, wants_csv
from api.days.schemas import (
    CloseSchema,
    DayClosedSchema,
    DaysQuerySchema,
    DaysSchema,
    NightQuerySchema,
    NightSheetSchema,
)
from api.downloads import csv_response
from api.inputs import Refusal
from api.reads import read_store, told_apart
from application import Outcome
from projections.asof import holdings
from projections.days import SHEET_COLUMNS, closed_as_shown, days_between, night_of

blp = Blueprint("days", __name__, url_prefix="/v1/days", description="Club days")


@blp.read("", DaysSchema, query=DaysQuerySchema)
def list_days(query: dict[str, Any]) -> dict[str, Any]:
    """The club days with play, newest first: deals, chips issued and redeemed, the kitties'
    change, disputes raised, and whether the night is closed (staff)."""
    require("operator")
    club = club_view()
    rows = days_between(read_store(query.get("min_position")), club.calendar,
                        query.get("start"), query.get("end"), before=query.get("after"),
                        limit=query["limit"])
    for row in rows:
        row["closed"] = row["date"] in club.closes
    return {"items": rows,
            "next": rows[-1]["date"] if len(rows) == query["limit"] else None}


@blp.read("/<string:date>", NightSheetSchema, query=NightQuerySchema, csv=True)
def night(query: dict[str, Any], date: str) -> Any:
    """A club day's night sheet: each player's result and what they held at its end, each
    table's deals and kitty, the day's disputes and checks; once closed, the close (staff).
    CSV: one row per player."""
    require("operator")
    chosen = _day(date)
    club = club_view()
    try:
        sheet = night_of(read_store(query.get("min_position")), club.calendar, club.closes,
                         chosen)
    except OverflowError:
        flask_smorest.abort(422, errors={"date": [Refusal(
            f"{chosen.isoformat()} is outside the years the ledger can record")]})
    sheet.update(start=sheet.pop("from"), end=sheet.pop("to"))
    with_club_days(sheet["disputes"], "raised_at")
    if wants_csv(query):
        shown = told_apart({row["player_id"]: row["name"] for row in sheet["players"]})
        return csv_response(({**row, "name": shown[row["player_id"]]}
                             for row in sheet["players"]), SHEET_COLUMNS,
                            f"night-{chosen.isoformat()}.csv")
    return sheet


def _closed(outcome: Outcome) -> dict[str, Any]:
    day = outcome.result["date"]
    return {**positioned(outcome), "closed": closed_as_shown(ledger().club().closes[day])}


@blp.command("/<string:date>/close", CloseSchema, DayClosedSchema, status=201, show=_closed)
def close_day(body: dict[str, Any], date: str) -> Outcome:
    """The treasurer closes a night once its club day is over: the chips counted, if any,
    are recorded against what the ledger says each player held at its end, and the
    differences shown (nothing is posted). 409 before the day's end or a second time."""
    who = require("treasurer")
    chosen = _day(date)
    store = read_store(ledger().recorder.max_notification_id())
    return ledger().close_day(chosen, counted=body["counted"], holdings=holdings(store),
                              closed_by=who.id, key=idempotency_key())


def _day(written: str) -> dt.date:
    """The path's date: 400 if it is not one, 422 if it names no day."""
    try:
        return day_of_path(written)
    except OutOfRange as refused:
        flask_smorest.abort(422, errors={"date": [Refusal(str(refused))]})
    except ValueError as error:
        flask_smorest.abort(400, errors={"date": [str(error)]})
    raise AssertionError("unreachable")

