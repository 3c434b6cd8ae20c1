"""Account balances: players, kitties and the treasury by default; the total of every
account is always 0 (R11.1)."""

from __future__ import annotations

from typing import Any

from api.auth import require
from api.balances.schemas import BalancesQuerySchema, BalancesSchema
from api.common import Blueprint, wants_csv
from api.downloads import balances_download
from api.reads import read_store
from projections.balances import balance_page, balance_totals

# Prefixed /v1 (not /v1/balances) so that the download's path is /v1/balances.csv.
blp = Blueprint("balances", __name__, url_prefix="/v1", description="Balances")


@blp.read("/balances", BalancesSchema, query=BalancesQuerySchema, csv=True)
def all_balances(query: dict[str, Any]) -> Any:
    """Balances of the accounts of `kind` (cursor paging); `total` and `debts` cover every
    account whatever the filter, and the total is 0 (R11.1)."""
    require("treasurer")
    store = read_store(query.get("min_position"))
    kinds = query["kind"]
    if wants_csv(query):
        return balances_download(store, kinds)
    totals = balance_totals(store)
    assert totals["total"] == 0, f"the balances sum to {totals['total']}, not 0 (R11.1)"
    rows = balance_page(store, kinds, after=query.get("after"), limit=query["limit"])
    following = rows[-1]["account"] if len(rows) == query["limit"] else None
    return {**totals, "items": rows, "accounts": rows, "next": following}
