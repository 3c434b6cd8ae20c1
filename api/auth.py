"""Bearer tokens and roles (API.md, Authentication and roles)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app, g, request

from api.errors import Forbidden, Unauthorized

STAFF = ("treasurer", "operator")
COMMANDS = ("POST", "PUT", "PATCH", "DELETE")
# A witness token (pontoon witness) may post cosignatures of checkpoints and nothing else:
# refused here, before any view's own check, so an endpoint added later refuses it too.
WITNESS_ENDPOINTS = frozenset({"checkpoints.cosign_checkpoint"})


@dataclass(frozen=True)
class Principal:
    id: str  # "<role>:<token id>" ("treasurer", "operator", "witness"), "player:<player id>"
    role: str
    player_id: str | None

    @property
    def is_staff(self) -> bool:
        return self.role in STAFF


def principal() -> Principal:
    """Who sent this request; 401 without a known bearer token."""
    if "principal" in g:
        return g.principal  # type: ignore[no-any-return]
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("send Authorization: Bearer <token>")
    services = current_app.extensions["pontoon"]
    deferred = is_api_command()
    found = services.authenticate(token.strip(), deferred=deferred)
    if isinstance(found, str):
        raise Unauthorized(found)
    if found.role == "witness" and request.endpoint not in WITNESS_ENDPOINTS:
        raise Forbidden("a witness token may only post cosignatures of checkpoints")
    g.principal = found
    return found


def is_api_command() -> bool:
    """A request that may change the ledger: its token is checked before its body is read."""
    return request.method in COMMANDS and request.path.startswith("/v1/")


def token_changed() -> Unauthorized | None:
    """A command found its bearer token changed (revoked) since this worker last checked
    it: the refusal to answer (401), or None if the token is still good."""
    token = request.headers.get("Authorization", "").partition(" ")[2].strip()
    found = current_app.extensions["pontoon"].reauthenticate(token)
    return Unauthorized(found) if isinstance(found, str) else None


def require(*roles: str) -> Principal:
    """The principal, if its role is one of `roles` (treasurer may do what an operator may)."""
    who = principal()
    allowed = set(roles) | ({"treasurer"} if "operator" in roles else set())
    if who.role not in allowed:
        raise Forbidden(f"{article(who.role)} {who.role} may not do this; it needs: "
                        f"{', '.join(sorted(allowed))}")
    return who


def article(word: str) -> str:
    """`an operator`, `a treasurer`."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def require_seat_in(who: Principal, engine: Any, message: str) -> None:
    """A player token may only concern deals it was dealt into (as banker or player; one
    who sat the deal out, R3.5, was dealt in and may see what the deal recorded of them)."""
    if who.role == "player" and who.player_id not in (engine.banker, *engine.dealt_in):
        raise Forbidden(message)


def require_self_or(player_id: str, *roles: str) -> Principal:
    """Staff in `roles`, or the player `player_id` acting for themselves."""
    who = principal()
    if who.role == "player":
        if who.player_id != player_id:
            raise Forbidden("a player acts and sees only for their own seat")
        return who
    return require(*roles)
