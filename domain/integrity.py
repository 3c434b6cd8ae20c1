"""The hash chains that make the event log tamper-evident (docs/architecture.md, R11.4).

Each recorded event gets two SHA-256 hashes, computed over its stored bytes:

- its event hash chains it to the previous event of the same aggregate:
  SHA-256(previous event hash ‖ aggregate id (16 bytes) ‖ version (8 bytes, big-endian) ‖
  topic (UTF-8) ‖ 0x00 ‖ state), with 32 zero bytes before version 1;
- its log hash chains it to the previous event of the whole log, in position order:
  SHA-256(previous log hash ‖ position (8 bytes, big-endian) ‖ event hash), with 32 zero
  bytes before the first event.

A checkpoint `POSITION HASH` is the log hash at a position: it seals every event up to it.
The same formula is computed by the PostgreSQL trigger of migrations/0003_event_chain.py,
by the SQLite recorder (application/eventstore/recorders.py) and by `pontoon verify`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from uuid import UUID

GENESIS = bytes(32)


def event_hash(previous: bytes, originator_id: UUID, version: int, topic: str,
               state: bytes) -> bytes:
    digest = hashlib.sha256(previous)
    digest.update(originator_id.bytes)
    digest.update(version.to_bytes(8, "big", signed=True))
    digest.update(topic.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(state)
    return digest.digest()


def log_hash(previous: bytes, position: int, hashed_event: bytes) -> bytes:
    return hashlib.sha256(previous + position.to_bytes(8, "big", signed=True)
                          + hashed_event).digest()


@dataclass(frozen=True)
class Checkpoint:
    """The log hash at a position: what a treasurer keeps outside the database."""

    position: int
    hash: str  # hex

    def __str__(self) -> str:
        return f"{self.position} {self.hash}"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """`POSITION HASH`, as `pontoon checkpoint` prints it."""
        parts = text.split()
        if len(parts) != 2 or not parts[0].isdigit() or len(parts[1]) != 64:
            raise ValueError(f"a checkpoint is 'POSITION HASH' (a number and 64 hex digits), "
                             f"not {text!r}")
        try:
            bytes.fromhex(parts[1])
        except ValueError:
            raise ValueError(f"the checkpoint's hash is not hex: {parts[1]!r}") from None
        return cls(int(parts[0]), parts[1].lower())
