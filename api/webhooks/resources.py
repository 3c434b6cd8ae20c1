"""Webhooks (API.md, Standard Webhooks): the treasurer subscribes an integrating app's URL to
event types; the elected process delivers them (projections/webhooks/)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.auth import require
from api.common import Blueprint, creation_key, ledger
from api.reads import page, read_store
from api.schemas import CursorQuerySchema
from api.webhooks.schemas import (
    DeliveriesSchema,
    WebhookCreatedSchema,
    WebhookCreateSchema,
    WebhookSchema,
    WebhooksSchema,
)
from application import Outcome
from projections.webhooks.outbox import deliveries, subscription, subscriptions

blp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks", description="Webhooks")


@blp.command("", WebhookCreateSchema, WebhookCreatedSchema, status=201)
def create_webhook(body: dict[str, Any]) -> Outcome:
    """Subscribe a URL to event types; the answer shows the signing secret once."""
    who = require("treasurer")
    return ledger().create_webhook(body["url"], body["events"], created_by=who.id,
                                   key=creation_key())


@blp.read("", WebhooksSchema, query=CursorQuerySchema)
def list_webhooks(query: dict[str, Any]) -> dict[str, Any]:
    """Subscriptions, oldest first (never their secrets)."""
    require("treasurer")
    store = read_store(query.get("min_position"))
    return page(subscriptions(store, after=query["after"], limit=query["limit"]),
                query["limit"])


@blp.read("/<uuid:webhook_id>", WebhookSchema)
def show_webhook(webhook_id: UUID) -> dict[str, Any]:
    """One subscription and whether it is active or disabled."""
    require("treasurer")
    webhook = ledger().webhook(str(webhook_id))
    followed = subscription(read_store(None), str(webhook_id)) or {}
    return {"id": str(webhook.id), "url": webhook.url, "events": webhook.events,
            "status": followed.get("status", "active"),
            "created_at": followed.get("created_at"), "position": followed.get("position")}


@blp.removal("/<uuid:webhook_id>")
def delete_webhook(webhook_id: UUID) -> None:
    """No more deliveries to this subscription, pending ones included."""
    who = require("treasurer")
    # A subscription shows no ETag, so If-Match has nothing to match; a malformed one is
    # still 400, as on every command (API.md Additions).
    ledger().delete_webhook(str(webhook_id), deleted_by=who.id, key=creation_key())


@blp.read("/<uuid:webhook_id>/deliveries", DeliveriesSchema, query=CursorQuerySchema)
def list_deliveries(query: dict[str, Any], webhook_id: UUID) -> dict[str, Any]:
    """Each event's delivery in log order: attempts, the last answer, when it was made or
    when it is tried next."""
    require("treasurer")
    ledger().webhook(str(webhook_id))
    items = deliveries(read_store(query.get("min_position")), str(webhook_id),
                       after=query["after"], limit=query["limit"])
    return page(items, query["limit"], key="event_position")
