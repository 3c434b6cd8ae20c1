"""What a delivery says about an event: its type and a `data` built from named fields only,
so nothing secret (a pack's order, a seed, a face-down card) can leave by accident."""

from __future__ import annotations

from typing import Any

from domain.aggregates import Account, DealAggregate, Dispute
from domain.engine.postings import TREASURY

EVENTS = (DealAggregate.DealSettled, DealAggregate.DealVoided, Account.Credited,
          Account.Debited, Dispute.Raised, Dispute.Resolved)


def payload(event: Any) -> tuple[str, dict[str, Any]] | None:
    """The webhook event type and data of a ledger event, or None if it is not one."""
    if isinstance(event, DealAggregate.DealSettled):
        return "deal.settled", _settled(event)
    if isinstance(event, DealAggregate.DealVoided):
        return "deal.settled", _voided(event)
    if isinstance(event, Account.Moved):
        return _moved(event)
    if isinstance(event, Dispute.Raised):
        return "dispute.opened", {"dispute_id": str(event.originator_id),
                                  "deal_id": event.deal_id, "raised_by": event.raised_by,
                                  "reason": event.reason}
    if isinstance(event, Dispute.Resolved):
        return "dispute.resolved", {"dispute_id": str(event.originator_id),
                                    "decision": event.decision, "note": event.note,
                                    "corrections": list(event.corrections),
                                    "resolved_by": event.resolved_by}
    return None


def _settled(event: Any) -> dict[str, Any]:
    """The deal is over, so its hands' cards may be shown; `pack_after` (the next deal's
    cards) never is."""
    fact = event.fact
    return {"deal_id": str(event.originator_id), "results": fact["results"],
            "postings": fact["postings"], "banker_hand": fact["banker_hand"],
            "next_banker": fact["next_banker"], "kitty_after": fact["kitty_after"],
            "void": False}


def _voided(event: Any) -> dict[str, Any]:
    """A void deal (R1.6, R3.5) ends too: an app waiting for the deal's end hears of it as
    settled with no results, its stakes returned (decision 81). Still no pack."""
    fact = event.fact
    return {"deal_id": str(event.originator_id), "results": [], "postings": fact["postings"],
            "kitty_after": fact["kitty_after"], "void": True, "reason": fact["reason"]}


def _moved(event: Any) -> tuple[str, dict[str, Any]] | None:
    """An entry on an account: chips issued or redeemed on the player's account, any entry
    on a kitty's. Each posting is recorded on both its accounts; one of them speaks."""
    credited = isinstance(event, Account.Credited)
    own = event.to_account if credited else event.from_account
    entry = {"posting_id": event.posting_id, "amount": event.amount,
             "balance": event.balance_after}
    if own.startswith("player:") and event.rule == "R11.1":
        other = event.from_account if credited else event.to_account
        if other == TREASURY:
            return ("chips.issued" if credited else "chips.redeemed",
                    {"player_id": own.removeprefix("player:"), **entry})
    if own.startswith("kitty:"):
        return "kitty.changed", {"table_id": own.removeprefix("kitty:"),
                                 "change": event.amount if credited else -event.amount,
                                 "kitty": event.balance_after, "rule": event.rule,
                                 "reason": event.reason, "deal_id": event.deal_id,
                                 "posting_id": event.posting_id}
    return None
