"""The money pages: account balances, one player's statement (the treasurer's, or the
player's own), and their CSV downloads."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import g, request
from werkzeug import Response

from api.downloads import balances_download
from api.histories import described, history
from api.web.pages.lookups import accounts_in_words, deal_labels, ledger, read
from api.web.pages.players import tokens_shown
from api.web.pages.session import EVERYONE, not_for_this_token, staff_page
from api.web.pages.site import (
    arg_choice,
    arg_cutoff,
    arg_int,
    arg_moment,
    arg_text,
    bp,
    render,
)
from api.web.present import shown_reason
from application.eventstore import checkpoint
from projections.asof import standing
from projections.balances import KINDS, balance_page, balance_totals
from projections.statements import balance_at, deal_nets, statement

PAGE = 50  # rows per page of a statement or of the balances
KIND_CHOICES = ("player,kitty,treasury", "player", "kitty", "treasury", "escrow",
                "player,kitty,treasury,escrow")


@bp.get("/balances")
@staff_page("treasurer")
def balances_page() -> Response:
    store = read(arg_int("min_position"))
    kinds = arg_choice("kind", KIND_CHOICES)
    after = arg_text("after")
    chosen = [k for k in KINDS if k in kinds.split(",")]
    rows = balance_page(store, chosen, after=after, limit=PAGE)
    cutoff = arg_cutoff("as_of")
    if cutoff is None:
        totals = balance_totals(store)
        debtors = int(store.rows("SELECT COUNT(*) AS n FROM accounts WHERE kind = 'player' "
                                 "AND balance < 0")[0]["n"])
    else:  # every account as it stood then
        then = standing(store, cutoff)
        rows = [dict(row, balance=then.get(row["account"], 0)) for row in rows]
        debt = [b for a, b in then.items() if a.startswith("player:") and b < 0]
        totals, debtors = {"total": sum(then.values()), "debts": sum(debt)}, len(debt)
    words = accounts_in_words(store)
    shown = [dict(row, label=words.name(row["account"]), link=words.link(row["account"]))
             for row in rows]
    return render("balances.html", accounts=shown, total=totals["total"],
                  debts=totals["debts"], debtors=debtors, kind=kinds, kinds=KIND_CHOICES,
                  after=after, checkpoint=checkpoint(ledger()), cutoff=cutoff,
                  as_of=request.args.get("as_of", "").strip(),
                  next=rows[-1]["account"] if len(rows) == PAGE else None)


@bp.get("/players/<uuid:player_id>")
@staff_page(*EVERYONE)
def player(player_id: UUID) -> Response:
    if refused := _not_theirs(player_id):
        return refused
    choice = _statement_choice()
    after = arg_int("after")
    store = read(arg_int("min_position"))
    account = ledger().player_account(str(player_id))
    name = f"player:{player_id}"
    fetch = deal_nets if choice["view"] == "deals" else statement
    rows = fetch(store, name, after=after, limit=PAGE, start=choice["start"],
                 end=choice["end"], descending=choice["order"] == "desc")
    words = accounts_in_words(store)
    labels = deal_labels(store, {row["deal_id"] for row in rows if row["deal_id"]},
                         words.tables)

    def other(row: dict[str, Any]) -> str:
        if "from_account" not in row:
            return ""
        account = row["to_account"] if row["change"] < 0 else row["from_account"]
        return "the stakes on the table" if account.startswith("escrow:") \
            else words.name(account)
    entries = [dict(row, other=other(row), deal=labels.get(row["deal_id"] or ""),
                    reason=shown_reason(row))
               for row in described(store, rows)]
    forward = balance_at(store, name, position=after) if after and \
        choice["order"] == "asc" and choice["view"] == "postings" else None
    return render("player.html", player_id=str(player_id),
                  name=words.players.get(str(player_id), account.name),
                  balance=account.balance, entries=entries, after=after,
                  brought_forward=forward, filters=_filters(), view=choice["view"],
                  next=rows[-1]["position"] if len(rows) == PAGE else None,
                  tokens=tokens_shown(store, str(player_id)))


@bp.get("/players/<uuid:player_id>/statement.csv")
@staff_page(*EVERYONE)
def statement_csv(player_id: UUID) -> Response:
    if refused := _not_theirs(player_id):
        return refused
    ledger().player_account(str(player_id))
    choice = _statement_choice()
    return history({**choice, "format": "csv"}, f"player:{player_id}",  # type: ignore[no-any-return]
                   by_deal=choice["view"] == "deals", filename=f"statement-{player_id}.csv")


@bp.get("/balances.csv")
@staff_page("treasurer")
def balances_csv() -> Response:
    kinds = arg_choice("kind", KIND_CHOICES)
    return balances_download(read(), [k for k in KINDS if k in kinds.split(",")],
                             arg_cutoff("as_of"))


def _filters() -> dict[str, str]:
    """The period, order and view chosen, to keep in links (the defaults left out)."""
    return {name: request.args[name] for name in ("from", "to", "order", "view")
            if request.args.get(name) and request.args[name] not in ("asc", "postings")}


def _statement_choice() -> dict[str, Any]:
    return {"start": arg_moment("from"), "end": arg_moment("to", end=True),
            "order": arg_choice("order", ("asc", "desc")),
            "view": arg_choice("view", ("postings", "deals"))}


def _not_theirs(player_id: UUID) -> Response | None:
    """The treasurer reads every statement; a player only their own."""
    who = g.web_who
    if who.role == "treasurer" or who.player_id == str(player_id):
        return None
    return not_for_this_token("A statement is for the treasurer and for the player it "
                              "belongs to.")
