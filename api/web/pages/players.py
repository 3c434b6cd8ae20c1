"""The players: found by name (the treasurer's), and a player's own home page."""

from __future__ import annotations

from typing import Any

from werkzeug import Response

from api.web.pages.lookups import accounts_in_words, deal_labels, ledger, player_names, read
from api.web.pages.packs import awaiting
from api.web.pages.session import staff_page
from api.web.pages.site import arg_int, arg_text, bp, render
from projections.balances import players
from projections.statements import deal_nets

PAGE = 50
RECENT = 10  # a player's latest deals on their home page


@bp.get("/players")
@staff_page("treasurer")
def players_page() -> Response:
    store = read(arg_int("min_position"))
    name, after = arg_text("name"), arg_text("after", 36)
    rows = players(store, name=name, after=after, limit=PAGE)
    shown = player_names(store)
    return render("players.html", players=[dict(row, label=shown[row["id"]]) for row in rows],
                  name=name or "", after=after,
                  next=rows[-1]["id"] if len(rows) == PAGE else None)


def player_home(player_id: str) -> Response:
    """What a signed-in player sees first: their balance and their latest deals."""
    store = read()
    account = ledger().player_account(player_id)
    recent = deal_nets(store, f"player:{player_id}", limit=RECENT, descending=True)
    words = accounts_in_words(store)
    labels = deal_labels(store, {r["deal_id"] for r in recent if r["deal_id"]}, words.tables)
    deals: list[dict[str, Any]] = [dict(r, deal=labels.get(r["deal_id"] or ""))
                                   for r in recent if r["kind"] == "deal"]
    return render("player_home.html", player_id=player_id, name=account.name,
                  balance=account.balance, deals=deals, waiting=awaiting(player_id))
