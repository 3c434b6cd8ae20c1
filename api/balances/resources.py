"""Account balances: players, kitties and the treasury by default, now or as of a club day's
end or an instant; the total of every account is always 0 (R11.1)."""

from __future__ import annotations

from typing import Any

from api.auth import require
from api.balances.schemas import BalancesQuerySchema, BalancesSchema
from api.common import Blueprint, wants_csv
from api.downloads import balances_download
from api.reads import read_store
from domain.errors import ChipsNotConserved
from projections.asof import standing
from projections.balances import balance_page, balance_totals
from projections.store import ReadStore

# Prefixed /v1 (not /v1/balances) so that the download's path is /v1/balances.csv.
blp = Blueprint("balances", __name__, url_prefix="/v1", description="Balances")


@blp.read("/balances", BalancesSchema, query=BalancesQuerySchema, csv=True)
def all_balances(query: dict[str, Any]) -> Any:
    """Balances of the accounts of `kind` (cursor paging); `total` and `debts` cover every
    account whatever the filter, and the total is 0 (R11.1)."""
    require("treasurer")
    store = read_store(query.get("min_position"))
    kinds, cutoff = query["kind"], query.get("cutoff")
    if wants_csv(query):
        return balances_download(store, kinds, cutoff)
    if cutoff is not None:
        return _as_of(store, kinds, cutoff, query)
    totals = balance_totals(store)
    if totals["total"] != 0:
        raise ChipsNotConserved(f"the balances total {totals['total']} chips, not 0", "R11.1")
    rows = balance_page(store, kinds, after=query.get("after"), limit=query["limit"])
    following = rows[-1]["account"] if len(rows) == query["limit"] else None
    return {**totals, "items": rows, "accounts": rows, "next": following}


def _as_of(store: ReadStore, kinds: list[str], cutoff: str, query: dict[str, Any]
           ) -> dict[str, Any]:
    """The page's accounts as they stood just before `cutoff`, and the totals then (an
    account opened since shows 0)."""
    rows = balance_page(store, kinds, after=query.get("after"), limit=query["limit"])
    then = standing(store, cutoff, accounts=[row["account"] for row in rows], kinds=kinds)
    for row in rows:
        row["balance"] = then.get(row["account"], 0)
    every = standing(store, cutoff)
    debts = sum(b for account, b in every.items() if account.startswith("player:") and b < 0)
    following = rows[-1]["account"] if len(rows) == query["limit"] else None
    return {"total": sum(every.values()), "debts": debts, "position": None, "as_of": cutoff,
            "items": rows, "accounts": rows, "next": following}
