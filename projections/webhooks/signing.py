"""Standard Webhooks signatures: `v1,` and the base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"
keyed with the secret's bytes (the base64 after `whsec_`)."""

from __future__ import annotations

import base64
import hashlib
import hmac


def sign(secret: str, message_id: str, timestamp: int, body: str) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{message_id}.{timestamp}.{body}".encode(), hashlib.sha256)
    return "v1," + base64.b64encode(digest.digest()).decode()


def message_id(webhook_id: str, position: int) -> str:
    """The `webhook-id` of one event for one subscription: the same on every retry, so a
    receiver can drop a delivery it has already handled."""
    return f"msg_{webhook_id.replace('-', '')}_{position}"
