"""What the elected process runs (projections/election.py): the read models and webhook
outbox following the log, the webhook sender and the checkpointer, each in a thread of
its own."""

from __future__ import annotations

from config import Settings
from domain.aggregates.club import CLUB_ID
from projections.base import EventLog
from projections.checkpoints import Checkpointer
from projections.election import Duty
from projections.merkle import MerkleLog
from projections.runner import Projections
from projections.webhooks.outbox import WebhookOutbox
from projections.webhooks.sender import Sender


def sender_for(projections: Projections, settings: Settings) -> Sender:
    """The sender, woken whenever the outbox commits new deliveries."""
    outbox = next(m for m in projections.models if isinstance(m, WebhookOutbox))
    return Sender(projections.store, retry_base=settings.webhook_retry_base,
                  retry_for=settings.webhook_retry_for, timeout=settings.webhook_timeout,
                  wake=outbox.wrote, allow_private=settings.webhook_allow_private)


def checkpointer_for(projections: Projections, settings: Settings) -> Checkpointer:
    """The checkpointer, woken whenever the Merkle log commits a settled deal."""
    merkle = next(m for m in projections.models if isinstance(m, MerkleLog))
    return Checkpointer(projections.store, settings, merkle,
                        club_name=lambda: club_name(projections.ledger))


def club_name(log: EventLog) -> str | None:
    """The club's name as its newest naming event gives it (None before the club exists);
    read once, when the log's first checkpoint is made."""
    for stored in log.recorder.select_events(CLUB_ID, desc=True):
        name = getattr(log.mapper.to_domain_event(stored), "name", None)
        if isinstance(name, str):
            return name
    return None


def duties(projections: Projections, sender: Sender,
           checkpointer: Checkpointer | None = None) -> list[tuple[str, Duty]]:
    signing = [("checkpoints", checkpointer.run)] if checkpointer is not None else []
    return [("read-models", projections.follow), ("webhook-sender", sender.run), *signing]
