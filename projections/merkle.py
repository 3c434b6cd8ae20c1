"""The Merkle log: the events of the log, in position order, as the leaves of an RFC 6962
tree (domain/merkle.py), kept by the read-model runner like any read model (its tracking
position, written with its rows; dropped and rebuilt from the log; checked by verify).

Each event's leaf is built on the event hash recorded beside it in `event_hashes` (the
hash of its stored bytes, chained per aggregate: domain/integrity.py). The model stores,
per leaf, the hashes of the subtrees that leaf completes (projections/proofs.py), which is
every complete subtree of the tree once: what inclusion and consistency proofs and roots
at any size are read from, never recomputed. It keeps the tree's left edge (a compact
range) between pages, read again from its rows whenever they are not as it left them.

A page that settles or voids a deal sets `settled`, which the checkpointer waits on
(projections/checkpoints.py): a new signed checkpoint follows each settled deal.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from eventsourcing.utils import get_topic

from domain.aggregates import DealAggregate
from domain.merkle import CompactRange, event_leaf, left_edge
from projections.base import ReadModel
from projections.proofs import head, node_hashes
from projections.store import PageAlreadyApplied, Statement

INSERT = "INSERT INTO merkle_leaves (idx, position, hashes) VALUES (%s, %s, %s)"
SETTLING = frozenset(get_topic(c) for c in (DealAggregate.DealSettled,
                                            DealAggregate.DealVoided))


class MissingHash(Exception):
    """An event without its recorded hash: it cannot become a leaf (verify names it)."""


class MerkleLog(ReadModel):
    name = "merkle"
    tables = ("merkle_leaves",)

    def __init__(self, view: Any) -> None:
        super().__init__(view=view)
        self.settled = threading.Event()  # a deal was settled in a page now committed
        self._edge: tuple[CompactRange, int] | None = None  # as committed, with its position
        self._pending: tuple[CompactRange, int] | None = None
        self._settling = False  # a page written since the last commit settled a deal

    def select(self, page: list[Any], done: int, decode: Callable[[Any], Any]
               ) -> list[tuple[int, Any]]:
        """Every event past `done`, by its position and topic: nothing is decoded."""
        return [(n.id, n.topic) for n in page if n.id > done]

    def page_statements(self, events: list[tuple[int, Any]]) -> list[Statement]:
        if not events:
            return []
        first, last = events[0][0], events[-1][0]
        rows = self.store.rows("SELECT notification_id, event_hash FROM event_hashes WHERE "
                               "notification_id >= %s AND notification_id <= %s "
                               "ORDER BY notification_id", (first, last))
        hashes = {row["notification_id"]: bytes(row["event_hash"]) for row in rows}
        edge, edge_position = self._committed()
        if edge_position >= first:  # another runner applied this page: read positions again
            raise PageAlreadyApplied(f"the Merkle log's last leaf is the event at "
                                     f"{edge_position}, not one before {first}")
        statements: list[Statement] = []
        for position, _ in events:
            hashed = hashes.get(position)
            if hashed is None:
                raise MissingHash(f"the event at position {position} has no recorded hash")
            completed = edge.append(event_leaf(position, hashed))
            statements.append((INSERT, (edge.size - 1, position, b"".join(completed))))
        self._pending = (edge, last)
        self._settling = self._settling or any(topic in SETTLING for _, topic in events)
        return statements

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        raise NotImplementedError("the Merkle log is written a page at a time")

    def applied(self) -> None:
        if self._pending is not None:
            self._edge, self._pending = self._pending, None
        if self._settling:
            self._settling = False
            self.settled.set()

    def _committed(self) -> tuple[CompactRange, int]:
        """A copy of the left edge as the store holds it now (one read when it is as this
        model left it; after a rebuild or another runner's pages, its nodes are read)."""
        self._pending = None
        now = head(self.store)
        kept = self._edge
        if kept is None or (kept[0].size, kept[1]) != (now.size, now.position):
            kept = self._edge = (CompactRange(now.size, node_hashes(
                self.store, left_edge(now.size))), now.position)
        return CompactRange(kept[0].size, kept[0].hashes), kept[1]
