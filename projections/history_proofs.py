"""Where a hand history gets its place in the signed log: the seam between the histories of
projections/hand_history.py and the Merkle log (projections/merkle.py, proofs.py,
checkpoints.py).

- `leaf_indexes`: each event's leaf index, its 0-based order in the log (API.md, "Merkle
  log"), read from the Merkle log's leaves by position (one indexed read); an event the
  Merkle log has not reached yet is counted from the hash rows the leaves are made of.
- `proofs_for`: the latest signed checkpoint (the C2SP note, with its cosignatures) and an
  RFC 6962 inclusion proof of each event it covers; an event after it has none yet, and the
  verifier page says so.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from psycopg.sql import SQL, Identifier

from projections import checkpoints, proofs
from projections.base import EventLog
from projections.store import ReadStore
from projections.stored_events import HASHES


def leaf_indexes(log: EventLog, store: ReadStore, positions: Sequence[int]) -> dict[int, int]:
    """The leaf index of the event at each position: how many events come before it."""
    if not positions:
        return {}
    marks = ", ".join(["%s"] * len(positions))
    found = {int(row["position"]): int(row["idx"]) for row in store.rows(
        f"SELECT position, idx FROM merkle_leaves WHERE position IN ({marks})",  # noqa: S608
        list(positions))}
    if len(found) == len(set(positions)):
        return found
    first, last = min(positions), max(positions)
    before, between = _count_and_range(log.recorder, first, last)
    order = {position: before + rank for rank, position in enumerate(between)}
    return {position: order[position] for position in positions if position in order}


def proofs_for(store: ReadStore, events: Sequence[dict[str, Any]]
               ) -> tuple[str | None, list[dict[str, Any]]]:
    """The signed checkpoint note and, for each event (by its `index`) that it covers, its
    inclusion proof against that checkpoint: `[{"index", "proof": [base64, ...]}]`. None and
    [] while no checkpoint has been signed."""
    signed = checkpoints.latest(store)
    if signed is None:
        return None, []
    size = int(signed["size"])
    covered = sorted({e["index"] for e in events if e["index"] is not None and e["index"] < size})
    return signed["note"], [
        {"index": index, "proof": [base64.b64encode(h).decode()
                                   for h in proofs.inclusion(store, index, size)[1]]}
        for index in covered]


def _count_and_range(recorder: Any, first: int, last: int) -> tuple[int, list[int]]:
    """The number of hashed events before `first`, and the positions from `first` to
    `last` (the rows of `event_hashes`, application/eventstore/recorders.py, one a position)."""
    if isinstance(recorder, SQLiteApplicationRecorder):
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(f"SELECT COUNT(*) FROM {HASHES} WHERE notification_id < ?",  # noqa: S608
                           (first,))
            before = int(cursor.fetchone()[0])
            cursor.execute(f"SELECT notification_id FROM {HASHES} WHERE "  # noqa: S608
                           "notification_id BETWEEN ? AND ? ORDER BY notification_id",
                           (first, last))
            return before, [int(row[0]) for row in cursor.fetchall()]
    if isinstance(recorder, PostgresApplicationRecorder):
        events = SQL("{}.{}").format(Identifier(recorder.datastore.schema), Identifier(HASHES))
        with recorder.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(SQL("SELECT COUNT(*) AS n FROM {} WHERE notification_id < %s")
                           .format(events), (first,))
            row = cursor.fetchone()
            before = int(row["n"]) if row else 0
            cursor.execute(SQL("SELECT notification_id FROM {} WHERE notification_id "
                               "BETWEEN %s AND %s ORDER BY notification_id").format(events),
                           (first, last))
            return before, [int(r["notification_id"]) for r in cursor.fetchall()]
    notes = recorder.select_notifications(start=1, limit=last)
    ids = [note.id for note in notes]
    return sum(1 for i in ids if i < first), [i for i in ids if first <= i <= last]
