"""The treasurer's money pages: every account's balance, and one player's statement."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from werkzeug import Response

from api.web.pages.lookups import accounts_in_words, deal_labels, ledger, read
from api.web.pages.session import staff_page
from api.web.pages.site import arg_int, bp, render
from application.chain import checkpoint
from projections.balances import balances
from projections.statements import balance_at, statement

PAGE = 50  # statement entries per page
KINDS_ORDER = {"player": 0, "kitty": 1, "treasury": 2, "escrow": 3}


@bp.get("/balances")
@staff_page("treasurer")
def balances_page() -> Response:
    store = read(arg_int("min_position"))
    rows = balances(store)
    words = accounts_in_words(store)
    shown = [dict(row, label=words.name(row["account"]), link=words.link(row["account"]))
             for row in rows if row["kind"] != "escrow" or row["balance"] != 0]
    shown.sort(key=lambda r: (KINDS_ORDER.get(r["kind"], 9), r["label"].lower()))
    debtors = [row for row in rows if row["kind"] == "player" and row["balance"] < 0]
    return render("balances.html", accounts=shown, total=sum(r["balance"] for r in rows),
                  debts=sum(r["balance"] for r in debtors), debtors=len(debtors),
                  hidden=len(rows) - len(shown), checkpoint=checkpoint(ledger()))


@bp.get("/players/<uuid:player_id>")
@staff_page("treasurer")
def player(player_id: UUID) -> Response:
    min_position, after = arg_int("min_position"), arg_int("after", 0) or 0
    store = read(min_position)
    account = ledger().player_account(str(player_id))
    name = f"player:{player_id}"
    rows = statement(store, name, after=after, limit=PAGE)
    words = accounts_in_words(store)
    labels = deal_labels(store, {row["deal_id"] for row in rows if row["deal_id"]},
                         words.tables)

    def other(row: dict[str, Any]) -> str:
        account = row["to_account"] if row["change"] < 0 else row["from_account"]
        return "the stakes on the table" if account.startswith("escrow:") \
            else words.name(account)
    entries = [dict(row, other=other(row), deal=labels.get(row["deal_id"] or ""))
               for row in rows]
    return render("player.html", player_id=str(player_id), name=account.name,
                  balance=account.balance, entries=entries, after=after,
                  brought_forward=balance_at(store, name, position=after) if after else 0,
                  next=rows[-1]["position"] if len(rows) == PAGE else None)
