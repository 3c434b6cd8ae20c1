"""The tables: the list of them, and one table with its seats, rules, every deal and its
kitty, drawn per change, per deal or per day for any period."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import request, url_for
from werkzeug import Response

from api.histories import history, player_of
from api.web.charts import BETWEEN_DEALS, kitty_chart, kitty_chart_by
from api.web.pages.lookups import deal_labels, ledger, player_names, read
from api.web.pages.session import staff_page
from api.web.pages.site import (
    Fields,
    FormError,
    arg_choice,
    arg_int,
    arg_text,
    bp,
    render,
)
from api.web.present import in_words
from api.web.printout import left_out, period_words, printout, rows_shown, wants_all
from projections.audit import kitty_players
from projections.statements import deal_nets, entry_count, statement
from projections.store import ReadStore
from projections.tables import deal_count, deal_page, table_page

PAGE = 50  # tables, deals and kitty changes per page
CHANGES_DRAWN = 200  # up to this many changes, the chart marks each; beyond, per deal
DEALS_DRAWN = 1000  # up to this many deals, the chart draws each; beyond, per day
KITTY_VIEWS = ("auto", "change", "deal", "day")
GROUPS_MAX = 100_000  # deals (and put-ups) of one kitty read for its chart, in one query


@bp.get("/tables")
@staff_page()
def tables_page() -> Response:
    store = read(arg_int("min_position"))
    name, after = arg_text("name"), arg_text("after", 36)
    names = player_names(store)
    rows = [dict(row, banker_name=names.get(row["banker"], "—"))
            for row in table_page(store, name=name, after=after, limit=PAGE)]
    return render("tables.html", tables=rows, name=name or "", after=after,
                  next=rows[-1]["table_id"] if len(rows) == PAGE else None)


@bp.get("/tables/<uuid:table_id>")
@staff_page()
def table(table_id: UUID) -> Response:
    store = read(arg_int("min_position"))
    engine = ledger().table(str(table_id)).engine
    names = player_names(store)
    seats = [{"id": seat, "name": names.get(seat, seat[:8]), "banker": seat == engine.banker,
              "number": number} for number, seat in enumerate(engine.seats, start=1)]
    rules = engine.rules
    fields = Fields(**{"from": "Started from", "to": "To (inclusive)", "order": "Order",
                       "kitty_from": "Kitty from", "kitty_to": "Kitty to (inclusive)",
                       "kitty_by": "Chart"})
    kitty = _kitty(store, str(table_id), engine.name, fields) if rules.shoot else {}
    deals = _deals(store, str(table_id), names, fields)
    args = request.args
    period = f"deals {period_words(args.get('from'), args.get('to'), since='the first')}"
    if rules.shoot:
        kitty_period = period_words(args.get("kitty_from"), args.get("kitty_to"),
                                    since="from the first change")
        period += f"; the kitty {kitty_period}"
    return render("table.html", 400 if fields.errors else 200, errors=fields.errors,
                  printout=printout(period),
                  table_id=str(table_id), name=engine.name, seats=seats,
                  shoot=rules.shoot, kitty=engine.kitty, rules=rules.to_dict(),
                  deals_played=engine.deals_played, open_deal=engine.deal_id,
                  banker=names.get(engine.banker, "—"), pack_mode=engine.pack_mode,
                  commitment=engine.commitment, **kitty, **deals)


@bp.get("/tables/<uuid:table_id>/kitty.csv")
@staff_page()
def kitty_csv(table_id: UUID) -> Response:
    ledger().table(str(table_id))
    fields = Fields()
    start, end = fields.period("kitty_from", "kitty_to")
    if fields.errors:
        raise FormError(next(iter(fields.errors.values())))
    query = {"start": start, "end": end, "order": "asc", "format": "csv"}
    return history(query, f"kitty:{table_id}",  # type: ignore[no-any-return]
                   filename=f"kitty-{table_id}.csv")


def _deals(store: ReadStore, table_id: str, names: dict[str, str], fields: Fields
           ) -> dict[str, Any]:
    """A page of the table's deals (or all, `rows=all`), newest first unless asked, in a
    period if chosen; none while its form is refused."""
    start, end = fields.period()
    order = fields.read(arg_choice, "order", ("desc", "asc")) or "desc"
    after = None if wants_all() else fields.read(arg_int, "after")
    filters = {k: request.args[k] for k in ("from", "to", "order", "kitty_from", "kitty_to",
                                            "kitty_by") if request.args.get(k)}
    if fields.errors.keys() & {"from", "to", "order", "after"}:
        return {"deals": None, "deal_filters": filters}
    rows = deal_page(store, table_id, start=start, end=end, descending=order == "desc",
                     after=after, limit=rows_shown(PAGE))
    return {"deals": [dict(r, banker_name=names.get(r["banker"], "—"),
                           phase="in play" if r["phase"] == "open" else r["phase"])
                      for r in rows],
            "deal_filters": filters, "deals_after": after,
            "deals_next": rows[-1]["number"] if len(rows) == PAGE and not wants_all()
            else None,
            "deals_gap": left_out(len(rows), deal_count(store, table_id, start=start, end=end),
                                  "deals", _all_rows(table_id, filters))}


def _all_rows(table_id: str, filters: dict[str, str]) -> str:
    return url_for(".table", table_id=table_id, rows="all", **filters, _external=True)


def _kitty(store: ReadStore, table_id: str, table_name: str, fields: Fields
           ) -> dict[str, Any]:
    """The kitty's chart for the period chosen, and a page of its changes (or all of them,
    `rows=all`), newest first; nothing while its form is refused."""
    account = f"kitty:{table_id}"
    start, end = fields.period("kitty_from", "kitty_to")
    by = fields.read(arg_choice, "kitty_by", KITTY_VIEWS) or "auto"
    if fields.errors.keys() & {"kitty_from", "kitty_to", "kitty_by"}:
        return {"chart": None, "entries": None, "changes": 0}
    groups = deal_nets(store, account, start=start, end=end, limit=GROUPS_MAX)
    changes = sum(int(g["postings"]) for g in groups)
    if by == "auto":
        by = "change" if changes <= CHANGES_DRAWN else \
            "deal" if len(groups) <= DEALS_DRAWN else "day"
    title = f"Kitty of {table_name}: chips after each {by}"
    if not groups:
        chart = None
    elif by == "change":
        chart = kitty_chart(statement(store, account, start=start, end=end, limit=10_000),
                            title=title, chart_id="kitty-chart")
    else:
        chart = kitty_chart_by(_points(store, groups, by), by=by, title=title,
                               chart_id="kitty-chart")
    after = None if wants_all() else arg_int("kitty_after")
    page = statement(store, account, after=after, limit=rows_shown(PAGE), start=start,
                     end=end, descending=True)
    deal_ids = {e["deal_id"] for e in page if e["deal_id"]}
    labels = deal_labels(store, deal_ids, {}, with_table=False)
    whose = kitty_players(store, deal_ids)
    names = player_names(store)
    entries = [dict(e, deal=labels.get(e["deal_id"] or ""),
                    reason=in_words(e, names.get(whose.get(e["posting_id"])
                                                           or player_of(e) or "")))
               for e in page]
    filters = {k: request.args[k] for k in ("from", "to", "order", "kitty_from", "kitty_to",
                                            "kitty_by") if request.args.get(k)}
    return {"chart": chart, "chart_by": by, "entries": entries, "changes": changes,
            "kitty_after": after,
            "kitty_next": page[-1]["position"] if len(page) == PAGE and not wants_all()
            else None,
            "kitty_gap": left_out(len(page), entry_count(store, account, start=start, end=end),
                                  "changes of the kitty", _all_rows(table_id, filters),
                                  url_for(".kitty_csv", table_id=table_id, _external=True,
                                          **{k: v for k, v in filters.items()
                                             if k in ("kitty_from", "kitty_to")}))}


def _points(store: ReadStore, groups: list[dict[str, Any]], by: str) -> list[tuple[str, int]]:
    """The kitty after each deal (a put-up between deals is a point of its own), or at the
    end of each day."""
    if by == "day":
        days: dict[str, int] = {}
        for group in groups:
            days[group["last_at"][:10]] = int(group["balance_after"])
        return list(days.items())
    numbers = {r["deal_id"]: r["number"] for r in store.rows(
        "SELECT deal_id, number FROM deals WHERE table_id = %s",
        (groups[0]["table_id"] or "",))} if groups else {}
    return [(str(numbers.get(g["deal_id"], "")) if g["kind"] == "deal" else BETWEEN_DEALS,
             int(g["balance_after"])) for g in groups]
