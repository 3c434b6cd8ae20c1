"""The treasurer's disputes: those open, each with its resolution form, and those resolved;
filtered by status, club day and table, and downloaded as CSV."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from flask import g, redirect, request, url_for
from werkzeug import Response

from api.calendar import day_texts
from api.downloads import csv_response
from api.inputs import text_problem
from api.web.pages.lookups import accounts_in_words, ledger, read
from api.web.pages.session import staff_page
from api.web.pages.site import (
    TEXT_MAX,
    FormError,
    arg_choice,
    arg_int,
    arg_moment,
    bp,
    render,
)
from api.web.present import principal_words
from domain.errors import InvariantBroken, NotFound, PontoonError
from projections.audit import deal_row
from projections.balances import balance_page
from projections.disputes import dispute_page

CORRECTION_ROWS = 3
RESOLVED_SHOWN = 20  # resolved disputes a page, newest first
OPEN_SHOWN = 500


CSV_COLUMNS = ("id", "raised_at", "club_day", "table", "deal_number", "deal_id", "raised_by",
               "reason", "status", "decision", "note", "corrections_total", "resolved_at")
STATUSES = ("any", "open", "resolved")


@bp.get("/disputes")
@staff_page("treasurer")
def disputes_page() -> Response:
    return _disputes_page(min_position=arg_int("min_position"))


@bp.get("/disputes.csv")
@staff_page("treasurer")
def disputes_csv() -> Response:
    """Every dispute the filters choose, oldest first."""
    store = read()
    chosen = _chosen(store)
    words = accounts_in_words(store)
    days = day_texts()
    rows = dispute_page(store, limit=100_000, **chosen["query"])
    deals = {row["deal_id"]: deal_row(store, row["deal_id"]) or {} for row in rows}
    return csv_response(({
        **row, "id": row["dispute_id"], "club_day": days(row["raised_at"]),
        "table": words.tables.get(deals[row["deal_id"]].get("table_id", ""), ""),
        "deal_number": deals[row["deal_id"]].get("number"),
        "raised_by": principal_words(row["raised_by"], words.players),
        "corrections_total": sum(c["amount"] for c in row["corrections"])}
        for row in rows), CSV_COLUMNS, "disputes.csv")


def _chosen(store: Any) -> dict[str, Any]:
    """The filters: a status, a club day, a table; what the lists are asked for."""
    status = arg_choice("status", STATUSES)
    day = request.args.get("day", "").strip()
    if day and len(day) != 10:
        raise FormError("`day` is a club day such as 2026-12-05.")
    start = arg_moment("day") if day else None
    end = arg_moment("day", end=True) if day else None
    table = request.args.get("table", "").strip()
    tables = {row["table_id"]: row["name"] for row in store.rows(
        "SELECT table_id, name FROM tables ORDER BY name_key, table_id")}
    if table and table not in tables:
        raise FormError("`table` is one of the club's tables.")
    query = {"status": None if status == "any" else status, "table_id": table or None,
             "start": start, "end": end}
    return {"query": query, "status": status, "day": day, "table": table,
            "tables": list(tables.items()),
            "filters": {k: v for k, v in (("status", status), ("day", day),
                                          ("table", table)) if v and v != "any"}}


@bp.post("/disputes/<uuid:dispute_id>/resolution")
@staff_page("treasurer")
def resolve(dispute_id: UUID) -> Response:
    form = request.form
    try:
        decision, note, corrections = _resolution(form)
    except FormError as error:
        return _disputes_page(400, failed=str(dispute_id), form=form, error=str(error),
                              error_field=error.field)
    try:
        outcome = ledger().resolve_dispute(str(dispute_id), decision=decision, note=note,
                                           corrections=corrections, resolved_by=g.web_who.id,
                                           allow_debt=form.get("allow_debt") == "yes")
    except PontoonError as error:
        if isinstance(error, NotFound | InvariantBroken):
            raise
        return _disputes_page(error.status, failed=str(dispute_id), form=form,
                              error=error.message, error_rule=error.rule)
    return redirect(url_for(".disputes_page", resolved=str(dispute_id),
                            min_position=outcome.position, _anchor="done"), 303)


def _disputes_page(status: int = 200, *, min_position: int | None = None, **extra: Any
                   ) -> Response:
    store = read(min_position)
    words = accounts_in_words(store)
    names = words.players
    choices = [(row["account"], words.name(row["account"]))
               for row in balance_page(store, ("player", "kitty", "treasury"),
                                       limit=10_000)]
    choices.sort(key=lambda c: ({"player": 0, "kitty": 1}.get(c[0].partition(":")[0], 2),
                                c[1].lower()))

    def shown(row: dict[str, Any]) -> dict[str, Any]:
        deal = deal_row(store, row["deal_id"]) or {}
        # R11.4's Decision: only the deal's players, banker and kitty, and the treasury.
        took_part = {f"player:{p}" for p in [deal.get("banker"),
                                             *json.loads(deal.get("players") or "[]")]}
        took_part |= {f"kitty:{deal.get('table_id')}", "treasury"}
        return dict(row, raised_by_words=principal_words(row["raised_by"], names),
                    choices=[c for c in choices if c[0] in took_part],
                    resolved_by_words=principal_words(row["resolved_by"], names),
                    deal_number=deal.get("number"),
                    table_name=words.tables.get(deal.get("table_id", ""), "a table"),
                    corrections=[dict(c, source=words.name(c["from_account"]),
                                      target=words.name(c["to_account"]),
                                      links=[words.link(c["from_account"]),
                                             words.link(c["to_account"])])
                                 for c in row["corrections"]])
    chosen = _chosen(store)
    within = {k: v for k, v in chosen["query"].items() if k != "status"}
    wanted = chosen["status"]
    open_ = [shown(row) for row in dispute_page(store, status="open", limit=OPEN_SHOWN,
                                                **within)] if wanted != "resolved" else []
    resolved_after = arg_int("resolved_after")
    resolved = [shown(row) for row in dispute_page(store, status="resolved",
                                                   after=resolved_after,
                                                   limit=RESOLVED_SHOWN, descending=True,
                                                   **within)] if wanted != "open" else []
    extra.setdefault("form", {})
    extra.setdefault("failed", None)
    just = request.args.get("resolved")
    done = next((shown(row) for row in dispute_page(store, status="resolved", limit=1_000,
                                                    descending=True)
                 if row["dispute_id"] == just), None) if just else None
    return render("disputes.html", status, open=open_, resolved=resolved,
                  resolved_after=resolved_after,
                  resolved_next=resolved[-1]["raised_position"]
                  if len(resolved) == RESOLVED_SHOWN else None,
                  choices=choices, rows=CORRECTION_ROWS, done=done, just=just,
                  min_position=min_position, raised=request.args.get("raised"),
                  chosen=chosen, **extra)


def _resolution(form: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """The decision, note and corrections a resolution form holds (FormError if unclear)."""
    decision = form.get("decision", "")
    if decision not in ("upheld", "rejected"):
        raise FormError("Choose a decision: upheld or rejected.", "decision")
    note = form.get("note", "").strip()
    if not 1 <= len(note) <= TEXT_MAX:
        raise FormError("Write a note for the decision (up to 2000 characters): it becomes "
                        "the reason of every correcting posting (R11.4).", "note")
    unstorable = text_problem(note, multiline=True)
    if unstorable is not None:
        raise FormError(f"The note: {unstorable}.", "note")
    corrections = []
    for row in range(1, CORRECTION_ROWS + 1):
        source = form.get(f"from_{row}", "").strip()
        target = form.get(f"to_{row}", "").strip()
        amount = form.get(f"amount_{row}", "").strip()
        if not (source or target or amount):
            continue
        if not (source and target and amount):
            missing = next(f"{what}_{row}" for what, given in (
                ("from", source), ("to", target), ("amount", amount)) if not given)
            raise FormError(f"Correction {row}: choose the account chips come from, the "
                            "account they go to and an amount, or leave all three empty.",
                            missing)
        try:
            chips = int(amount)
        except ValueError:
            raise FormError(f"Correction {row}: the amount must be a whole number of chips.",
                            f"amount_{row}") from None
        corrections.append({"from_account": source, "to_account": target, "amount": chips})
    return decision, note, corrections
