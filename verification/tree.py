"""`pontoon verify`'s check of the Merkle log (projections/merkle.py) against the hash
chain, and of a signed checkpoint against the log.

The leaves are made again from the event hashes recorded beside the events (which the
chain check holds to the stored bytes), in position order, and every stored leaf row (its
position and the subtrees it completes) must be what they give: a row changed, missing or
added is named by its leaf and position. A signed checkpoint (its signature checked by the
caller) must have the root the log gives at its size: a log rewritten since, even with
every hash chain recomputed, does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.merkle import CompactRange, event_leaf
from projections.notes import Checkpoint
from projections.store import ReadStore

PAGE = 5000
NOTHING_CHANGED = "(R11.4: nothing recorded is changed)"


def check_tree(recorder: Any, store: ReadStore | None, head: int,
               signed: Checkpoint | None, fail: Callable[[str], None]) -> None:
    """The Merkle log's rows up to `head` (if `store`), and `signed`'s root."""
    tree = CompactRange()
    rows = _StoredLeaves(store, head)
    after, sealed = 0, signed is None or signed.size == 0
    while after < head:
        page = recorder.select_hashes(after, head, PAGE)
        if not page:
            break
        for row in page:
            completed = tree.append(event_leaf(row.position, bytes(row.event_hash)))
            rows.check(tree.size - 1, row.position, b"".join(completed), fail)
            if signed is not None and tree.size == signed.size:
                sealed = True
                _seal(signed, tree.root(), fail)
        after = page[-1].position
    rows.finish(tree.size, fail)
    if signed is not None and not sealed:  # `sealed` starts true when nothing was signed
        fail(f"signed checkpoint {signed.size} ({signed.origin}): the log has only "
             f"{tree.size} events, fewer than the checkpoint signed: the newest events were "
             f"deleted {NOTHING_CHANGED}")


def _seal(signed: Checkpoint, root: bytes, fail: Callable[[str], None]) -> None:
    if root != signed.root:
        fail(f"signed checkpoint {signed.size} ({signed.origin}): the log's first "
             f"{signed.size} events give the root {root.hex()}, not the {signed.root.hex()} "
             f"signed: an event up to there was changed, inserted or deleted "
             f"{NOTHING_CHANGED}")


class _StoredLeaves:
    """The Merkle log's rows, read in pages alongside the leaves made again."""

    def __init__(self, store: ReadStore | None, head: int) -> None:
        self.store, self.head = store, head
        self.page: dict[int, tuple[int, bytes]] = {}
        self.read_to = 0  # leaves below this index have been read
        self.wrong = 0
        self.applied = 0 if store is None else store.positions(["Ledger:merkle"]).get(
            "Ledger:merkle", 0)

    def check(self, index: int, position: int, hashes: bytes,
              fail: Callable[[str], None]) -> None:
        if self.store is None:
            return
        if index >= self.read_to:
            self.page = {r["idx"]: (r["position"], bytes(r["hashes"])) for r in self.store.rows(
                "SELECT idx, position, hashes FROM merkle_leaves WHERE idx >= %s AND "
                "idx < %s ORDER BY idx", (index, index + PAGE))}
            self.read_to = index + PAGE
        stored = self.page.pop(index, None)
        if stored is None:
            if position <= self.applied:
                self._fail(fail, f"the Merkle log has no leaf {index} for the event at "
                                 f"position {position}, which it has applied")
        elif stored != (position, hashes):
            self._fail(fail, f"the Merkle log's leaf {index} (position {stored[0]}) is not "
                             f"what the event at position {position} and its recorded hash "
                             "give")

    def finish(self, leaves: int, fail: Callable[[str], None]) -> None:
        if self.store is None:
            return
        extra = self.store.rows("SELECT idx, position FROM merkle_leaves WHERE idx >= %s "
                                "AND position <= %s ORDER BY idx LIMIT 1", (leaves, self.head))
        if extra:
            self._fail(fail, f"the Merkle log has a leaf {extra[0]['idx']} (position "
                             f"{extra[0]['position']}) beyond the {leaves} events of the log")

    def _fail(self, fail: Callable[[str], None], message: str) -> None:
        self.wrong += 1
        if self.wrong <= 3:
            fail(f"{message}: rebuild the read models (`pontoon projections rebuild`) "
                 f"{NOTHING_CHANGED}")
