"""Bearer tokens for staff (API.md)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api.auth import require
from api.common import idempotency_key, ledger, positioned
from api.tokens.schemas import TokenCreateSchema, TokenSchema

blp = Blueprint("tokens", __name__, url_prefix="/v1/tokens", description="Bearer tokens")


@blp.route("")
class Tokens(MethodView):
    @blp.arguments(TokenCreateSchema)
    @blp.response(201, TokenSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """The treasurer issues an operator or treasurer token, shown once."""
        require("treasurer")
        outcome = ledger().create_token(body["role"], key=idempotency_key())
        return positioned(outcome)
