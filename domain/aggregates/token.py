"""Bearer tokens: who holds one, in which role, until when. Only the hash of a token is
stored."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from eventsourcing.domain import Aggregate

from domain.aggregates.base import pinned, token_id


@pinned
class Token(Aggregate):
    """A bearer token's principal. Only the token's SHA-256 is stored, never the token."""

    if TYPE_CHECKING:
        role: str
        player_id: str | None
        principal_id: str
        label: str | None
        expires_at: datetime | None
        revoked: bool

    class Issued(Aggregate.Created):
        """Version 2 gives the principal a random id to show as the actor of its commands:
        the aggregate's own id derives from the token's hash, so it must not be shown.
        Version 3 adds an optional label and expiry; earlier tokens never expire."""

        role: str  # treasurer | operator | player | witness
        player_id: str | None
        principal_id: str
        label: str | None
        expires_at: datetime | None
        class_version = 3

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["principal_id"] = str(state["originator_id"])

        @staticmethod
        def upcast_v2_v3(state: dict[str, Any]) -> None:
            state["label"] = state["expires_at"] = None

        def apply(self, token: Any) -> None:
            token.role, token.player_id = self.role, self.player_id
            token.principal_id = self.principal_id
            token.label, token.expires_at = self.label, self.expires_at
            token.revoked = False

    class Revoked(Aggregate.Event):
        """Refused from now on, by every worker (api/services.py checks on each request)."""

        by: str | None  # the principal who revoked it

        def apply(self, token: Any) -> None:
            token.revoked = True

    @classmethod
    def issue(cls, token_hash: str, role: str, player_id: str | None, *,
              label: str | None = None, expires_at: datetime | None = None) -> Token:
        return cls._create(cls.Issued, id=token_id(token_hash), role=role, player_id=player_id,
                           principal_id=str(uuid4()), label=label, expires_at=expires_at)

    def revoke(self, by: str | None) -> None:
        """Revoking a revoked token changes nothing (DELETE is idempotent)."""
        if not self.revoked:
            self.trigger_event(self.Revoked, by=by)

    def valid_at(self, moment: datetime) -> bool:
        """Neither revoked nor expired at `moment`."""
        return not self.revoked and (self.expires_at is None or moment < self.expires_at)
