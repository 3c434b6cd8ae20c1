"""Webhooks (API.md, Standard Webhooks): the treasurer subscribes an integrating app's URL to
event types; the elected process delivers them (projections/webhooks/)."""

from __future__ import annotations

import contextlib
from typing import Any
from uuid import UUID

from flask import current_app
from webargs.flaskparser import abort

from api.auth import require
from api.common import Blueprint, creation_key, ledger
from api.inputs import Refusal
from api.reads import page, read_store
from api.schemas import CursorQuerySchema
from api.webhooks.schemas import (
    DeliveriesSchema,
    WebhookChangedSchema,
    WebhookCreatedSchema,
    WebhookCreateSchema,
    WebhookEnableSchema,
    WebhookReplayedSchema,
    WebhookReplaySchema,
    WebhookSchema,
    WebhooksSchema,
)
from application import Outcome
from projections.webhooks.addresses import refusal_at_subscription
from projections.webhooks.outbox import deliveries, subscription, subscriptions

blp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks", description="Webhooks")


@blp.command("", WebhookCreateSchema, WebhookCreatedSchema, status=201)
def create_webhook(body: dict[str, Any]) -> Outcome:
    """Subscribe a URL to event types; the answer shows the signing secret once."""
    who = require("treasurer")
    key = creation_key()  # a malformed If-Match or key is 400 before the URL is looked at
    allowed = current_app.extensions["pontoon"].settings.webhook_allow_private
    reason = None
    with contextlib.suppress(ValueError):  # a malformed URL is the ledger's to refuse
        reason = refusal_at_subscription(body["url"], allow_private=allowed)
    if reason is not None:
        abort(422, messages={"url": [Refusal(reason)]})
    return ledger().create_webhook(body["url"], body["events"], created_by=who.id, key=key)


@blp.command("/<uuid:webhook_id>", WebhookEnableSchema, WebhookChangedSchema, method="PATCH")
def enable_webhook(body: dict[str, Any], webhook_id: UUID) -> Outcome:
    """Enable a subscription again (it resumes where it stopped), or disable it."""
    who = require("treasurer")
    return ledger().enable_webhook(str(webhook_id), body["enabled"], by=who.id,
                                   key=creation_key())


@blp.command("/<uuid:webhook_id>/replay", WebhookReplaySchema, WebhookReplayedSchema,
             status=202)
def replay_webhook(body: dict[str, Any], webhook_id: UUID) -> Outcome:
    """Send again, in log order, every delivery of this subscription from a position."""
    who = require("treasurer")
    return ledger().replay_webhook(str(webhook_id), body["from_position"], by=who.id,
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
