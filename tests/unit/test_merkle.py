"""The Merkle tree of the log (domain/merkle.py) against known answers, and forged proofs.

Known answers: the RFC 6962 test vectors of transparency-dev/merkle, proof/verify_test.go
(github.com/transparency-dev/merkle, commit 02194e9; first published with Certificate
Transparency's merkle_tree_test): eight leaves, the root of each prefix, and inclusion and
consistency proofs. Forgeries follow the same file's `corruptInclusionProof` and
`corruptConsistencyProof`, for the immudb client accepted a forged consistency proof
(GO-2022-1117): the verifier is what an attacker aims at.
"""

from __future__ import annotations

import random

import pytest

from domain.merkle import (
    EMPTY_ROOT,
    CompactRange,
    ProofError,
    consistency_ranges,
    event_leaf,
    inclusion_ranges,
    leaf_hash,
    left_edge,
    perfect_nodes,
    range_hash,
    verify_consistency,
    verify_inclusion,
)

LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243",
                                     "5051525354555657", "606162636465666768696a6b6c6d6e6f")]
ROOTS = [bytes.fromhex(h) for h in (
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")]
# (leaf, 0-based, and tree size) -> path; (first, second) -> path, from the same file.
INCLUSION = {
    (0, 8): ("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    (5, 8): ("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    (2, 3): ("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",),
    (1, 5): ("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    (0, 1): (),
}
CONSISTENCY = {
    (1, 8): ("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    (6, 8): ("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    (2, 5): ("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    (6, 7): ("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
             "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    (1, 1): (),
}
HASHES = [leaf_hash(leaf) for leaf in LEAVES]
SOME_HASH = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")


def hashes(path: tuple[str, ...]) -> list[bytes]:
    return [bytes.fromhex(h) for h in path]


@pytest.mark.parametrize("size", range(1, 9))
def test_the_root_of_each_prefix_is_the_known_answer(size: int) -> None:
    grown = CompactRange()
    for leaf in HASHES[:size]:
        grown.append(leaf)

    assert range_hash(HASHES, 0, size) == ROOTS[size - 1]
    assert grown.root() == ROOTS[size - 1]


def test_the_empty_tree_has_the_hash_of_nothing_as_root() -> None:
    assert CompactRange().root() == EMPTY_ROOT == range_hash([], 0, 0)


@pytest.mark.parametrize(("index", "size"), INCLUSION)
def test_an_inclusion_proof_is_the_known_path_and_verifies(index: int, size: int) -> None:
    made = [range_hash(HASHES, *r) for r in inclusion_ranges(index, size)]

    assert made == hashes(INCLUSION[index, size])
    verify_inclusion(index, size, HASHES[index], made, ROOTS[size - 1])


@pytest.mark.parametrize(("first", "second"), CONSISTENCY)
def test_a_consistency_proof_is_the_known_path_and_verifies(first: int, second: int) -> None:
    made = [range_hash(HASHES, *r) for r in consistency_ranges(first, second)]

    assert made == hashes(CONSISTENCY[first, second])
    verify_consistency(first, second, ROOTS[first - 1], ROOTS[second - 1], made)


def test_proofs_made_and_verified_agree_for_every_index_and_size_up_to_70() -> None:
    leaves = [leaf_hash(bytes([n])) for n in range(70)]
    for size in range(1, 71):
        root = range_hash(leaves, 0, size)
        for index in range(size):
            verify_inclusion(index, size, leaves[index],
                             [range_hash(leaves, *r) for r in inclusion_ranges(index, size)],
                             root)
        for first in range(size + 1):
            verify_consistency(first, size, range_hash(leaves, 0, first), root,
                               [range_hash(leaves, *r) for r in consistency_ranges(first, size)])


def test_a_compact_range_holds_the_left_edge_and_names_each_subtree_a_leaf_completes() -> None:
    leaves = [leaf_hash(bytes([n])) for n in range(13)]
    grown = CompactRange()
    completed = [grown.append(leaf) for leaf in leaves]

    assert [range_hash(leaves, i << lv, (i + 1) << lv) for lv, i in left_edge(13)] == grown.hashes
    # Leaf 11 (binary 1011) completes subtrees of 1, 2 and 4 leaves: [11], [10, 11], [8, 11].
    assert completed[11] == [range_hash(leaves, 11, 12), range_hash(leaves, 10, 12),
                             range_hash(leaves, 8, 12)]
    assert perfect_nodes(8, 13) == [(2, 2), (0, 12)]


def test_an_event_leaf_hashes_its_position_and_event_hash() -> None:
    event_hash = bytes(range(32))

    assert event_leaf(258, event_hash) == leaf_hash(bytes(6) + b"\x01\x02" + event_hash)


# --- forgeries: every one refused -----------------------------------------------------------

def _flip(path: list[bytes], at: int) -> list[bytes]:
    changed = list(path)
    changed[at] = bytes([changed[at][0] ^ 8]) + changed[at][1:]
    return changed


def _forged_inclusions(index: int, size: int, path: list[bytes]
                       ) -> list[tuple[str, int, int, bytes, list[bytes], bytes]]:
    leaf, root = HASHES[index], ROOTS[size - 1]
    forged = [("index - 1", index - 1, size, leaf, path, root),
              ("index + 1", index + 1, size, leaf, path, root),
              ("index ^ 2", index ^ 2, size, leaf, path, root),
              ("size * 2", index, size * 2, leaf, path, root),
              ("size / 2", index, size // 2, leaf, path, root),
              ("wrong leaf", index, size, SOME_HASH, path, root),
              ("empty root", index, size, leaf, path, EMPTY_ROOT),
              ("some root", index, size, leaf, path, SOME_HASH),
              ("trailing empty", index, size, leaf, [*path, b""], root),
              ("trailing root", index, size, leaf, [*path, root], root),
              ("preceding empty", index, size, leaf, [b"", *path], root),
              ("preceding root", index, size, leaf, [root, *path], root)]
    forged += [(f"proof[{i}] changed", index, size, leaf, _flip(path, i), root)
               for i in range(len(path))]
    if path:
        forged.append(("a hash dropped", index, size, leaf, path[:-1], root))
    if len(path) > 1:
        forged.append(("a hash inserted", index, size, leaf, [path[0], SOME_HASH, *path[1:]],
                       root))
    return forged


@pytest.mark.parametrize(("index", "size"), [k for k in INCLUSION if k != (0, 1)])
def test_every_forged_inclusion_proof_is_refused(index: int, size: int) -> None:
    path = hashes(INCLUSION[index, size])

    accepted = []
    for name, at, of, leaf, proof, root in _forged_inclusions(index, size, path):
        try:
            verify_inclusion(at, of, leaf, proof, root)
        except ProofError:
            continue
        accepted.append(name)

    assert accepted == []


def _forged_consistencies(first: int, second: int, path: list[bytes]
                          ) -> list[tuple[str, int, int, bytes, bytes, list[bytes]]]:
    old, new = ROOTS[first - 1], ROOTS[second - 1]
    forged = [("first - 1", first - 1, second, old, new, path),
              ("first + 1", first + 1, second, old, new, path),
              ("first ^ 2", first ^ 2, second, old, new, path),
              ("second * 2", first, second * 2, old, new, path),
              ("second / 2", first, second // 2, old, new, path),
              ("wrong old root", first, second, SOME_HASH, new, path),
              ("wrong new root", first, second, old, SOME_HASH, path),
              ("roots swapped", first, second, new, old, path),
              ("empty proof", first, second, old, new, []),
              ("trailing empty", first, second, old, new, [*path, b""]),
              ("trailing old root", first, second, old, new, [*path, old]),
              ("trailing new root", first, second, old, new, [*path, new]),
              ("preceding empty", first, second, old, new, [b"", *path]),
              ("preceding old root", first, second, old, new, [old, *path]),
              ("preceding new root", first, second, old, new, [new, *path]),
              ("preceding proof[0]", first, second, old, new, [path[0], *path]),
              ("truncated", first, second, old, new, path[:-1]),
              ("the log shrank", second, first, new, old, path)]
    forged += [(f"proof[{i}] changed", first, second, old, new, _flip(path, i))
               for i in range(len(path))]
    return forged


@pytest.mark.parametrize(("first", "second"), [k for k in CONSISTENCY if k != (1, 1)])
def test_every_forged_consistency_proof_is_refused(first: int, second: int) -> None:
    """GO-2022-1117: one hash changed, wrong sizes, empty or extra proof items."""
    path = hashes(CONSISTENCY[first, second])

    accepted = []
    for name, old_size, new_size, old, new, proof in _forged_consistencies(first, second,
                                                                          path):
        try:
            verify_consistency(old_size, new_size, old, new, proof)
        except ProofError:
            continue
        accepted.append(name)

    assert accepted == []


def test_trees_of_one_size_are_consistent_only_with_equal_roots_and_no_proof() -> None:
    verify_consistency(3, 3, ROOTS[2], ROOTS[2], [])
    verify_consistency(0, 5, EMPTY_ROOT, ROOTS[4], [])

    with pytest.raises(ProofError, match="different roots"):
        verify_consistency(3, 3, ROOTS[2], ROOTS[3], [])
    with pytest.raises(ProofError, match="must be empty"):
        verify_consistency(3, 3, ROOTS[2], ROOTS[2], [ROOTS[2]])
    with pytest.raises(ProofError, match="must be empty"):
        verify_consistency(0, 5, EMPTY_ROOT, ROOTS[4], [ROOTS[4]])


def test_a_random_tree_refuses_every_proof_with_one_bit_flipped() -> None:
    chance = random.Random(26)
    leaves = [leaf_hash(chance.randbytes(8)) for _ in range(300)]
    for _ in range(200):
        size = chance.randint(2, 300)
        first, index = chance.randint(1, size - 1), chance.randrange(size)
        root = range_hash(leaves, 0, size)
        inclusion = [range_hash(leaves, *r) for r in inclusion_ranges(index, size)]
        consistency = [range_hash(leaves, *r) for r in consistency_ranges(first, size)]
        at = chance.randrange(len(consistency))

        with pytest.raises(ProofError):
            verify_consistency(first, size, range_hash(leaves, 0, first), root,
                               _flip(consistency, at))
        if inclusion:
            with pytest.raises(ProofError):
                verify_inclusion(index, size, leaves[index],
                                 _flip(inclusion, chance.randrange(len(inclusion))), root)
