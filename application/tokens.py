"""Bearer tokens: issued for a role (with an optional label and expiry), looked up by the
token itself, revoked by the treasurer. Only a token's SHA-256 is ever stored."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from application.base import Decision, LedgerBase, Outcome, _hash
from domain.aggregates import Token, token_id
from domain.errors import NotAllowed, NotFound

ROLES = ("treasurer", "operator", "player", "witness")
LABEL_MAX = 100


class TokenCommands(LedgerBase):
    ROLES = ROLES

    def create_token(self, role: str, *, player_id: str | None = None,
                     token: str | None = None, key: str | None = None,
                     label: str | None = None, expires_at: datetime | None = None) -> Outcome:
        """Issue a bearer token for a role; the answer shows the token once (API.md).

        `token` adopts a token chosen outside, such as PONTOON_TREASURER_TOKEN; a token that
        was revoked stays revoked (adopting it again is refused).
        """
        _check_token_request(role, player_id, label, expires_at)

        def decide() -> Decision:
            if player_id is not None:  # the token's holder: unknown is 404
                self.player_account(player_id)
            secret = token or "pt_" + secrets.token_urlsafe(32)
            answer = {"token": secret, "role": role, "player_id": player_id, "label": label,
                      "expires_at": expires_at.isoformat() if expires_at else None}
            known = self.principal(secret) if token is not None else None
            if known is not None:  # adopting a token already adopted changes nothing
                if (known.role, known.player_id) != (role, player_id):
                    raise NotAllowed("this token already belongs to another principal")
                if known.revoked:
                    raise NotAllowed("this token was revoked; issue a new one")
                return [], {**answer, "id": known.principal_id}
            issued = Token.issue(_hash(secret), role, player_id, label=label,
                                 expires_at=expires_at)
            return [issued], {**answer, "id": issued.principal_id}
        # The receipt must not keep the secret: a repeat names the role only.
        request = {"role": role, "player_id": player_id, "label": label,
                   "expires_at": expires_at.isoformat() if expires_at else None,
                   "adopted": _hash(token) if token is not None else None}
        return self._command("create_token", request, key, decide, secret=("token",))

    def principal(self, token: str) -> Token | None:
        """Who holds `token` (revoked or expired included), or None for an unknown token."""
        return self.token(token_id(_hash(token)))

    def token(self, token_key: UUID) -> Token | None:
        try:
            found: Any = self.repository.get(token_key)
        except AggregateNotFoundError:
            return None
        return found if isinstance(found, Token) else None

    def token_changed(self, token_key: UUID, version: int) -> bool:
        """Whether a token was revoked (or otherwise recorded) since `version`: one indexed
        read of the store, cheap enough for every request."""
        return bool(self.recorder.select_events(token_key, gt=version, limit=1))

    def revoke_token(self, token_key: UUID, principal_id: str, *, by: str | None = None,
                     key: str | None = None) -> Outcome:
        """The treasurer revokes a token (`token_key`: its aggregate's id, found by its
        principal's id in the tokens read model); revoking it again changes nothing."""
        def decide() -> Decision:
            token = self.token(token_key)
            if token is None or token.principal_id != principal_id:
                raise NotFound(f"there is no token {principal_id}")
            token.revoke(by)
            return [token], {"id": principal_id, "revoked": True}
        return self._command("revoke_token", {"token": str(token_key), "by": by}, key, decide)


def _check_token_request(role: str, player_id: str | None, label: str | None,
                         expires_at: datetime | None) -> None:
    if role not in ROLES:
        raise NotAllowed(f"role must be one of {', '.join(ROLES)}")
    if (role == "player") != (player_id is not None):
        raise NotAllowed("a player token names its player, and only a player token does")
    if label is not None and len(label) > LABEL_MAX:
        raise NotAllowed(f"a token's label is at most {LABEL_MAX} characters")
    if expires_at is not None:
        if expires_at.tzinfo is None:
            raise NotAllowed("expires_at needs a time zone (RFC 3339, e.g. ...Z)")
        if expires_at <= datetime.now(UTC):
            raise NotAllowed("expires_at must be in the future")
