"""Reading the Merkle log's stored subtrees (projections/merkle.py): the tree's size, its
root at any size, and inclusion and consistency proofs (RFC 6962), each in two or three
indexed reads whatever the size of the log.

`merkle_leaves` holds a row per leaf: its index, the event's position, and the hashes of
the subtrees that leaf completes, from the leaf itself (level 0) up. The node at level L of
index k is completed by leaf (k + 1)·2^L - 1, at bytes 32·L to 32·(L + 1) of its row.
Every hash a proof lists is a range of leaves made of O(log n) such nodes
(domain.merkle.perfect_nodes), so a proof is one read of at most about 2·log2(n) rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.merkle import (
    HASH_SIZE,
    Node,
    Range,
    consistency_ranges,
    fold,
    inclusion_ranges,
    perfect_nodes,
)
from projections.store import ReadStore


class TreeTooSmall(Exception):
    """A proof or root was asked of a size the tree has not reached (yet)."""


@dataclass(frozen=True)
class Head:
    """The tree as the Merkle log last committed it: its size and the last leaf's event."""

    size: int
    position: int  # of the event of the last leaf; 0 for the empty tree


def head(store: ReadStore) -> Head:
    rows = store.rows("SELECT idx, position FROM merkle_leaves ORDER BY idx DESC LIMIT 1")
    return Head(rows[0]["idx"] + 1, rows[0]["position"]) if rows else Head(0, 0)


def node_hashes(store: ReadStore, nodes: Sequence[Node], size: int = 0) -> list[bytes]:
    """The stored hash of each complete subtree, in the order asked, in one read; with
    `size`, TreeTooSmall unless the tree has that many leaves (its leaf `size - 1` is read
    too: leaves are written in order, so the last one stands for all before it)."""
    rows = {((index + 1) << level) - 1: None for level, index in nodes}
    if size:
        rows[size - 1] = None
    if not rows:
        return []
    marks = ", ".join(["%s"] * len(rows))
    found = {row["idx"]: bytes(row["hashes"]) for row in store.rows(
        f"SELECT idx, hashes FROM merkle_leaves WHERE idx IN ({marks})",  # noqa: S608
        list(rows))}
    if size and size - 1 not in found:
        raise TreeTooSmall(f"the Merkle log holds fewer than {size} leaves")
    hashes = []
    for level, index in nodes:
        stored = found.get(((index + 1) << level) - 1, b"")
        node = stored[level * HASH_SIZE:(level + 1) * HASH_SIZE]
        if len(node) != HASH_SIZE:
            raise LookupError(f"the Merkle log holds no subtree at level {level}, index "
                              f"{index}: rebuild the read models")
        hashes.append(node)
    return hashes


def range_hashes(store: ReadStore, ranges: Sequence[Range], size: int = 0) -> list[bytes]:
    """The hash of each range of leaves (each one RFC 6962 subtree) of the tree of `size`
    leaves, in one read."""
    parts = [perfect_nodes(start, end) for start, end in ranges]
    hashes = iter(node_hashes(store, [node for nodes in parts for node in nodes], size))
    return [fold([next(hashes) for _ in nodes]) for nodes in parts]


def root(store: ReadStore, size: int) -> bytes:
    """The root of the tree of the first `size` leaves."""
    return range_hashes(store, [(0, size)], size)[0]


def inclusion(store: ReadStore, index: int, size: int) -> tuple[bytes, list[bytes]]:
    """Leaf `index`'s hash and its inclusion proof in the tree of `size` leaves."""
    leaf, *proof = range_hashes(store, [(index, index + 1), *inclusion_ranges(index, size)],
                                size)
    return leaf, proof


def consistency(store: ReadStore, first: int, second: int) -> list[bytes]:
    """The proof that the tree of `first` leaves is the start of the one of `second`."""
    return range_hashes(store, consistency_ranges(first, second), second)


def leaf_index(store: ReadStore, position: int) -> int | None:
    """The leaf of the event at `position` (None: not in the tree yet)."""
    rows = store.rows("SELECT idx FROM merkle_leaves WHERE position = %s", (position,))
    return int(rows[0]["idx"]) if rows else None
