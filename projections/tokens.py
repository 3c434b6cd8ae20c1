"""Bearer tokens, for the treasurer's list (GET /v1/tokens): never the token itself, only
who holds it, until when, and whether it was revoked."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC
from typing import Any

from domain.aggregates import Token
from projections.base import ReadModel, at
from projections.store import ReadStore, Statement

COLUMNS = "id, token_key, role, label, player_id, created_at, expires_at, revoked_at, position"


class TokensModel(ReadModel):
    name = "tokens"
    reads = (Token.Issued, Token.Revoked)
    tables = ("tokens",)

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        if isinstance(event, Token.Issued):
            expires = event.expires_at
            yield (f"INSERT INTO tokens ({COLUMNS}) VALUES "  # noqa: S608 (fixed names)
                   "(%s, %s, %s, %s, %s, %s, %s, NULL, %s)",
                   (event.principal_id, str(event.originator_id), event.role, event.label,
                    event.player_id, at(event),
                    expires.astimezone(UTC).isoformat(timespec="microseconds")
                    if expires else None, position))
        else:
            yield ("UPDATE tokens SET revoked_at = %s WHERE token_key = %s",
                   (at(event), str(event.originator_id)))


def tokens(store: ReadStore, *, after: int = 0, limit: int = 50) -> list[dict[str, Any]]:
    """Tokens in the order they were issued (cursor: the position of the last one seen)."""
    return store.rows(f"SELECT {COLUMNS} FROM tokens WHERE position > %s "  # noqa: S608
                      "ORDER BY position LIMIT %s", (after, limit))


def token_key(store: ReadStore, principal_id: str) -> str | None:
    """The id of the token's aggregate (derived from its hash: never shown)."""
    rows = store.rows("SELECT token_key FROM tokens WHERE id = %s", (principal_id,))
    return str(rows[0]["token_key"]) if rows else None


def player_tokens(store: ReadStore, player_id: str) -> list[dict[str, Any]]:
    """A player's tokens in the order issued (never the token itself: its label, when it
    was issued, until when, and whether it was revoked)."""
    return store.rows(f"SELECT {COLUMNS} FROM tokens WHERE player_id = %s "  # noqa: S608
                      "ORDER BY position", (player_id,))
