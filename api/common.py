"""Small pieces the resources share: positions, versions as ETags, If-Match, keys."""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from api.auth import principal
from application import Ledger
from domain.errors import NotAllowed


def ledger() -> Ledger:
    return current_app.extensions["pontoon"].ledger  # type: ignore[no-any-return]


def idempotency_key() -> str | None:
    """Keys are scoped to the principal, so two clients' keys never collide."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= 200:
        raise NotAllowed("an Idempotency-Key is 1 to 200 characters")
    return f"{principal().id}:{key}"


def if_match() -> int | None:
    """The version a command expects, from `If-Match: "7"`; None when absent or `*`."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    value = header.strip().removeprefix("W/").strip('"')
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise NotAllowed('If-Match takes the ETag of the aggregate, e.g. "7"')
    return int(value)


def etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


def positioned(body: dict[str, Any], position: int | None) -> dict[str, Any]:
    return {**body, "position": position}
