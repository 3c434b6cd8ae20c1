"""Bearer tokens: who holds one, in which role. Only the hash of a token is stored."""

from __future__ import annotations

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

    class Issued(Aggregate.Created):
        """Version 2 gives the principal a random id to show as the actor of its commands:
        the aggregate's own id derives from the token's hash, so it must not be shown."""

        role: str  # treasurer | operator | player
        player_id: str | None
        principal_id: str
        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["principal_id"] = str(state["originator_id"])

        def apply(self, token: Any) -> None:
            token.role, token.player_id = self.role, self.player_id
            token.principal_id = self.principal_id

    @classmethod
    def issue(cls, token_hash: str, role: str, player_id: str | None) -> Token:
        return cls._create(cls.Issued, id=token_id(token_hash), role=role, player_id=player_id,
                           principal_id=str(uuid4()))


