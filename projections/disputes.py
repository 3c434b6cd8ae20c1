"""Disputes and their resolutions (R11.4), with each correcting posting in full."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from domain.aggregates import Dispute
from domain.engine.postings import correction_reason
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
                   "resolved_position = %s, allow_debt = %s WHERE dispute_id = %s",
                   (event.decision, event.note, json.dumps(event.corrections),
                    event.resolved_by, at(event), position, event.allow_debt, dispute_id))


def disputes(store: ReadStore, status: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT * FROM disputes"
    params: tuple[Any, ...] = ()
    if status:
        sql += " WHERE status = %s"
        params = (status,)
    return [_loaded(row) for row in store.rows(sql + " ORDER BY raised_position", params)]


def dispute_page(store: ReadStore, *, status: str | None = None, deal_id: str | None = None,
                 player_id: str | None = None, after: int | None = None, limit: int = 50,
                 descending: bool = False, table_id: str | None = None,
                 start: str | None = None, end: str | None = None) -> list[dict[str, Any]]:
    """Disputes oldest (or newest) first, by status, deal, table and when raised ([start,
    end)), and those on the deals one player played in (as banker or dealt in); cursor: the
    position that raised the last dispute of the previous page."""
    where, params = "1 = 1", list[Any]()
    for column, value in (("d.status", status), ("d.deal_id", deal_id)):
        if value is not None:
            where += f" AND {column} = %s"
            params.append(value)
    if table_id is not None:
        where += " AND d.deal_id IN (SELECT deal_id FROM deals WHERE table_id = %s)"
        params.append(table_id)
    for bound, value in ((">=", start), ("<", end)):
        if value is not None:
            where += f" AND d.raised_at {bound} %s"
            params.append(value)
    if player_id is not None:
        # A deal's players are a JSON list of ids; an id is found in it as itself, quoted.
        where += " AND (x.banker = %s OR x.players LIKE %s)"
        params += [player_id, f'%"{player_id}"%']
    if after is not None:
        where += " AND d.raised_position < %s" if descending else " AND d.raised_position > %s"
        params.append(after)
    order = "DESC" if descending else "ASC"
    joined = " JOIN deals x ON x.deal_id = d.deal_id" if player_id is not None else ""
    rows = store.rows(f"SELECT d.* FROM disputes d{joined} WHERE {where} "
                      f"ORDER BY d.raised_position {order} LIMIT %s", (*params, limit))
    return [_loaded(row) for row in rows]


def corrections_by_posting(store: ReadStore, deal_ids: set[str]) -> dict[str, str]:
    """The dispute each correcting posting of these deals was decided in, by posting id."""
    if not deal_ids:
        return {}
    marks = ", ".join(["%s"] * len(deal_ids))
    rows = store.rows("SELECT dispute_id, corrections FROM disputes WHERE status = 'resolved' "
                      f"AND deal_id IN ({marks})", sorted(deal_ids))
    return {correction["id"]: row["dispute_id"] for row in rows
            for correction in json.loads(row["corrections"] or "[]")}


def disputes_of_deal(store: ReadStore, deal_id: str, names: dict[str, str]
                     ) -> list[dict[str, Any]]:
    """A deal's disputes, oldest first, each with its correcting postings in full."""
    rows = store.rows("SELECT * FROM disputes WHERE deal_id = %s ORDER BY raised_position",
                      (deal_id,))
    return [_detailed(_loaded(row), names) for row in rows]


def dispute_detail(store: ReadStore, dispute_id: str, *, names: dict[str, str]
                   ) -> dict[str, Any] | None:
    rows = store.rows("SELECT * FROM disputes WHERE dispute_id = %s", (dispute_id,))
    return _detailed(_loaded(rows[0]), names) if rows else None


def _loaded(row: dict[str, Any]) -> dict[str, Any]:
    row["corrections"] = json.loads(row["corrections"]) if row["corrections"] else []
    row["allow_debt"] = bool(row["allow_debt"]) if row["status"] == "resolved" else None
    return row


def _detailed(row: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The row with its corrections as postings: rule R11.4, the reason the ledger recorded
    (the resolution's note), at the resolution's time and position, which carries them."""
    reason = correction_reason(row["dispute_id"], row["note"] or "", bool(row["allow_debt"]))
    postings = [{**c, "rule": "R11.4", "reason": reason, "at": row["resolved_at"],
                 "position": row["resolved_position"], "deal_id": row["deal_id"],
                 "hand": None, "explanation": explanation(c, reason, names)}
                for c in row["corrections"]]
    # Raised is the dispute's version 1 and Resolved its version 2 (domain/aggregates).
    return dict(row, corrections=postings, version=2 if row["status"] == "resolved" else 1)


def explanation(posting: dict[str, Any], reason: str, names: dict[str, str]) -> str:
    return (f"{account_words(posting['from_account'], names)} → "
            f"{account_words(posting['to_account'], names)}, {posting['amount']}: {reason}")


def account_words(account: str, names: dict[str, str]) -> str:
    """An account in words: a player's name, the kitty, the deal's stakes, the treasury."""
    kind, _, key = account.partition(":")
    if kind == "player":
        return names.get(key, key)
    return {"kitty": "the kitty", "escrow": "the stakes on the table",
            "treasury": "the treasury"}.get(kind, account)
