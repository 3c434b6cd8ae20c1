"""Disputes and their resolutions (R11.4)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from domain.aggregates import Dispute
from projections.base import ReadModel, at
from projections.store import ReadStore, Statement


class DisputesModel(ReadModel):
    name = "disputes"
    reads = (Dispute.Raised, Dispute.Resolved)
    tables = ("disputes",)

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        dispute_id = str(event.originator_id)
        if isinstance(event, Dispute.Raised):
            yield ("INSERT INTO disputes (dispute_id, deal_id, raised_by, reason, status, "
                   "raised_at, raised_position) VALUES (%s, %s, %s, %s, 'open', %s, %s)",
                   (dispute_id, event.deal_id, event.raised_by, event.reason, at(event),
                    position))
        else:
            yield ("UPDATE disputes SET status = 'resolved', decision = %s, note = %s, "
                   "corrections = %s, resolved_by = %s, resolved_at = %s, "
                   "resolved_position = %s WHERE dispute_id = %s",
                   (event.decision, event.note, json.dumps(event.corrections),
                    event.resolved_by, at(event), position, dispute_id))


def disputes(store: ReadStore, status: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT * FROM disputes"
    params: tuple[Any, ...] = ()
    if status:
        sql += " WHERE status = %s"
        params = (status,)
    rows = store.rows(sql + " ORDER BY raised_position", params)
    for row in rows:
        row["corrections"] = json.loads(row["corrections"]) if row["corrections"] else []
    return rows


def dispute_page(store: ReadStore, *, status: str | None = None, deal_id: str | None = None,
                 after: int | None = None, limit: int = 50, descending: bool = False
                 ) -> list[dict[str, Any]]:
    """Disputes oldest (or newest) first, by status and deal; cursor: the position that
    raised the last dispute of the previous page."""
    where, params = "1 = 1", list[Any]()
    for column, value in (("status", status), ("deal_id", deal_id)):
        if value is not None:
            where += f" AND {column} = %s"
            params.append(value)
    if after is not None:
        where += " AND raised_position < %s" if descending else " AND raised_position > %s"
        params.append(after)
    order = "DESC" if descending else "ASC"
    rows = store.rows(f"SELECT * FROM disputes WHERE {where} ORDER BY raised_position {order} "
                      "LIMIT %s", (*params, limit))
    for row in rows:
        row["corrections"] = json.loads(row["corrections"]) if row["corrections"] else []
    return rows
