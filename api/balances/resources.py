"""Every account's balance; the total is always 0 (R11.1)."""

from __future__ import annotations

from typing import Any

from api.auth import require
from api.balances.schemas import BalancesSchema
from api.common import Blueprint
from api.reads import read_store
from api.schemas import MinPositionSchema
from projections.balances import balances

blp = Blueprint("balances", __name__, url_prefix="/v1/balances", description="Balances")


@blp.read("", BalancesSchema, query=MinPositionSchema)
def all_balances(query: dict[str, Any]) -> dict[str, Any]:
    """Every account, the treasury's and the escrows' included; the total is 0 (R11.1)."""
    require("treasurer")
    rows = balances(read_store(query.get("min_position")))
    total = sum(row["balance"] for row in rows)
    assert total == 0, f"the balances sum to {total}, not 0 (R11.1)"
    return {"accounts": rows, "total": total,
            "debts": sum(row["balance"] for row in rows
                         if row["kind"] == "player" and row["balance"] < 0),
            "position": max((row["position"] for row in rows), default=None)}
