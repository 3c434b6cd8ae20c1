"""The tables: the list of them, and one table with its seats, rules and kitty chart."""

from __future__ import annotations

from uuid import UUID

from werkzeug import Response

from api.web.charts import kitty_chart
from api.web.pages.lookups import deal_labels, ledger, player_names, read
from api.web.pages.session import staff_page
from api.web.pages.site import arg_int, bp, render
from projections.statements import statement
from projections.tables import deals_of, tables

KITTY_ENTRIES = 1000  # kitty changes drawn on a table's page
RECENT_DEALS = 20


@bp.get("/tables")
@staff_page()
def tables_page() -> Response:
    store = read()
    names = player_names(store)
    rows = [dict(row, banker_name=names.get(row["banker"], "—")) for row in tables(store)]
    return render("tables.html", tables=rows)


@bp.get("/tables/<uuid:table_id>")
@staff_page()
def table(table_id: UUID) -> Response:
    store = read(arg_int("min_position"))
    engine = ledger().table(str(table_id)).engine
    names = player_names(store)
    seats = [{"id": seat, "name": names.get(seat, seat[:8]), "banker": seat == engine.banker,
              "number": number} for number, seat in enumerate(engine.seats, start=1)]
    rules = engine.rules
    entries = statement(store, f"kitty:{table_id}", limit=KITTY_ENTRIES) if rules.shoot else []
    chart = kitty_chart(entries, title=f"Kitty of {engine.name}: chips after each change",
                        chart_id="kitty-chart") if entries else None
    deals = [dict(row, banker_name=names.get(row["banker"], "—"))
             for row in deals_of(store, str(table_id), limit=RECENT_DEALS)]
    labels = deal_labels(store, {e["deal_id"] for e in entries if e["deal_id"]}, {},
                         with_table=False)
    entries = [dict(e, deal=labels.get(e["deal_id"] or "")) for e in entries]
    return render("table.html", table_id=str(table_id), name=engine.name, seats=seats,
                  shoot=rules.shoot, kitty=engine.kitty, rules=rules.to_dict(),
                  deals_played=engine.deals_played, open_deal=engine.deal_id,
                  banker=names.get(engine.banker, "—"), pack_mode=engine.pack_mode,
                  commitment=engine.commitment, entries=entries, chart=chart, deals=deals,
                  capped=len(entries) == KITTY_ENTRIES)
