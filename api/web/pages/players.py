"""The players: found by name (the treasurer's), a player's own home page, and new sign-in
tokens the treasurer issues them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from flask import request
from werkzeug import Response

from api.inputs import text_problem
from api.web.pages.lookups import accounts_in_words, deal_labels, ledger, player_names, read
from api.web.pages.packs import awaiting
from api.web.pages.session import staff_page
from api.web.pages.site import FormError, arg_int, arg_text, bp, render
from api.web.present import principal_words
from domain.errors import InvariantBroken, NotFound, PontoonError
from projections.balances import players
from projections.disputes import dispute_page
from projections.statements import deal_nets
from projections.tokens import player_tokens

PAGE = 50
RECENT = 10  # a player's latest deals on their home page
DISPUTES_SHOWN = 50  # the disputes on a player's deals, newest first


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


def player_home(player_id: str, min_position: int | None = None) -> Response:
    """What a signed-in player sees first: their balance, their latest deals, the disputes
    on the deals they played in, and their sign-in tokens (by label)."""
    store = read(min_position)
    account = ledger().player_account(player_id)
    recent = deal_nets(store, f"player:{player_id}", limit=RECENT, descending=True)
    words = accounts_in_words(store)
    disputes = dispute_page(store, player_id=player_id, limit=DISPUTES_SHOWN, descending=True)
    labels = deal_labels(store, {r["deal_id"] for r in [*recent, *disputes] if r["deal_id"]},
                         words.tables)
    deals: list[dict[str, Any]] = [dict(r, deal=labels.get(r["deal_id"] or ""))
                                   for r in recent if r["kind"] == "deal"]
    return render("player_home.html", player_id=player_id, name=account.name,
                  balance=account.balance, deals=deals, waiting=awaiting(player_id),
                  tokens=tokens_shown(store, player_id),
                  disputes=[dict(d, deal=labels.get(d["deal_id"], d["deal_id"][:8]),
                                 raised_by_words=principal_words(d["raised_by"], words.players))
                            for d in disputes])


def tokens_shown(store: Any, player_id: str) -> list[dict[str, Any]]:
    """A player's tokens as the pages list them: labels and dates, never a token."""
    now = datetime.now(UTC).isoformat()
    return [dict(row, expired=bool(row["expires_at"]) and row["expires_at"] <= now)
            for row in player_tokens(store, player_id)]


@bp.post("/players/<uuid:player_id>/tokens")
@staff_page("treasurer")
def issue_token(player_id: UUID) -> Response:
    """A new sign-in token for a player, shown once on the page that answers; a refused
    form comes back on the statement, as typed, with what to correct."""
    from api.web.pages.balances import statement_page

    errors = {}
    label = request.form.get("label", "").strip() or None
    if label is not None and (len(label) > 100 or text_problem(label) is not None):
        errors["token-label"] = "A label is one line of at most 100 characters."
    try:
        expires_at = _end_of(request.form.get("expires", ""))
    except FormError as error:
        errors["token-expires"] = str(error)
    if errors:
        return statement_page(player_id, 400, token_errors=errors, typed=request.form)
    try:
        outcome = ledger().create_token("player", player_id=str(player_id), label=label,
                                        expires_at=expires_at)
    except PontoonError as refused:
        if isinstance(refused, NotFound | InvariantBroken):
            raise
        return statement_page(player_id, refused.status, typed=request.form,
                              token_errors={"": refused.message})
    name = player_names(read()).get(str(player_id)) or \
        ledger().player_account(str(player_id)).name
    return render("token_issued.html", 201, player_id=str(player_id), name=name,
                  token=outcome.result["token"], label=label,
                  expires_at=outcome.result["expires_at"], min_position=outcome.position)


def _end_of(day: str) -> datetime | None:
    """`Works until the end of` a date: the start of the next day, UTC."""
    if not day.strip():
        return None
    try:
        start = datetime.fromisoformat(day.strip()[:10]).replace(tzinfo=UTC)
    except ValueError:
        raise FormError("Give the last day the token works as a date (2027-01-31).") from None
    return start + timedelta(days=1)
