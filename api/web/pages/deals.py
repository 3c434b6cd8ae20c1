"""One deal's audit as the treasurer reads it (timeline, hands, payments, the pack), and
raising a dispute about it."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from flask import current_app, g, redirect, request, url_for
from werkzeug import Response

from api.inputs import text_problem
from api.services import ProjectionsBehind
from api.web.pages.lookups import ledger, player_names, read, table_names
from api.web.pages.session import EVERYONE, not_for_this_token, staff_page
from api.web.pages.site import TEXT_MAX, arg_int, bp, render
from api.web.present import Accounts, card, describe, principal_words
from api.web.printout import local_time, printout
from domain.errors import InvariantBroken, NotFound, PontoonError
from projections.audit import audit, deal_history, deal_row
from projections.hand_history import hand_history


@bp.get("/deals/<uuid:deal_id>")
@staff_page(*EVERYONE)
def deal(deal_id: UUID) -> Response:
    if refused := _not_their_deal(str(deal_id)):
        return refused
    return _deal_page(str(deal_id), min_position=arg_int("min_position"),
                      raised=request.args.get("raised"))


@bp.get("/deals/<uuid:deal_id>/history")
@staff_page(*EVERYONE)
def deal_hand_history(deal_id: UUID) -> Response:
    """The hand history, as GET /v1/deals/{id}/history gives it, for the signed-in reader:
    the verifier page (/verify/) fetches it from the deal's audit page with this cookie."""
    if refused := _not_their_deal(str(deal_id)):
        return refused
    found = hand_history(ledger(), read(arg_int("min_position")), str(deal_id),
                         names=player_names(read()))
    if found is None:
        raise ProjectionsBehind(f"the history of deal {deal_id} is not built yet")
    response = current_app.json.response(found)
    response.headers["Content-Disposition"] = f'inline; filename="deal-{deal_id}.json"'
    return response


@bp.post("/deals/<uuid:deal_id>/disputes")
@staff_page(*EVERYONE)
def raise_dispute(deal_id: UUID) -> Response:
    if refused := _not_their_deal(str(deal_id)):
        return refused
    reason = request.form.get("reason", "").strip()
    if not 1 <= len(reason) <= TEXT_MAX:
        return _deal_page(str(deal_id), 400, reason=reason, error_field="reason",
                          error="Write the reason for the dispute (up to 2000 characters).")
    unstorable = text_problem(reason, multiline=True)
    if unstorable is not None:
        return _deal_page(str(deal_id), 422, reason=reason, error_field="reason",
                          error=f"The reason: {unstorable}.")
    try:
        outcome = ledger().raise_dispute(str(deal_id), reason, raised_by=g.web_who.id)
    except PontoonError as error:
        if isinstance(error, NotFound | InvariantBroken):
            raise
        return _deal_page(str(deal_id), error.status, reason=reason, error=error.message,
                          error_rule=error.rule)
    dispute_id = outcome.result["id"]
    if g.web_who.role == "treasurer":
        return redirect(url_for(".disputes_page", raised=dispute_id,
                                min_position=outcome.position), 303)
    return redirect(url_for(".deal", deal_id=deal_id, raised=dispute_id,
                            min_position=outcome.position), 303)


def _not_their_deal(deal_id: str) -> Response | None:
    """Staff read every audit; a player the audits of the deals they sat in (API.md)."""
    who = g.web_who
    if who.role != "player":
        return None
    engine = ledger().deal(deal_id).engine  # 404 for an unknown deal
    if who.player_id in (engine.banker, *engine.dealt_in):
        return None
    return not_for_this_token("A player reads the audits of the deals they played in.")


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
    raised = [dict(d, corrections=[dict(c, source=words.name(c["from_account"]),
                                        target=words.name(c["to_account"]))
                                   for c in d["corrections"]])
              for d in found["disputes"]]
    net = [(words.name(account), change)
           for account, change in found["net_after_corrections"].items()]
    extra.setdefault("printout", printout(
        f"the deal, started {local_time(row.get('started_at'))}"
        + (f", ended {local_time(row['ended_at'])}" if row.get("ended_at") else ", in play")))
    return render("deal.html", status, deal=found, timeline=timeline, postings=postings,
                  hands=sorted(hands.values(), key=lambda h: h["banker"]),
                  banker_cards=hands.get((found["banker"], 0), {}).get("cards", []),
                  results=results, banker_hand=settled.get("banker_hand"),
                  banker=names.get(found["banker"], "—"),
                  table_name=words.tables.get(found["table_id"], "the table"),
                  started_at=row.get("started_at"), ended_at=row.get("ended_at"),
                  disputes=raised, net=net, names=names, principal_words=principal_words,
                  **extra)


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
