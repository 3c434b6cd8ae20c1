"""What the projection-backed reads share: read-your-writes and cursor paging."""

from __future__ import annotations

from collections import Counter
from typing import Any

from flask import current_app

from projections.store import ReadStore


def read_store(min_position: int | None) -> ReadStore:
    """The read models, once they have applied `min_position` (else 503)."""
    services = current_app.extensions["pontoon"]
    services.caught_up(min_position)
    if services.store is None:
        from api.services import ProjectionsBehind

        raise ProjectionsBehind("this store keeps no read models")
    return services.store  # type: ignore[no-any-return]


def page(items: list[dict[str, Any]], limit: int, key: str = "position") -> dict[str, Any]:
    return {"items": items, "next": items[-1][key] if len(items) == limit else None}


def names(store: ReadStore | None = None) -> dict[str, str]:
    """Player ids to names, for readable audits and pages."""
    store = store or current_app.extensions["pontoon"].store
    if store is None:
        return {}
    return {row["owner"]: row["name"] for row in store.rows(
        "SELECT owner, name FROM accounts WHERE kind = 'player'")}


def told_apart(named: dict[str, str]) -> dict[str, str]:
    """Names with the start of the id beside those two players share: `Bob (3f2a1c)`."""
    counts = Counter(name.casefold() for name in named.values())
    return {key: f"{name} ({key[:6]})" if counts[name.casefold()] > 1 else name
            for key, name in named.items()}
