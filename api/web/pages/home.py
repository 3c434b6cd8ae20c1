"""The page a staff member lands on, and the page for an address that has none."""

from __future__ import annotations

from flask import g
from werkzeug import Response

from api.web.pages.lookups import player_names, read
from api.web.pages.players import player_home
from api.web.pages.session import EVERYONE, staff_page
from api.web.pages.site import arg_int, bp, render
from projections.disputes import disputes
from projections.tables import tables


@bp.get("/")
@staff_page(*EVERYONE)
def home() -> Response:
    if g.web_who.role == "player":
        return player_home(g.web_who.player_id, arg_int("min_position"))
    store = read()
    open_disputes = len(disputes(store, "open")) if g.web_who.role == "treasurer" else None
    players = len(player_names(store))
    return render("home.html", tables=len(tables(store)), players=players,
                  open_disputes=open_disputes)


@bp.route("/<path:unknown>")
@staff_page(*EVERYONE)
def not_found(unknown: str) -> Response:
    return render("error.html", 404, title="Not found",
                  message="There is no page at this address.")
