"""A table as API.md shows it."""

from __future__ import annotations

import json
from typing import Any

from api.common import ledger
from domain.aggregates import TableAggregate


def table_view(table: TableAggregate, position: int | None) -> dict[str, Any]:
    engine = table.engine
    return {
        "id": engine.table_id, "name": engine.name, "seats": list(engine.seats),
        "banker": engine.banker, "rules": engine.rules.to_dict(),
        "kitty": engine.kitty if engine.rules.shoot else 0, "deal_id": engine.deal_id,
        "deals_played": engine.deals_played,
        "pack": {"mode": engine.pack_mode, "commitment": engine.commitment,
                 "revealed": list(engine.revealed),
                 "contributions": [dict(c) for c in engine.contributions],
                 "accepting_contributions": engine.contributions_open},
        "auction": None if engine.auction is None else
        [{"player_id": bidder, "price": price} for bidder, price in engine.auction],
        "version": table.version, "position": position,
    }


def listed_deal(row: dict[str, Any]) -> dict[str, Any]:
    """A deal of the read model in the deal view's words: the read model only knows that a
    deal is still open, so an open deal (at most one a table) is looked up for its phase."""
    phase = row["phase"]
    if phase == "open":
        phase = ledger().deal(row["deal_id"]).engine.phase
    disputes = int(row.get("disputes") or 0)
    return {**row, "phase": phase, "players": json.loads(row["players"]),
            "disputes": disputes, "disputed": disputes > 0}
