"""A small reference checker of hand histories, written apart from the service's code, that
the tests hold the service's histories and the browser verifier (api/verify/checks.js) to.

- RFC 6962 Merkle trees in a few lines: leaf and node hashes, the root, inclusion paths and
  the root an inclusion path leads to (RFC 9162 2.1.3.2);
- C2SP signed notes and tlog checkpoints, signed and checked with Ed25519 from pyca
  `cryptography` (until the service signs its own checkpoints, issue 26);
- the event hash chain of domain/integrity.py, the mix and the shuffle of
  domain/engine/shuffle.py, each written again here;
- `check(history, vkey)`: every check of the verifier page, each "pass", "fail" or
  "not checked";
- `forgeries(history)`: the forged histories both must refuse.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

PASS, FAIL, SKIP = "pass", "fail", "not checked"


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


# --- RFC 6962 ------------------------------------------------------------------------------

def leaf_hash(data: bytes) -> bytes:
    return sha256(b"\x00" + data)


def node_hash(left: bytes, right: bytes) -> bytes:
    return sha256(b"\x01" + left + right)


def event_leaf(position: int, event_hash: bytes) -> bytes:
    """API.md "Merkle log": SHA-256(0x00 ‖ position as 8 bytes big-endian ‖ event hash)."""
    return leaf_hash(position.to_bytes(8, "big") + event_hash)


def _split(n: int) -> int:
    """The largest power of two smaller than n (RFC 6962 2.1)."""
    k = 1
    while k << 1 < n:
        k <<= 1
    return k


def root(leaves: Sequence[bytes]) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return node_hash(root(leaves[:k]), root(leaves[k:]))


def inclusion_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """RFC 6962 2.1.1 PATH(m, D[n])."""
    if len(leaves) <= 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return [*inclusion_path(leaves[:k], index), root(leaves[k:])]
    return [*inclusion_path(leaves[k:], index - k), root(leaves[:k])]


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes]
                        ) -> bytes | None:
    """RFC 9162 2.1.3.2; None for a path that cannot be one."""
    if index >= size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return r if sn == 0 else None


# --- C2SP signed notes ---------------------------------------------------------------------

def key_id(name: str, public: bytes) -> bytes:
    return sha256(name.encode() + b"\n\x01" + public)[:4]


def vkey_of(name: str, key: Ed25519PrivateKey) -> str:
    public = key.public_key().public_bytes_raw()
    encoded = base64.b64encode(b"\x01" + public).decode()
    return f"{name}+{key_id(name, public).hex()}+{encoded}"


def signed_note(body: str, name: str, key: Ed25519PrivateKey) -> str:
    public = key.public_key().public_bytes_raw()
    signature = key.sign(body.encode())
    line = base64.b64encode(key_id(name, public) + signature).decode()
    return f"{body}\n\u2014 {name} {line}\n"


def checkpoint_body(origin: str, size: int, tree_root: bytes) -> str:
    return f"{origin}\n{size}\n{base64.b64encode(tree_root).decode()}\n"


def note_verifies(note: str, vkey: str) -> bool:
    name, hex_id, blob = vkey.split("+", 2)
    public = base64.b64decode(blob)[1:]
    if key_id(name, public).hex() != hex_id:
        return False
    body, _, signatures = note.partition("\n\n")
    for line in signatures.splitlines():
        _, who, encoded = line.split(" ")
        raw = base64.b64decode(encoded)
        if who == name and raw[:4].hex() == hex_id:
            try:
                Ed25519PublicKey.from_public_bytes(public).verify(raw[4:], (body + "\n").encode())
                return True
            except Exception:  # noqa: BLE001 (cryptography raises InvalidSignature)
                return False
    return False


def with_proofs(history: dict[str, Any], log: Sequence[tuple[int, bytes]], *, origin: str,
                name: str, key: Ed25519PrivateKey) -> dict[str, Any]:
    """The history with a checkpoint of the whole `log` ((position, event hash) in order)
    signed by `key`, and each event's inclusion proof: what the signed Merkle log gives."""
    leaves = [event_leaf(position, hashed) for position, hashed in log]
    signed = copy.deepcopy(history)
    signed["checkpoint"] = signed_note(checkpoint_body(origin, len(leaves), root(leaves)),
                                       name, key)
    signed["inclusion"] = [{"index": e["index"], "proof": [
        base64.b64encode(h).decode() for h in inclusion_path(leaves, e["index"])]}
        for e in signed["events"]]
    return signed


# --- the deal: the event chain, the mix and the shuffle ------------------------------------

def event_hash(previous: bytes, aggregate_id: str, version: int, topic: str,
               state: bytes) -> bytes:
    return sha256(previous + UUID(aggregate_id).bytes + version.to_bytes(8, "big")
                  + topic.encode() + b"\x00" + state)


def mixed_seed(seed: str, contributions: Sequence[dict[str, str]]) -> str:
    if not contributions:
        return seed
    message = b"pontoon-mix-v1" + b"".join(
        c["player_id"].encode("ascii") + bytes.fromhex(c["value"]) for c in contributions)
    return hmac.new(bytes.fromhex(seed), message, hashlib.sha256).hexdigest()


def shuffled(seed: str, packs: int) -> list[str]:
    cards = [rank + suit for suit in "SHDC" for rank in
             ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")] * packs
    numbers: list[int] = []
    counter = 0

    def below(bound: int) -> int:
        nonlocal counter
        limit = 2**64 - 2**64 % bound
        while True:
            if not numbers:
                block = hmac.new(bytes.fromhex(seed), b"pontoon-shuffle-v1" +
                                 counter.to_bytes(8, "big"), hashlib.sha256).digest()
                numbers.extend(int.from_bytes(block[i:i + 8], "big") for i in range(0, 32, 8))
                counter += 1
            value = numbers.pop(0)
            if value < limit:
                return value % bound
    for i in range(len(cards) - 1, 0, -1):
        j = below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def facts_of(history: dict[str, Any]) -> list[dict[str, Any] | None]:
    return [None if e["state"] is None else
            json.loads(base64.b64decode(e["state"]))["fact"] for e in history["events"]]


# --- every check ---------------------------------------------------------------------------

def check(history: dict[str, Any], vkey: str | None) -> dict[str, str]:
    """Each check of the verifier page: "pass", "fail" or "not checked"."""
    out: dict[str, str] = {}
    hashes: list[bytes] = []
    previous, chained = bytes(32), True
    for number, event in enumerate(history["events"], start=1):
        given = bytes.fromhex(event["event_hash"]) if event["event_hash"] else None
        if event["state"] is None:
            hashed = given or bytes(32)
        else:
            hashed = event_hash(previous, event["aggregate_id"], event["version"],
                                event["topic"], base64.b64decode(event["state"]))
            chained &= given is None or given == hashed
        chained &= event["version"] == number and event["aggregate_id"] == history["deal"]["id"]
        hashes.append(hashed)
        previous = hashed
    out["events"] = PASS if chained else FAIL
    out["signature"], out["inclusion"] = _signed(history, hashes, vkey)
    facts = facts_of(history)
    out["commitment"], out["mixed seed"], seed = _pack(history, facts[0])
    out["draws"] = _draws(history, facts, seed)
    return out


def _signed(history: dict[str, Any], hashes: list[bytes], vkey: str | None
            ) -> tuple[str, str]:
    note = history["checkpoint"]
    if not note or not vkey:
        return SKIP, SKIP
    if not note_verifies(note, vkey):
        return FAIL, SKIP
    _, size, encoded = note.split("\n")[:3]
    tree_root = base64.b64decode(encoded)
    proofs = {p["index"]: [base64.b64decode(h) for h in p["proof"]] for p in history["inclusion"]}
    for event, hashed in zip(history["events"], hashes, strict=True):
        found = root_from_inclusion(event["index"], int(size),
                                    event_leaf(event["position"], hashed),
                                    proofs.get(event["index"], [b"missing"]))
        if found != tree_root:
            return PASS, FAIL
    return PASS, PASS


def _pack(history: dict[str, Any], opened: dict[str, Any] | None
          ) -> tuple[str, str, str | None]:
    pack = history["pack"]
    if opened is not None and (opened["commitment"] != pack["commitment"] or
                               opened.get("contributions", []) != pack["contributions"]):
        return FAIL, FAIL, None
    if not pack["commitment"] or not pack["server_seed"]:
        return SKIP, SKIP, None
    if sha256(bytes.fromhex(pack["server_seed"])).hex() != pack["commitment"]:
        return FAIL, SKIP, None
    return PASS, PASS, mixed_seed(pack["server_seed"], pack["contributions"])


def _draws(history: dict[str, Any], facts: list[dict[str, Any] | None], seed: str | None
           ) -> str:
    dealt = {e["position"]: f for e, f in zip(history["events"], facts, strict=True)
             if e["topic"].endswith(".CardDealt")}
    draws = history["draws"]
    if len(dealt) != len(draws) or any(
            d["position"] not in dealt or (dealt[d["position"]] is not None and (
                dealt[d["position"]]["card"], dealt[d["position"]]["player"]) !=
                (d["card"], d["to"])) for d in draws):
        return FAIL
    if seed is None:
        return SKIP
    order = shuffled(seed, history["pack"]["packs"])
    opened = facts[0] or {}
    first = draws[0]["pack_index"] if draws else 0
    start = opened.get("pack")
    if start is not None and start[:max(0, len(order) - first)] != order[first:]:
        return FAIL
    for j, draw in enumerate(draws):
        place = draw["pack_index"]
        expected = order[place] if place < len(order) else (start or [None] * (j + 1))[j]
        if place != first + j or expected != draw["card"]:
            return FAIL
    return PASS


# --- forged histories ----------------------------------------------------------------------

Forgery = Callable[[dict[str, Any]], None]


def _one_proof_hash_changed(history: dict[str, Any]) -> None:
    proof = next(p for p in history["inclusion"] if p["proof"])["proof"]
    raw = bytearray(base64.b64decode(proof[0]))
    raw[0] ^= 1
    proof[0] = base64.b64encode(bytes(raw)).decode()


def _one_draws_card_changed(history: dict[str, Any]) -> None:
    draw = history["draws"][-1]
    draw["card"] = "QS" if draw["card"] != "QS" else "QD"


def _one_contribution_dropped(history: dict[str, Any]) -> None:
    history["pack"]["contributions"].pop()


def _one_events_bytes_edited(history: dict[str, Any]) -> None:
    event = next(e for e in history["events"] if e["topic"].endswith(".CardDealt"))
    state = json.loads(base64.b64decode(event["state"]))
    state["fact"]["card"] = "QS" if state["fact"]["card"] != "QS" else "QD"
    event["state"] = base64.b64encode(json.dumps(state, separators=(",", ":")).encode()).decode()


# name: (how the history is forged, the check that must fail)
FORGERIES: dict[str, tuple[Forgery, str]] = {
    "a proof with one hash changed": (_one_proof_hash_changed, "inclusion"),
    "a draw's card changed": (_one_draws_card_changed, "draws"),
    "a contribution dropped": (_one_contribution_dropped, "mixed seed"),
    "an event's bytes edited": (_one_events_bytes_edited, "events"),
}


def forged(history: dict[str, Any], name: str) -> dict[str, Any]:
    copied = copy.deepcopy(history)
    FORGERIES[name][0](copied)
    return copied
