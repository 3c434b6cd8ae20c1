"""The webhook outbox: follows the event log like a read model (its own tracking position,
written with its rows in one transaction), so each event becomes exactly one delivery for
each subscription active at that point of the log; the sender then makes them.

It is never rebuilt (a delivery made is not made again) and reads never wait for it.
Deliveries are written for disabled subscriptions too, and wait: enabled again, a
subscription resumes where it stopped. The treasurer's replay makes a subscription's
deliveries from a position due again, in log order.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, ClassVar

from domain.aggregates import DealAggregate, TableAggregate, Webhook
from projections.base import ReadModel, at, dumps
from projections.store import ReadStore, Statement
from projections.webhooks.payloads import EVENTS, payload

_DELIVERY = ("INSERT INTO webhook_deliveries (webhook_id, position, type, body, attempts, "
             "next_attempt_at) SELECT w.webhook_id, %s, %s, %s, 0, %s FROM webhooks w "
             "JOIN webhook_event_types t ON t.webhook_id = w.webhook_id "
             "WHERE t.type = %s AND w.status <> 'deleted'")
_DUE_AGAIN = ("UPDATE webhook_deliveries SET attempts = 0, first_attempt_at = NULL, "
              "next_attempt_at = %s WHERE webhook_id = %s AND delivered_at IS NULL")
_REPLAYED = ("UPDATE webhook_deliveries SET delivered_at = NULL, attempts = 0, "
             "first_attempt_at = NULL, next_attempt_at = %s "
             "WHERE webhook_id = %s AND position >= %s")
_ASKED = (Webhook.Deleted, Webhook.Enabled, Webhook.Disabled, Webhook.Replayed)
_DEAL = ("SELECT d.table_id, d.number, t.name FROM deals d JOIN tables t "
         "ON t.table_id = d.table_id WHERE d.deal_id = %s")


class WebhookOutbox(ReadModel):
    name = "webhooks"
    reads = (Webhook.Subscribed, Webhook.Deleted, Webhook.Enabled, Webhook.Disabled,
             Webhook.Replayed, DealAggregate.DealStarted, TableAggregate.TableOpened, *EVENTS)
    tables = ("webhooks", "webhook_event_types", "webhook_deliveries")
    rebuildable: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.wrote = threading.Event()  # set once deliveries are committed: the sender wakes
        self._fresh = False
        # Where each deal in play is, and the tables' names, as read from the log (a deal
        # begun before this process followed it is looked up in the audit's rows).
        self._deals: dict[str, tuple[str, int]] = {}
        self._tables: dict[str, str] = {}

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
        if isinstance(event, _ASKED):
            self._fresh = True  # deliveries may be due again: the sender looks at once
            yield from _treasurers(event, webhook_id)
            return
        if isinstance(event, DealAggregate.DealStarted | TableAggregate.TableOpened):
            self._note(event)
            return
        found = payload(event)
        if found is not None:
            kind, data = found
            if kind == "deal.settled":
                data = {**data, **self._where(data["deal_id"])}
            when = at(event)
            body = dumps({"type": kind, "position": position, "at": when, "data": data})
            self._fresh = True
            yield _DELIVERY, (position, kind, body, when, kind)

    def _note(self, event: Any) -> None:
        fact = event.fact
        if isinstance(event, DealAggregate.DealStarted):
            self._deals[str(event.originator_id)] = (fact["table_id"], fact["number"])
        else:
            self._tables[str(event.originator_id)] = fact["name"]

    def _where(self, deal_id: str) -> dict[str, Any]:
        """A settled deal's table and number (API.md Additions)."""
        table_id, number = self._deals.pop(deal_id, ("", 0))
        name = self._tables.get(table_id)
        if name is None:
            rows = self.store.rows(_DEAL, (deal_id,))
            if not rows:  # the audit has not read the deal yet: this event is tried again
                raise LookupError(f"deal {deal_id}'s table is not in the read models yet")
            table_id, number, name = rows[0]["table_id"], rows[0]["number"], rows[0]["name"]
        return {"table_id": table_id, "table_name": name, "deal_number": int(number)}

    def applied(self) -> None:
        if self._fresh:
            self._fresh = False
            self.wrote.set()


def _treasurers(event: Any, webhook_id: str) -> Iterable[Statement]:
    """What the treasurer asked of a subscription: deleted, enabled, disabled, replayed."""
    if isinstance(event, Webhook.Deleted):
        yield ("UPDATE webhooks SET status = 'deleted' WHERE webhook_id = %s", (webhook_id,))
    elif isinstance(event, Webhook.Enabled):
        yield ("UPDATE webhooks SET status = 'active', disabled_at = NULL "
               "WHERE webhook_id = %s AND status = 'disabled'", (webhook_id,))
        yield _DUE_AGAIN, (at(event), webhook_id)
    elif isinstance(event, Webhook.Disabled):
        yield ("UPDATE webhooks SET status = 'disabled', disabled_at = %s "
               "WHERE webhook_id = %s AND status = 'active'", (at(event), webhook_id))
    elif isinstance(event, Webhook.Replayed):
        yield _REPLAYED, (at(event), webhook_id, event.from_position)


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
                      "last_error, delivered_at, next_attempt_at FROM webhook_deliveries "
                      "WHERE webhook_id = %s AND position > %s ORDER BY position LIMIT %s",
                      (webhook_id, after, limit))


def backlog(store: ReadStore) -> int:
    """Deliveries still to make to active subscriptions (metrics)."""
    rows = store.rows("SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN webhooks w "
                      "ON w.webhook_id = d.webhook_id "
                      "WHERE d.delivered_at IS NULL AND w.status = 'active'")
    return int(rows[0]["n"])
