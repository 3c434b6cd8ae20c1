"""Where a hand history gets its Merkle proofs: the one seam between the histories of
projections/hand_history.py and the signed Merkle log of issue 26 (built on another branch).

- `leaf_indexes`: each event's leaf index, its 0-based order in the log (API.md, "Merkle
  log"). Until the Merkle log is merged it is counted from the hash rows the leaves are
  made of, which reads every row before the deal's first event (about 0.6 s at 2 million
  events on SQLite or PostgreSQL, measured on a loaded machine); the Merkle log keeps it by
  position (`merkle_leaves`), which answers it in one indexed read.
- `proofs_for`: the latest signed checkpoint (the C2SP note) and an RFC 6962 inclusion proof
  of each event against it. Until the Merkle log is merged there is none: `(None, [])`, and
  the verifier page says that nothing ties the history to a signed log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from psycopg.sql import SQL, Identifier

from projections.base import EventLog
from projections.store import ReadStore
from projections.stored_events import HASHES


def leaf_indexes(log: EventLog, store: ReadStore, positions: Sequence[int]) -> dict[int, int]:
    """The leaf index of the event at each position: how many events come before it."""
    if not positions:
        return {}
    first, last = min(positions), max(positions)
    before, between = _count_and_range(log.recorder, first, last)
    order = {position: before + rank for rank, position in enumerate(between)}
    return {position: order[position] for position in positions if position in order}


def proofs_for(store: ReadStore, events: Sequence[dict[str, Any]]
               ) -> tuple[str | None, list[dict[str, Any]]]:
    """The signed checkpoint note and, for each event (by its `index`), its inclusion proof
    against that checkpoint: `[{"index", "proof": [base64, ...]}]`. None and [] until the
    signed Merkle log is merged (issue 26)."""
    return None, []


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
