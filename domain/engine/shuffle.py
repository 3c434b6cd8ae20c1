"""Verifiable shuffles (R1.7): a Fisher–Yates shuffle driven by a named deterministic stream.

The stream is HMAC-SHA256 in counter mode: block i is HMAC(key=seed, msg=label || i as 8
big-endian bytes). Anyone holding the revealed seed can re-run `shuffle_pack` and check every
card dealt from it; the SHA-256 `commitment` of the seed is published before the first card.
The seed itself is an input: the engine never draws randomness. Players may add randomness of
their own between the commitment and the first card (R1.7's December Decision): the pack is
then shuffled with `mixed_seed`, which neither the service (committed first) nor any one
player (who cannot know the secret seed) chooses.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Mapping, Sequence

from domain.engine.cards import CUT_ORDER, RANK, full_pack
from domain.errors import NotAllowed

SHUFFLE_STREAM = b"pontoon-shuffle-v1"
CUT_STREAM = b"pontoon-cut-v1"
MIX_LABEL = b"pontoon-mix-v1"
PLAYER_ID_LENGTH = 36  # a player id as the mix reads it: a UUID's 36 ASCII characters


def commitment(seed: str) -> str:
    """SHA-256 of the seed's bytes, published before dealing (R1.7)."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def mixed_seed(seed: str, contributions: Sequence[Mapping[str, str]]) -> str:
    """The seed a pack is shuffled with (R1.7, API.md "Players' entropy"): the server seed
    alone without contributions, else HMAC-SHA256(key = the server seed's bytes, message =
    "pontoon-mix-v1" ‖ for each contribution in recorded order: the player id's 36 ASCII
    characters ‖ the value's 32 bytes), in hex."""
    if not contributions:
        return seed
    message = bytearray(MIX_LABEL)
    for contribution in contributions:
        message += contribution["player_id"].encode("ascii")
        message += bytes.fromhex(contribution["value"])
    return hmac.new(bytes.fromhex(seed), bytes(message), hashlib.sha256).hexdigest()


def check_contribution(player_id: str, value: object) -> str:
    """A contribution's value as recorded: 64 hex digits, in lower case (R1.7); the player's
    id must be the 36 characters the mix reads."""
    if not (isinstance(value, str) and len(value) == 64 and value.isascii()
            and all(c in "0123456789abcdefABCDEF" for c in value)):
        raise NotAllowed("a contribution is 64 hex digits (32 random bytes) (R1.7)", "R1.7")
    if len(player_id) != PLAYER_ID_LENGTH or not player_id.isascii():
        raise NotAllowed(f"a contribution names its player by a {PLAYER_ID_LENGTH}-character "
                         "id (R1.7)", "R1.7")
    return value.lower()


def derived_seed(*parts: object) -> str:
    """A public, reproducible seed (ordered tables reshuffle from their table id, API.md)."""
    return hashlib.sha256(":".join(str(part) for part in parts).encode()).hexdigest()


def stream(seed: str, label: bytes) -> Iterator[int]:
    """Unsigned 64-bit integers from HMAC-SHA256(seed, label || counter)."""
    key = bytes.fromhex(seed)
    counter = 0
    while True:
        block = hmac.new(key, label + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(block[offset:offset + 8], "big")
        counter += 1


def below(numbers: Iterator[int], bound: int) -> int:
    """A uniform integer in [0, bound) by rejection sampling, so no index is favoured."""
    limit = (1 << 64) - (1 << 64) % bound
    while True:
        value = next(numbers)
        if value < limit:
            return value % bound


def shuffle_pack(seed: str, packs: int) -> list[str]:
    """The whole pack after a Fisher–Yates shuffle, top card first (R1.4, R1.7).

    A cut after the shuffle is not modelled: a uniform shuffle cut anywhere is still uniform.
    """
    cards = full_pack(packs)
    numbers = stream(seed, SHUFFLE_STREAM)
    for i in range(len(cards) - 1, 0, -1):
        j = below(numbers, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def cut_for_bank(seed: str, players: Sequence[str], packs: int) -> tuple[str, list[dict[str, str]]]:
    """R3.2: everyone cuts, the highest card (aces high) banks, tied players cut again.

    Returns the banker and every round of cuts, so an audit can show how the bank was chosen.
    """
    numbers = stream(seed, CUT_STREAM)
    rounds: list[dict[str, str]] = []
    cutting = list(players)
    while True:
        pack = full_pack(packs)
        cuts: dict[str, str] = {}
        for player in cutting:
            cuts[player] = pack.pop(below(numbers, len(pack)))
        rounds.append(cuts)
        best = max(CUT_ORDER[RANK[card]] for card in cuts.values())
        cutting = [p for p, card in cuts.items() if CUT_ORDER[RANK[card]] == best]
        if len(cutting) == 1:
            return cutting[0], rounds
