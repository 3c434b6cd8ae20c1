"""Bearer tokens for staff (API.md)."""

from __future__ import annotations

from typing import Any

from api.auth import require
from api.common import Blueprint, idempotency_key, ledger
from api.tokens.schemas import TokenCreateSchema, TokenSchema
from application import Outcome

blp = Blueprint("tokens", __name__, url_prefix="/v1/tokens", description="Bearer tokens")


@blp.command("", TokenCreateSchema, TokenSchema, status=201)
def create_token(body: dict[str, Any]) -> Outcome:
    """The treasurer issues an operator or treasurer token, shown once."""
    require("treasurer")
    return ledger().create_token(body["role"], key=idempotency_key())
