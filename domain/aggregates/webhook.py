"""Webhook subscriptions: an integrating app's URL, the event types it wants, its secret.

The secret signs every delivery (Standard Webhooks), so the sender needs it whole: it is
recorded in the event, and kept out of everything shown (the feed leaves Webhook events
out, receipts and `GET /v1/webhooks` never carry it).
"""

from __future__ import annotations

import base64
import secrets
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from eventsourcing.domain import Aggregate

from domain.aggregates.base import pinned
from domain.errors import NotAllowed, NotNow

EVENT_TYPES = ("deal.settled", "chips.issued", "chips.redeemed", "dispute.opened",
               "dispute.resolved", "kitty.changed")
URL_LENGTH_MAX = 2000
SECRET_BYTES = 24  # Standard Webhooks: 24 to 64 random bytes, base64 after `whsec_`


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


@pinned
class Webhook(Aggregate):
    """A subscription to some of the ledger's event types, delivered to one URL."""

    if TYPE_CHECKING:
        url: str
        events: list[str]
        secret: str
        created_by: str
        deleted: bool

    class Subscribed(Aggregate.Created):
        url: str
        events: list[str]
        secret: str
        created_by: str

        def apply(self, webhook: Any) -> None:
            webhook.url, webhook.events, webhook.secret = self.url, list(self.events), \
                self.secret
            webhook.created_by, webhook.deleted = self.created_by, False

    class Deleted(Aggregate.Event):
        deleted_by: str

        def apply(self, webhook: Any) -> None:
            webhook.deleted = True

    # Whether a subscription is active is the outbox's to know (the sender disables one
    # whose deliveries fail for a day), so these only record what the treasurer asked.
    class Enabled(Aggregate.Event):
        by: str

        def apply(self, webhook: Any) -> None:
            pass

    class Disabled(Aggregate.Event):
        by: str

        def apply(self, webhook: Any) -> None:
            pass

    class Replayed(Aggregate.Event):
        from_position: int
        by: str

        def apply(self, webhook: Any) -> None:
            pass

    @classmethod
    def subscribe(cls, *, url: str, events: list[str], created_by: str) -> Webhook:
        """`url` is checked by the application (it parses it; the domain does no I/O)."""
        unknown = sorted(set(events) - set(EVENT_TYPES))
        if not events or unknown:
            raise NotAllowed(f"events are one or more of {', '.join(EVENT_TYPES)}"
                             + (f", not {', '.join(unknown)}" if unknown else ""))
        ordered = [name for name in EVENT_TYPES if name in events]
        return cls._create(cls.Subscribed, id=uuid4(), url=url, events=ordered,
                           secret=new_secret(), created_by=created_by)

    def delete(self, *, deleted_by: str) -> None:
        if self.deleted:
            raise NotNow(f"webhook {self.id} is already deleted")
        self.trigger_event(self.Deleted, deleted_by=deleted_by)

    def enable(self, enabled: bool, *, by: str) -> None:
        """Enabled: deliveries resume from the oldest not yet made; disabled: they wait."""
        self.trigger_event(self.Enabled if enabled else self.Disabled, by=by)

    def replay(self, from_position: int, *, by: str) -> None:
        """Every delivery of this subscription from `from_position` is made again."""
        if from_position < 1:
            raise NotAllowed("from_position is a position of the event log, 1 or more")
        self.trigger_event(self.Replayed, from_position=from_position, by=by)

