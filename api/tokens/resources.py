"""Bearer tokens for staff (API.md): issued, listed and revoked by the treasurer."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.auth import require
from api.common import Blueprint, creation_key, ledger
from api.reads import page, read_store
from api.tokens.schemas import TokenCreateSchema, TokenSchema, TokensQuerySchema, TokensSchema
from application import Outcome
from domain.errors import NotFound
from projections.tokens import token_key, tokens

blp = Blueprint("tokens", __name__, url_prefix="/v1/tokens", description="Bearer tokens")


@blp.command("", TokenCreateSchema, TokenSchema, status=201)
def create_token(body: dict[str, Any]) -> Outcome:
    """The treasurer issues an operator or treasurer token, shown once."""
    require("treasurer")
    return ledger().create_token(body["role"], label=body.get("label"),
                                 expires_at=body.get("expires_at"), key=creation_key())


@blp.read("", TokensSchema, query=TokensQuerySchema)
def list_tokens(query: dict[str, Any]) -> dict[str, Any]:
    """Every token in the order issued (never the token itself), revoked ones included."""
    require("treasurer")
    rows = tokens(read_store(query.get("min_position")), after=query["after"],
                  limit=query["limit"])
    items = [{**row, "revoked": row["revoked_at"] is not None} for row in rows]
    return page(items, query["limit"])


@blp.removal("/<uuid:token_id>")
def revoke_token(token_id: UUID) -> None:
    """The treasurer revokes a token: every worker refuses it from the next request on."""
    who = require("treasurer")
    ledger().revoke_token(UUID(_token_key(str(token_id))), str(token_id), by=who.id,
                          key=creation_key())


def _token_key(principal_id: str) -> str:
    """The token's aggregate, by its id in the list; a token issued a moment ago may not be
    listed yet, so the read models catch up with the log once before it is unknown."""
    found = token_key(read_store(None), principal_id)
    if found is None:
        read_store(ledger().recorder.max_notification_id())
        found = token_key(read_store(None), principal_id)
    if found is None:
        raise NotFound(f"there is no token {principal_id}")
    return found
