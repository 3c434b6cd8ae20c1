"""The webhook outbox: follows the event log like a read model (its own tracking position,
written with its rows in one transaction), so each event becomes exactly one delivery for
each subscription active at that point of the log; the sender then makes them.

It is never rebuilt (a delivery made is not made again) and reads never wait for it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, ClassVar

from domain.aggregates import Webhook
from projections.base import ReadModel, at, dumps
from projections.store import ReadStore, Statement
from projections.webhooks.payloads import EVENTS, payload

_DELIVERY = ("INSERT INTO webhook_deliveries (webhook_id, position, type, body, attempts, "
             "next_attempt_at) SELECT w.webhook_id, %s, %s, %s, 0, %s FROM webhooks w "
             "JOIN webhook_event_types t ON t.webhook_id = w.webhook_id "
             "WHERE t.type = %s AND w.status = 'active'")


class WebhookOutbox(ReadModel):
    name = "webhooks"
    reads = (Webhook.Subscribed, Webhook.Deleted, *EVENTS)
    tables = ("webhooks", "webhook_event_types", "webhook_deliveries")
    rebuildable: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.wrote = threading.Event()  # set once deliveries are committed: the sender wakes
        self._fresh = False

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        webhook_id = str(event.originator_id)
        if isinstance(event, Webhook.Subscribed):
            yield ("INSERT INTO webhooks (webhook_id, url, secret, events, status, created_at, "
                   "position) VALUES (%s, %s, %s, %s, 'active', %s, %s)",
                   (webhook_id, event.url, event.secret, ",".join(event.events), at(event),
                    position))
            for kind in event.events:
                yield ("INSERT INTO webhook_event_types (type, webhook_id) VALUES (%s, %s)",
                       (kind, webhook_id))
            return
        if isinstance(event, Webhook.Deleted):
            yield ("UPDATE webhooks SET status = 'deleted' WHERE webhook_id = %s",
                   (webhook_id,))
            return
        found = payload(event)
        if found is not None:
            kind, data = found
            when = at(event)
            body = dumps({"type": kind, "position": position, "at": when, "data": data})
            self._fresh = True
            yield _DELIVERY, (position, kind, body, when, kind)

    def applied(self) -> None:
        if self._fresh:
            self._fresh = False
            self.wrote.set()


def subscriptions(store: ReadStore, *, after: int, limit: int) -> list[dict[str, Any]]:
    """Subscriptions not deleted, oldest first, paged by the position that made them; never
    their secrets."""
    rows = store.rows("SELECT webhook_id, url, events, status, created_at, position "
                      "FROM webhooks WHERE status <> 'deleted' AND position > %s "
                      "ORDER BY position LIMIT %s", (after, limit))
    return [shown(row) for row in rows]


def subscription(store: ReadStore, webhook_id: str) -> dict[str, Any] | None:
    rows = store.rows("SELECT webhook_id, url, events, status, created_at, position "
                      "FROM webhooks WHERE webhook_id = %s", (webhook_id,))
    return shown(rows[0]) if rows else None


def shown(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["webhook_id"], "url": row["url"], "events": row["events"].split(","),
            "status": row["status"], "created_at": row["created_at"],
            "position": row["position"]}


def deliveries(store: ReadStore, webhook_id: str, *, after: int, limit: int
               ) -> list[dict[str, Any]]:
    """One subscription's deliveries in log order: attempts and the last answer."""
    return store.rows("SELECT position AS event_position, type, attempts, last_status, "
                      "delivered_at, next_attempt_at FROM webhook_deliveries "
                      "WHERE webhook_id = %s AND position > %s ORDER BY position LIMIT %s",
                      (webhook_id, after, limit))


def backlog(store: ReadStore) -> int:
    """Deliveries still to make to active subscriptions (metrics)."""
    rows = store.rows("SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN webhooks w "
                      "ON w.webhook_id = d.webhook_id "
                      "WHERE d.delivered_at IS NULL AND w.status = 'active'")
    return int(rows[0]["n"])
