"""The Merkle tree over the event log (RFC 6962, section 2.1; RFC 9162, section 2.1).

Leaf `i` is the `i`-th event of the log in position order (0-based), hashed as
SHA-256(0x00 ‖ position, 8 bytes big-endian ‖ event hash) with the event hash of
domain/integrity.py; an interior node is SHA-256(0x01 ‖ left ‖ right). Proofs are written
here as the subtrees whose hashes they list (`Range`: leaves `start` to `end`, end excluded),
so that a store holding the hash of every complete subtree can answer them in one read
(`perfect_nodes`), and so that the same functions build proofs from a list of leaves in
the tests. Verification follows RFC 9162's algorithms step by step: the verifier is what a
forger attacks (the immudb client accepted forged consistency proofs, GO-2022-1117), so
every size, count and hash is checked, and nothing is taken from the proof but hashes.

Pure: the standard library only, no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()  # the root of the tree of no leaves
Range = tuple[int, int]  # leaves [start, end)
Node = tuple[int, int]  # (level, index): leaves [index << level, (index + 1) << level)


class ProofError(ValueError):
    """A proof that does not prove what it is said to: the message says what was seen."""


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def event_leaf(position: int, event_hash: bytes) -> bytes:
    """The leaf hash of the event recorded at `position` with `event_hash`."""
    return leaf_hash(position.to_bytes(8, "big") + event_hash)


def split(size: int) -> int:
    """The largest power of two below `size` (RFC 6962's k, for size > 1)."""
    return 1 << ((size - 1).bit_length() - 1)


def perfect_nodes(start: int, end: int) -> list[Node]:
    """The complete subtrees that make up the leaves [start, end), left to right: for a
    range RFC 6962 hashes as one subtree, its hash is theirs folded from the right."""
    nodes = []
    while start < end:
        level = (end - start).bit_length() - 1
        if start:
            level = min(level, (start & -start).bit_length() - 1)
        nodes.append((level, start >> level))
        start += 1 << level
    return nodes


def fold(hashes: Sequence[bytes]) -> bytes:
    """The hash of a range from its complete subtrees' hashes (`perfect_nodes`)."""
    if not hashes:
        return EMPTY_ROOT
    result = hashes[-1]
    for left in reversed(hashes[:-1]):
        result = node_hash(left, result)
    return result


def inclusion_ranges(index: int, size: int) -> list[Range]:
    """RFC 6962 PATH(index, D[0:size]): the subtrees an inclusion proof lists, leaf first."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size} leaves")
    path: list[Range] = []
    start, end = 0, size
    while end - start > 1:
        k = split(end - start)
        if index < start + k:
            path.append((start + k, end))
            end = start + k
        else:
            path.append((start, start + k))
            start += k
    return path[::-1]


def consistency_ranges(first: int, second: int) -> list[Range]:
    """RFC 6962 PROOF(first, D[0:second]): the subtrees a consistency proof lists."""
    if not 0 <= first <= second:
        raise ProofError(f"a tree of {first} leaves cannot grow into one of {second}")
    if first in (0, second):
        return []
    path: list[Range] = []
    start, end, whole = 0, second, True  # `whole`: SUBPROOF's b
    while first != end:  # SUBPROOF(first - start, D[start:end]) until m = n
        k = split(end - start)
        if first - start <= k:
            path.append((start + k, end))
            end = start + k
        else:
            path.append((start, start + k))
            start, whole = start + k, False
    if not whole:
        path.append((start, end))
    return path[::-1]


def range_hash(leaves: Sequence[bytes], start: int, end: int) -> bytes:
    """RFC 6962 MTH(D[start:end]) from the leaf hashes (the tests' and verify's tree)."""
    nodes = []
    for level, index in perfect_nodes(start, end):
        row = list(leaves[index << level:(index + 1) << level])
        while len(row) > 1:
            row = [node_hash(row[i], row[i + 1]) for i in range(0, len(row), 2)]
        nodes.append(row[0])
    return fold(nodes)


class CompactRange:
    """The hashes of the complete subtrees that make up the first `size` leaves (RFC 9162's
    compact range, from the left edge): enough to append leaves and to give the root."""

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        if len(hashes) != bin(size).count("1"):
            raise ProofError(f"a tree of {size} leaves has {bin(size).count('1')} complete "
                             f"subtrees on its left edge, not {len(hashes)}")
        self.size, self.hashes = size, list(hashes)

    def append(self, leaf: bytes) -> list[bytes]:
        """Add a leaf; returns the hashes of the subtrees it completes, from the leaf (level
        0) up: the node at level L is the one of index `old size >> L`."""
        completed = [leaf]
        node, size = leaf, self.size
        while size & 1:
            node = node_hash(self.hashes.pop(), node)
            completed.append(node)
            size >>= 1
        self.hashes.append(node)
        self.size += 1
        return completed

    def root(self) -> bytes:
        return fold(self.hashes)


def left_edge(size: int) -> list[Node]:
    """The nodes a CompactRange of `size` leaves holds, left to right."""
    return perfect_nodes(0, size)


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes],
                     root: bytes) -> None:
    """RFC 9162 2.1.3.2; raises ProofError unless `proof` shows leaf `index` of the tree of
    `size` leaves with `root` is `leaf`."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size} leaves")
    _hashes(leaf, *proof, root)
    fn, sn, result = index, size - 1, leaf
    for sibling in proof:
        if sn == 0:
            raise ProofError("the inclusion proof has more hashes than the tree has levels")
        if fn & 1 or fn == sn:
            result = node_hash(sibling, result)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            result = node_hash(result, sibling)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion proof has fewer hashes than the tree has levels")
    if result != root:
        raise ProofError(f"the inclusion proof of leaf {index} leads to root "
                         f"{result.hex()}, not {root.hex()}")


def verify_consistency(first: int, second: int, first_root: bytes, second_root: bytes,
                       proof: Sequence[bytes]) -> None:
    """RFC 9162 2.1.4.2; raises ProofError unless `proof` shows the tree of `first` leaves
    with `first_root` is the start of the tree of `second` leaves with `second_root`."""
    _hashes(first_root, second_root, *proof)
    if not 0 <= first <= second:
        raise ProofError(f"a tree of {first} leaves cannot grow into one of {second}: "
                         "the log shrank")
    if first == second or first == 0:
        if proof:
            raise ProofError(f"the consistency proof from {first} to {second} leaves must "
                             f"be empty, not {len(proof)} hashes")
        if first == second and first_root != second_root:
            raise ProofError(f"two trees of {first} leaves have different roots: "
                             f"{first_root.hex()} and {second_root.hex()}")
        return
    if not proof:
        raise ProofError(f"the consistency proof from {first} to {second} leaves is empty")
    path = [first_root, *proof] if first & (first - 1) == 0 else list(proof)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof has more hashes than it needs")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof has fewer hashes than it needs")
    if fr != first_root:
        raise ProofError(f"the consistency proof leads to {fr.hex()} for the first "
                         f"{first} leaves, not the root {first_root.hex()} seen before")
    if sr != second_root:
        raise ProofError(f"the consistency proof leads to {sr.hex()} for {second} leaves, "
                         f"not the root {second_root.hex()} given")


def _hashes(*values: bytes) -> None:
    for value in values:
        if len(value) != HASH_SIZE:
            raise ProofError(f"a hash is {HASH_SIZE} bytes, not {len(value)}")
