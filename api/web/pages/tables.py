"""The tables: the list of them, and one table with its seats, rules, every deal and its
kitty, drawn per change, per deal or per day for any period."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import request
from werkzeug import Response

from api.histories import history, player_of
from api.web.charts import kitty_chart, kitty_chart_by
from api.web.pages.lookups import deal_labels, ledger, player_names, read
from api.web.pages.session import staff_page
from api.web.pages.site import arg_choice, arg_int, arg_moment, arg_text, bp, render
from api.web.present import in_words
from projections.audit import kitty_players
from projections.statements import deal_nets, statement
from projections.store import ReadStore
from projections.tables import deal_page, table_page

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
    kitty = _kitty(store, str(table_id), engine.name) if rules.shoot else {}
    deals = _deals(store, str(table_id), names)
    return render("table.html", table_id=str(table_id), name=engine.name, seats=seats,
                  shoot=rules.shoot, kitty=engine.kitty, rules=rules.to_dict(),
                  deals_played=engine.deals_played, open_deal=engine.deal_id,
                  banker=names.get(engine.banker, "—"), pack_mode=engine.pack_mode,
                  commitment=engine.commitment, **kitty, **deals)


@bp.get("/tables/<uuid:table_id>/kitty.csv")
@staff_page()
def kitty_csv(table_id: UUID) -> Response:
    ledger().table(str(table_id))
    query = {"start": arg_moment("kitty_from"), "end": arg_moment("kitty_to", end=True),
             "order": "asc", "format": "csv"}
    return history(query, f"kitty:{table_id}",  # type: ignore[no-any-return]
                   filename=f"kitty-{table_id}.csv")


def _deals(store: ReadStore, table_id: str, names: dict[str, str]) -> dict[str, Any]:
    """A page of the table's deals, newest first unless asked, in a period if chosen."""
    order = arg_choice("order", ("desc", "asc"))
    after = arg_int("after")
    rows = deal_page(store, table_id, start=arg_moment("from"),
                     end=arg_moment("to", end=True), descending=order == "desc",
                     after=after, limit=PAGE)
    filters = {k: request.args[k] for k in ("from", "to", "order", "kitty_from", "kitty_to",
                                            "kitty_by") if request.args.get(k)}
    return {"deals": [dict(r, banker_name=names.get(r["banker"], "—"),
                           phase="in play" if r["phase"] == "open" else r["phase"])
                      for r in rows],
            "deal_filters": filters, "deals_after": after,
            "deals_next": rows[-1]["number"] if len(rows) == PAGE else None}


def _kitty(store: ReadStore, table_id: str, table_name: str) -> dict[str, Any]:
    """The kitty's chart for the period chosen, and a page of its changes, newest first."""
    account = f"kitty:{table_id}"
    start, end = arg_moment("kitty_from"), arg_moment("kitty_to", end=True)
    by = arg_choice("kitty_by", KITTY_VIEWS)
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
    after = arg_int("kitty_after")
    page = statement(store, account, after=after, limit=PAGE, start=start, end=end,
                     descending=True)
    deal_ids = {e["deal_id"] for e in page if e["deal_id"]}
    labels = deal_labels(store, deal_ids, {}, with_table=False)
    whose = kitty_players(store, deal_ids)
    names = player_names(store)
    entries = [dict(e, deal=labels.get(e["deal_id"] or ""),
                    reason=in_words(e, names.get(whose.get(e["posting_id"])
                                                           or player_of(e) or "")))
               for e in page]
    return {"chart": chart, "chart_by": by, "entries": entries, "changes": changes,
            "kitty_after": after,
            "kitty_next": page[-1]["position"] if len(page) == PAGE else None}


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
    return [(str(numbers.get(g["deal_id"], "")) if g["kind"] == "deal" else "·",
             int(g["balance_after"])) for g in groups]
