"""A deal as API.md shows it to one viewer: face-down cards are secret (API.md).

A face-down card is shown only to its holder, and in recorded mode to staff, who enter the
cards at the physical table; every other viewer, the treasurer included, sees null. The
banker looks at their own first card only when deciding to double (R10.3) and at both once
the second round is out (R3.4, R3.7). Once the deal is settled or void every card is shown,
but for the first card of a player who sat the deal out: it goes under the pack unseen
(R3.5), and their hands are empty.
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import Any

from api.auth import Principal, principal
from api.common import Shown, ledger, shown
from application import Ledger, Outcome
from domain.aggregates import DealAggregate, posting_id
from domain.engine.postings import reason_in_words
from domain.errors import present


def _cards(cards: list[str], face_up: list[bool], visible: bool) -> list[str | None]:
    return [card if up or visible else None for card, up in zip(cards, face_up, strict=True)]


def deal_view(deal: DealAggregate, viewer: Principal, position: int | None) -> dict[str, Any]:
    engine = deal.engine
    recorded_staff = engine.pack is None and viewer.is_staff

    def sees(holder: str) -> bool:
        if recorded_staff:
            return True
        if viewer.role != "player" or viewer.player_id != holder:
            return False
        return holder != engine.banker or engine.phase not in ("staking", "shooting")

    turn = engine.turn
    return {
        "id": engine.deal_id, "table_id": engine.table_id, "number": engine.number,
        "phase": engine.phase,
        "turn": {"player_id": turn[0], "hand": turn[1]} if turn else None,
        "banker": {"player_id": engine.banker, "doubled": engine.doubled,
                   "cards": _cards(engine.banker_cards, engine.banker_face_up,
                                   sees(engine.banker))},
        "players": [
            {"player_id": player, "hands": [
                {"cards": _cards(hand.cards, hand.face_up, sees(player)), "stake": hand.stake,
                 "shoot_bet": hand.shoot_bet, "status": hand.status,
                 "bought": list(hand.bought), "twisted": hand.twisted}
                for hand in engine.hands.get(player, [])],
             "sat_out": engine.sat_out.get(player)}  # R3.5: their card is kept unseen
            for player in engine.dealt_in],
        "kitty": engine.kitty if engine.rules.shoot else 0,
        "commitment": engine.commitment,
        "settlement": _settlement(deal) if deal.ended is not None else None,
        "void_reason": engine.voided.reason if engine.voided is not None else None,
        "version": deal.version, "position": position,
        "fair_shuffle": _fair_shuffle(ledger(), engine.table_id),
    }


_FAIR: weakref.WeakKeyDictionary[Ledger, dict[str, bool]] = weakref.WeakKeyDictionary()


def _fair_shuffle(app: Ledger, table_id: str) -> bool:
    """An ordered table's reshuffles are predictable (docs/decisions.md); a table's pack
    mode never changes once it is open, so it is looked up once per table and process."""
    known = _FAIR.setdefault(app, {})
    if table_id not in known:
        if len(known) > 10_000:
            known.clear()
        known[table_id] = app.table(table_id).engine.fair_shuffle
    return known[table_id]


def _settlement(deal: DealAggregate) -> dict[str, Any]:
    """The settlement's postings, or a void deal's refunds (R1.6)."""
    settled = deal.engine.settlement
    ended = present(deal.ended, "the end of a settled or void deal")
    voided = deal.engine.voided
    postings = settled.postings if settled is not None else \
        voided.postings if voided is not None else []
    version = ended["version"]
    return {"postings": [
        {**p.to_dict(), "reason": reason_in_words(p.reason, p.hand),
         "id": posting_id(deal.id, version, index), "at": ended["at"],
         "position": None, "deal_id": deal.engine.deal_id}
        for index, p in enumerate(postings)]}


def deal_answer(outcome: Outcome) -> Shown:
    """A deal command's answer: the deal as the command left it, as its sender may see it."""
    return shown(outcome, partial(deal_view, viewer=principal()), kind="deal")
