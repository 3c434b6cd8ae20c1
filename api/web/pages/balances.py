"""The money pages: account balances, one player's statement (the treasurer's, or the
player's own), and their CSV downloads."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import g, request, url_for
from werkzeug import Response

from api.downloads import balances_download
from api.histories import described, history
from api.web.pages.lookups import accounts_in_words, deal_labels, ledger, read
from api.web.pages.players import tokens_shown
from api.web.pages.session import EVERYONE, not_for_this_token, staff_page
from api.web.pages.site import (
    Fields,
    FormError,
    arg_choice,
    arg_cutoff,
    arg_int,
    arg_text,
    bp,
    render,
)
from api.web.present import shown_reason
from api.web.printout import left_out, period_words, printout, rows_shown, wants_all
from application.eventstore import checkpoint
from projections.asof import standing
from projections.balances import KINDS, account_count, balance_page, balance_totals
from projections.statements import balance_at, deal_nets, entry_count, statement

PAGE = 50  # rows per page of a statement or of the balances
KIND_CHOICES = ("player,kitty,treasury", "player", "kitty", "treasury", "escrow",
                "player,kitty,treasury,escrow")


@bp.get("/balances")
@staff_page("treasurer")
def balances_page() -> Response:
    store = read(arg_int("min_position"))
    kinds = arg_choice("kind", KIND_CHOICES)
    after = None if wants_all() else arg_text("after")
    chosen = [k for k in KINDS if k in kinds.split(",")]
    fields = Fields(as_of="As of")
    cutoff = fields.read(arg_cutoff, "as_of")
    as_of = request.args.get("as_of", "").strip()
    if fields.errors:  # the form again, as typed, with what to correct
        return render("balances.html", 400, accounts=None, kind=kinds, kinds=KIND_CHOICES,
                      as_of=as_of, errors=fields.errors)
    rows = balance_page(store, chosen, after=after, limit=rows_shown(PAGE))
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
                  after=after, checkpoint=checkpoint(ledger()), cutoff=cutoff, as_of=as_of,
                  errors={},
                  next=rows[-1]["account"] if len(rows) == PAGE and not wants_all() else None,
                  gap=left_out(len(rows), account_count(store, chosen), "accounts",
                               url_for(".balances_page", kind=kinds, rows="all",
                                       **({"as_of": as_of} if as_of else {}), _external=True),
                               url_for(".balances_csv", kind=kinds, _external=True)),
                  printout=printout(f"balances as of {as_of}" if as_of else "balances now"))


@bp.get("/players/<uuid:player_id>")
@staff_page(*EVERYONE)
def player(player_id: UUID) -> Response:
    if refused := _not_theirs(player_id):
        return refused
    return statement_page(player_id)


def statement_page(player_id: UUID, status: int = 200, *,
                   token_errors: dict[str, str] | None = None, typed: Any = None) -> Response:
    """A player's statement for the period chosen; `token_errors` and `typed`: the new
    token's form refused, as it was typed (players.py `issue_token`)."""
    fields = Fields(**{"from": "From", "to": "To (inclusive)", "order": "Order",
                       "view": "Show"})
    choice = _statement_choice(fields)
    after = None if wants_all() else fields.read(arg_int, "after")
    store = read(arg_int("min_position"))
    account = ledger().player_account(str(player_id))
    name = f"player:{player_id}"
    words = accounts_in_words(store)
    shown = words.players.get(str(player_id), account.name)
    mine = {"token_errors": token_errors or {}, "typed": typed or {},
            "tokens": tokens_shown(store, str(player_id))}
    if fields.errors:  # the form again, as typed, with what to correct
        return render("player.html", 400, player_id=str(player_id), name=shown,
                      balance=account.balance, entries=None, filters=_filters(),
                      brought_forward=None, view=choice["view"], errors=fields.errors, **mine)
    fetch = deal_nets if choice["view"] == "deals" else statement
    rows = fetch(store, name, after=after, limit=rows_shown(PAGE), start=choice["start"],
                 end=choice["end"], descending=choice["order"] == "desc")
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
    total = entry_count(store, name, start=choice["start"], end=choice["end"],
                        by_deal=choice["view"] == "deals")
    return render("player.html", status, player_id=str(player_id), name=shown, **mine,
                  balance=account.balance, entries=entries, after=after,
                  brought_forward=forward, filters=_filters(), view=choice["view"], errors={},
                  next=rows[-1]["position"] if len(rows) == PAGE and not wants_all() else None,
                  gap=left_out(len(rows), total, "deals and postings" if choice["view"] ==
                               "deals" else "postings", url_for(
                                   ".player", player_id=player_id, rows="all", **_filters(),
                                   _external=True),
                               url_for(".statement_csv", player_id=player_id, **_filters(),
                                       _external=True)),
                  printout=printout(period_words(request.args.get("from"),
                                                 request.args.get("to"),
                                                 since="the first posting")))


@bp.get("/players/<uuid:player_id>/statement.csv")
@staff_page(*EVERYONE)
def statement_csv(player_id: UUID) -> Response:
    if refused := _not_theirs(player_id):
        return refused
    ledger().player_account(str(player_id))
    fields = Fields()
    choice = _statement_choice(fields)
    if fields.errors:
        raise FormError(next(iter(fields.errors.values())))
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


def _statement_choice(fields: Fields) -> dict[str, Any]:
    start, end = fields.period()
    return {"start": start, "end": end,
            "order": fields.read(arg_choice, "order", ("asc", "desc")) or "asc",
            "view": fields.read(arg_choice, "view", ("postings", "deals")) or "postings"}


def _not_theirs(player_id: UUID) -> Response | None:
    """The treasurer reads every statement; a player only their own."""
    who = g.web_who
    if who.role == "treasurer" or who.player_id == str(player_id):
        return None
    return not_for_this_token("A statement is for the treasurer and for the player it "
                              "belongs to.")
