"""The treasurer's pages under /web: sign in with a staff token, read the ledger, resolve
disputes.

Reads come from the read models (projections/), as the API's do; commands go to the same
Ledger. The bearer token is kept in an HttpOnly, SameSite=Strict cookie scoped to /web,
and every form carries a token derived from it (a second guard against cross-site posts).
A refused command is shown on the page it came from, naming the rule, never as JSON.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

from flask import (
    Blueprint,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug import Response
from werkzeug.exceptions import HTTPException

from api.auth import Principal
from api.reads import names, read_store
from api.services import ProjectionsBehind, Services
from api.web.charts import kitty_chart
from api.web.present import (
    Accounts,
    card,
    clock,
    describe,
    principal_words,
    signed,
    when,
)
from application import Ledger
from domain.errors import NotFound, PontoonError
from projections.audit import audit, deal_history, deal_row
from projections.balances import balances
from projections.disputes import disputes
from projections.statements import balance_at, statement
from projections.store import ReadStore
from projections.tables import deals_of, tables

log = logging.getLogger("pontoon.web")

bp = Blueprint("web", __name__, url_prefix="/web", template_folder="templates",
               static_folder="static", static_url_path="/static")

COOKIE = "pontoon_web_token"
COOKIE_AGE = 12 * 3600
STAFF = ("treasurer", "operator")
PAGE = 50  # statement entries per page
KITTY_ENTRIES = 1000  # kitty changes drawn on a table's page
CORRECTION_ROWS = 3
TEXT_MAX = 2000


class FormError(Exception):
    """A form filled in wrongly (400), shown on the page the form is on."""


# --- who is signed in ------------------------------------------------------------------

def services() -> Services:
    return current_app.extensions["pontoon"]  # type: ignore[no-any-return]


def ledger() -> Ledger:
    return services().ledger


def signed_in() -> Principal | None:
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    return services().principal(token)


def csrf_token() -> str:
    """Derived from the signed-in token, which a page elsewhere cannot read (HttpOnly)."""
    token = request.cookies.get(COOKIE, "")
    return hmac.new(b"pontoon-web-form", token.encode(), hashlib.sha256).hexdigest()


def staff_page(*roles: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Sign-in required; the principal's role must be one of `roles` (default: staff)."""
    allowed = roles or STAFF

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            who = signed_in()
            if who is None:
                return redirect(url_for(".sign_in", next=_here()))
            g.web_who = who
            if who.role not in allowed:
                needs = " or ".join(allowed)
                return render("error.html", 403, title="Not for this token",
                              message=f"You are signed in with a {who.role} token; this page "
                                      f"is for the {needs} only.")
            if request.method == "POST" and not hmac.compare_digest(
                    request.form.get("csrf", ""), csrf_token()):
                return render("error.html", 400, title="The form could not be accepted",
                              message="The form came from an old page or another site. "
                                      "Reload the page and send it again.")
            return view(*args, **kwargs)
        return wrapped
    return decorate


def _here() -> str:
    return request.full_path.rstrip("?")


def _safe_next(target: str | None) -> str:
    """Only a page of this site under /web/ (never another host)."""
    if target and target.startswith("/web/") and not target.startswith("/web/sign-") \
            and "//" not in target and "\\" not in target and not urlsplit(target).netloc:
        return target
    return url_for(".home")


# --- rendering ---------------------------------------------------------------------------

def render(template: str, status: int = 200, **context: Any) -> Response:
    response = make_response(render_template(template, **context), status)
    return response


@bp.context_processor
def helpers() -> dict[str, Any]:
    who = g.get("web_who")
    return {"who": who, "staff": who is not None and who.is_staff,
            "is_treasurer": who is not None and who.role == "treasurer",
            "csrf": csrf_token() if who else "",
            "card": card, "when": when, "clock": clock, "signed": signed}


@bp.after_request
def headers(response: Response) -> Response:
    if response.mimetype == "text/html":
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'none'; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
    return response


def read(min_position: int | None = None) -> ReadStore:
    """The read models, once they have applied `min_position` (read your own writes)."""
    return read_store(min_position)


def arg_int(name: str, default: int | None = None) -> int | None:
    value = request.args.get(name)
    if value is None or value == "":
        return default
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise FormError(f"`{name}` must be a whole number")
    return int(value)


def player_names(store: ReadStore) -> dict[str, str]:
    return names(store)


def table_names(store: ReadStore) -> dict[str, str]:
    return {row["table_id"]: row["name"] for row in tables(store)}


def accounts_in_words(store: ReadStore) -> Accounts:
    return Accounts(player_names(store), table_names(store))


def deal_labels(store: ReadStore, deal_ids: set[str], tables_by_id: dict[str, str],
                *, with_table: bool = True) -> dict[str, str]:
    """`Friday school, deal 3` (or `deal 3`) for each deal named on a page."""
    labels = {}
    for deal_id in deal_ids:
        row = deal_row(store, deal_id)
        if row is None:
            labels[deal_id] = deal_id[:8]
            continue
        table_name = tables_by_id.get(row["table_id"], "a table")
        labels[deal_id] = f"{table_name}, deal {row['number']}" if with_table \
            else f"deal {row['number']}"
    return labels


# --- errors as pages -------------------------------------------------------------------

@bp.errorhandler(FormError)
def form_error(error: FormError) -> Response:
    return render("error.html", 400, title="Something in the request is not right",
                  message=str(error))


@bp.errorhandler(PontoonError)
def refused(error: PontoonError) -> Response:
    if isinstance(error, NotFound):
        return render("error.html", 404, title="Not found", message=error.message)
    return render("error.html", error.status, title="Refused", message=error.message,
                  rule=error.rule)


@bp.errorhandler(ProjectionsBehind)
def behind(error: ProjectionsBehind) -> Response:
    response = render("error.html", 503, title="The ledger's pages are catching up",
                      message=f"{error}. Reload this page in a moment.", retry=_here())
    response.headers["Retry-After"] = "1"
    return response


@bp.errorhandler(HTTPException)
def http_error(error: HTTPException) -> Response:
    code = error.code or 500
    return render("error.html", code, title=error.name, message=error.description)


@bp.errorhandler(Exception)
def unexpected(error: Exception) -> Response:
    log.exception("unexpected error on a web page")
    return render("error.html", 500, title="The page failed",
                  message="Something went wrong on our side; nothing was recorded by this "
                          "page. Try again, and tell the club's operator if it persists.")


# --- signing in and out ----------------------------------------------------------------

@bp.route("/sign-in", methods=["GET", "POST"])
def sign_in() -> Response:
    target = _safe_next(request.values.get("next"))
    if request.method == "GET":
        return render("sign_in.html", next=target,
                      signed_out=request.args.get("signed_out") == "1")
    token = request.form.get("token", "").strip()
    who = services().principal(token) if token and len(token) <= 500 else None
    if who is None:
        return render("sign_in.html", 401, next=target,
                      error="This token is not known to the ledger. Check it and try again.")
    if who.role not in STAFF:
        return render("error.html", 403, title="Player tokens cannot sign in here",
                      message="These pages are for the treasurer and operators. A player's "
                              "token only works with the API, for that player's own seat.")
    response = redirect(target, 303)
    response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, path="/web", httponly=True,
                        samesite="Strict", secure=request.is_secure)
    return response


@bp.route("/sign-out", methods=["GET", "POST"])
def sign_out() -> Response:
    response = redirect(url_for(".sign_in", signed_out=1), 303)
    response.delete_cookie(COOKIE, path="/web", httponly=True, samesite="Strict",
                           secure=request.is_secure)
    return response


# --- pages ------------------------------------------------------------------------------

@bp.get("/")
@staff_page()
def home() -> Response:
    store = read()
    open_disputes = len(disputes(store, "open")) if g.web_who.role == "treasurer" else None
    players = len(player_names(store))
    return render("home.html", tables=len(tables(store)), players=players,
                  open_disputes=open_disputes)


@bp.get("/balances")
@staff_page("treasurer")
def balances_page() -> Response:
    store = read(arg_int("min_position"))
    rows = balances(store)
    words = accounts_in_words(store)
    order = {"player": 0, "kitty": 1, "treasury": 2, "escrow": 3}
    shown = [dict(row, label=words.name(row["account"]), link=words.link(row["account"]))
             for row in rows if row["kind"] != "escrow" or row["balance"] != 0]
    shown.sort(key=lambda r: (order.get(r["kind"], 9), r["label"].lower()))
    debtors = [row for row in rows if row["kind"] == "player" and row["balance"] < 0]
    return render("balances.html", accounts=shown, total=sum(r["balance"] for r in rows),
                  debts=sum(r["balance"] for r in debtors), debtors=len(debtors),
                  hidden=len(rows) - len(shown))


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
             for row in deals_of(store, str(table_id), limit=20)]
    labels = deal_labels(store, {e["deal_id"] for e in entries if e["deal_id"]}, {},
                         with_table=False)
    entries = [dict(e, deal=labels.get(e["deal_id"] or "")) for e in entries]
    return render("table.html", table_id=str(table_id), name=engine.name, seats=seats,
                  shoot=rules.shoot, kitty=engine.kitty, rules=rules.to_dict(),
                  deals_played=engine.deals_played, open_deal=engine.deal_id,
                  banker=names.get(engine.banker, "—"), pack_mode=engine.pack_mode,
                  commitment=engine.commitment, entries=entries, chart=chart, deals=deals,
                  capped=len(entries) == KITTY_ENTRIES)


def _deal_page(deal_id: str, status: int = 200, **extra: Any) -> Response:
    """The audit of a deal as the treasurer reads it, with the raise-a-dispute form."""
    store = read(extra.pop("min_position", None))
    ledger().deal(deal_id)  # 404 for an unknown deal
    names = player_names(store)
    found = audit(store, deal_id, names=names)
    if found is None:
        raise ProjectionsBehind(f"the audit of deal {deal_id} is not built yet")
    facts = {row["version"]: json.loads(row["fact"]) for row in deal_history(store, deal_id)}
    timeline, hands = _timeline(found, facts, names)
    settled = next((facts[m["version"]] for m in found["timeline"]
                    if m["event"] == "DealSettled"), {})
    down = {(m["player_id"], c.get("code")) for m in timeline for c in m["drawn"]
            if c.get("face_down")}
    results = [dict(r, name=names.get(r["player"], "—"),
                    drawn=[dict(card(c), face_down=(r["player"], c) in down)
                           for c in r["cards"]])
               for r in settled.get("results", [])]
    words = Accounts(names, table_names(store), deal_id)
    postings = [dict(p, source=words.name(p["from_account"]),
                     target=words.name(p["to_account"])) for p in found["postings"]]
    row = deal_row(store, deal_id) or {}
    raised = [d for d in disputes(store) if d["deal_id"] == deal_id] \
        if g.web_who.role == "treasurer" else []
    return render("deal.html", status, deal=found, timeline=timeline, postings=postings,
                  hands=sorted(hands.values(), key=lambda h: h["banker"]),
                  banker_cards=hands.get((found["banker"], 0), {}).get("cards", []),
                  results=results, banker_hand=settled.get("banker_hand"),
                  banker=names.get(found["banker"], "—"),
                  table_name=words.tables.get(found["table_id"], "the table"),
                  started_at=row.get("started_at"), ended_at=row.get("ended_at"),
                  disputes=raised, names=names, principal_words=principal_words, **extra)


def _timeline(found: dict[str, Any], facts: dict[int, dict[str, Any]],
              names: dict[str, str]
              ) -> tuple[list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    """Each event in words with its cards, and the cards dealt to each hand in order.

    Cards come from the audit, so a face-down card of an open deal stays hidden (a card
    back); the facts only add words and whether a card was dealt face down.
    """
    timeline = []
    hands: dict[tuple[str, int], dict[str, Any]] = {}
    for moment in found["timeline"]:
        fact = facts.get(moment["version"], {})
        drawn = [card(c) for c in moment["cards"] or []]
        if moment["event"] == "CardDealt":
            for one in drawn:
                one["face_down"] = not fact.get("face_up", True)
            key = (moment["player_id"], moment["hand"] or 0)
            hands.setdefault(key, {"player": moment["player"] or "—", "hand": key[1],
                                   "banker": moment["player_id"] == found["banker"],
                                   "cards": []})["cards"].extend(drawn)
        timeline.append(dict(moment, text=describe(moment["event"], fact, names),
                             drawn=drawn))
    return timeline, hands


@bp.get("/deals/<uuid:deal_id>")
@staff_page()
def deal(deal_id: UUID) -> Response:
    return _deal_page(str(deal_id), min_position=arg_int("min_position"),
                      raised=request.args.get("raised"))


@bp.post("/deals/<uuid:deal_id>/disputes")
@staff_page()
def raise_dispute(deal_id: UUID) -> Response:
    reason = request.form.get("reason", "").strip()
    if not 1 <= len(reason) <= TEXT_MAX:
        return _deal_page(str(deal_id), 400, reason=reason,
                          error="Write the reason for the dispute (up to 2000 characters).")
    try:
        outcome = ledger().raise_dispute(str(deal_id), reason, raised_by=g.web_who.id)
    except PontoonError as error:
        if isinstance(error, NotFound):
            raise
        return _deal_page(str(deal_id), error.status, reason=reason, error=error.message,
                          error_rule=error.rule)
    dispute_id = outcome.result["id"]
    if g.web_who.role == "treasurer":
        return redirect(url_for(".disputes_page", raised=dispute_id,
                                min_position=outcome.position), 303)
    return redirect(url_for(".deal", deal_id=deal_id, raised=dispute_id,
                            min_position=outcome.position), 303)


def _disputes_page(status: int = 200, *, min_position: int | None = None, **extra: Any
                   ) -> Response:
    store = read(min_position)
    words = accounts_in_words(store)
    names = words.players
    choices = [(row["account"], words.name(row["account"]))
               for row in balances(store) if row["kind"] in ("player", "kitty", "treasury")]
    choices.sort(key=lambda c: ({"player": 0, "kitty": 1}.get(c[0].partition(":")[0], 2),
                                c[1].lower()))

    def shown(row: dict[str, Any]) -> dict[str, Any]:
        deal = deal_row(store, row["deal_id"]) or {}
        return dict(row, raised_by_words=principal_words(row["raised_by"], names),
                    resolved_by_words=principal_words(row["resolved_by"], names),
                    deal_number=deal.get("number"),
                    table_name=words.tables.get(deal.get("table_id", ""), "a table"),
                    corrections=[dict(c, source=words.name(c["from_account"]),
                                      target=words.name(c["to_account"]),
                                      links=[words.link(c["from_account"]),
                                             words.link(c["to_account"])])
                                 for c in row["corrections"]])
    open_ = [shown(row) for row in disputes(store, "open")]
    resolved = [shown(row) for row in reversed(disputes(store, "resolved"))]
    extra.setdefault("form", {})
    extra.setdefault("failed", None)
    just = request.args.get("resolved")
    done = next((row for row in resolved if row["dispute_id"] == just), None)
    return render("disputes.html", status, open=open_, resolved=resolved[:20], choices=choices,
                  rows=CORRECTION_ROWS, done=done, just=just, min_position=min_position,
                  raised=request.args.get("raised"), **extra)


@bp.get("/disputes")
@staff_page("treasurer")
def disputes_page() -> Response:
    return _disputes_page(min_position=arg_int("min_position"))


@bp.post("/disputes/<uuid:dispute_id>/resolution")
@staff_page("treasurer")
def resolve(dispute_id: UUID) -> Response:
    form = request.form
    try:
        decision, note, corrections = _resolution(form)
    except FormError as error:
        return _disputes_page(400, failed=str(dispute_id), form=form, error=str(error))
    try:
        outcome = ledger().resolve_dispute(str(dispute_id), decision=decision, note=note,
                                           corrections=corrections, resolved_by=g.web_who.id)
    except PontoonError as error:
        if isinstance(error, NotFound):
            raise
        return _disputes_page(error.status, failed=str(dispute_id), form=form,
                              error=error.message, error_rule=error.rule)
    return redirect(url_for(".disputes_page", resolved=str(dispute_id),
                            min_position=outcome.position, _anchor="done"), 303)


def _resolution(form: Any) -> tuple[str, str, list[dict[str, Any]]]:
    decision = form.get("decision", "")
    if decision not in ("upheld", "rejected"):
        raise FormError("Choose a decision: upheld or rejected.")
    note = form.get("note", "").strip()
    if not 1 <= len(note) <= TEXT_MAX:
        raise FormError("Write a note for the decision (up to 2000 characters): it becomes "
                        "the reason of every correcting posting (R11.4).")
    corrections = []
    for row in range(1, CORRECTION_ROWS + 1):
        source = form.get(f"from_{row}", "").strip()
        target = form.get(f"to_{row}", "").strip()
        amount = form.get(f"amount_{row}", "").strip()
        if not (source or target or amount):
            continue
        if not (source and target and amount):
            raise FormError(f"Correction {row}: choose the account chips come from, the "
                            "account they go to and an amount, or leave all three empty.")
        try:
            chips = int(amount)
        except ValueError:
            raise FormError(f"Correction {row}: the amount must be a whole number of chips."
                            ) from None
        corrections.append({"from_account": source, "to_account": target, "amount": chips})
    return decision, note, corrections


@bp.route("/<path:unknown>")
@staff_page()
def not_found(unknown: str) -> Response:
    return render("error.html", 404, title="Not found",
                  message="There is no page at this address.")
