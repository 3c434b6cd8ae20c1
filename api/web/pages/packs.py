"""A table's pack as a seated player sees it between deals: its commitment, the players'
contributions so far, and a form to add one's own (R1.7's December Decision).

The form works without JavaScript (the player types or pastes 64 hex digits of their own);
with it, a small script of the site's own (static/contribute.js) fills the field with 32
bytes from the browser's `crypto.getRandomValues`, so the randomness never comes from the
service. That script is this page's alone: every other page allows none.
"""

from __future__ import annotations

from uuid import UUID

from flask import g, redirect, request, url_for
from werkzeug import Response

from api.web.pages.lookups import ledger, player_names, read
from api.web.pages.session import EVERYONE, not_for_this_token, staff_page
from api.web.pages.site import arg_int, bp, render
from domain.errors import NotFound, PontoonError
from projections.tables import packs_awaiting_a_deal


@bp.get("/tables/<uuid:table_id>/pack")
@staff_page(*EVERYONE)
def pack(table_id: UUID) -> Response:
    if refused := _not_seated(str(table_id)):
        return refused
    return _pack_page(str(table_id), min_position=arg_int("min_position"),
                      added=request.args.get("added") == "1")


@bp.post("/tables/<uuid:table_id>/contributions")
@staff_page("player")
def add_contribution(table_id: UUID) -> Response:
    if refused := _not_seated(str(table_id)):
        return refused
    value = request.form.get("value", "").strip()
    if len(value) != 64 or not all(c in "0123456789abcdefABCDEF" for c in value):
        return _pack_page(str(table_id), 400, value=value, error_field="value",
                          error="Your randomness is 64 hex digits (0-9, a-f): 32 random bytes.")
    try:
        outcome = ledger().contribute(str(table_id), g.web_who.player_id, value,
                                      actor=g.web_who.id)
    except PontoonError as error:
        if isinstance(error, NotFound):
            raise
        return _pack_page(str(table_id), error.status, value=value, error=error.message,
                          error_rule=error.rule)
    return redirect(url_for(".pack", table_id=table_id, added=1,
                            min_position=outcome.position), 303)


def _not_seated(table_id: str) -> Response | None:
    """Staff read any table's pack; a player those of the tables they sit at."""
    who = g.web_who
    engine = ledger().table(table_id).engine  # 404 for an unknown table
    if who.role != "player" or who.player_id in engine.seats:
        return None
    return not_for_this_token("A player reads the packs of the tables they sit at.")


def _pack_page(table_id: str, status: int = 200, **extra: object) -> Response:
    store = read(extra.pop("min_position", None))  # type: ignore[arg-type]
    engine = ledger().table(table_id).engine
    names = player_names(store)
    who = g.web_who
    mine = who.role == "player" and any(c["player_id"] == who.player_id
                                        for c in engine.contributions)
    return render("pack.html", status, table_id=table_id, name=engine.name,
                  mode=engine.pack_mode, commitment=engine.commitment,
                  accepting=engine.contributions_open, mine=mine,
                  may_add=who.role == "player" and engine.contributions_open and not mine,
                  contributions=[dict(c, name=names.get(c["player_id"], c["player_id"][:8]))
                                 for c in engine.contributions],
                  scripts=True, **extra)


def awaiting(player_id: str) -> list[dict[str, str]]:
    """The tables the player sits at whose pack awaits its first card and their randomness:
    a link for each on the player's home page."""
    found = []
    for table_id in packs_awaiting_a_deal(read()):
        engine = ledger().table(table_id).engine
        if player_id in engine.seats and engine.contributions_open and not any(
                c["player_id"] == player_id for c in engine.contributions):
            found.append({"table_id": table_id, "name": engine.name})
    return found
