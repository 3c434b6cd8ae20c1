"""Signed checkpoints of the Merkle log (c2sp.org/tlog-checkpoint), and their witnesses'
cosignatures.

The elected process makes them (`Checkpointer`, a duty beside the read models): a new one
follows each page of the log that settled or voided a deal, at most one a second, and one
seals whatever else was recorded (buy-ins, cash-outs) once the log has been quiet for a
minute, or at once when the process is elected (docs/decisions.md 129). Each is signed with
the key of projections/signing_key.py and kept in `checkpoints`; witnesses' cosignatures
are kept beside it and served with it. Neither table is rebuilt: a checkpoint stays as it
was published. Before signing, the tree is held to the last checkpoint: the service never
signs a tree that does not extend what it signed before (a log rewritten in the database
and its read models rebuilt), and says so in its log instead.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from config import Settings
from domain.errors import NotAllowed, NotFound
from projections import proofs
from projections.merkle import MerkleLog
from projections.notes import COSIGNATURE_V1 as COSIGNER
from projections.notes import Checkpoint, NoteError, Signature, Verifier, cosignature_time, sign
from projections.signing_key import KeyFileError, load_key, log_origin
from projections.store import ReadStore

log = logging.getLogger("pontoon.checkpoints")
SPACING = 1.0  # seconds: at most one checkpoint a second
QUIET = 60.0  # seconds: events recorded since the last checkpoint are sealed after this
FUTURE = 600  # seconds a cosignature's time may run ahead of the service's clock
COLUMNS = "size, position, root, origin, note, made_at"


class Checkpointer:
    def __init__(self, store: ReadStore, settings: Settings, merkle: MerkleLog, *,
                 spacing: float = SPACING, quiet: float = QUIET,
                 clock: Callable[[], float] = time.monotonic,
                 club_name: Callable[[], str | None] = lambda: None) -> None:
        self.store, self.settings, self.merkle = store, settings, merkle
        self.club_name = club_name  # the origin of the log's first checkpoint
        self.spacing, self.quiet, self.clock = spacing, quiet, clock
        self.refused: str | None = None  # why the tree was not signed, if it was not

    def run(self, stop: threading.Event) -> None:
        """Until `stop`: wait for a settled deal (or the quiet period), then sign."""
        try:
            signer = load_key(self.settings)
        except KeyFileError as error:
            log.error("no checkpoints will be signed: %s", error)
            return
        if signer is None:
            log.warning("no checkpoints will be signed: there is no signing key at %s "
                        "(`pontoon migrate` makes it)", self.settings.signing_key_file)
            return
        made = -float("inf")  # the first pass seals what the last leader left unsealed
        while not stop.is_set():
            self.merkle.settled.wait(min(self.spacing, 0.5))
            wait = made + self.spacing - self.clock()
            if wait > 0:
                stop.wait(wait)
                continue
            settled = self.merkle.settled.is_set()
            self.merkle.settled.clear()  # before the tree is read: a later deal sets it again
            if not settled and self.clock() - made < self.quiet:
                continue
            try:
                if self.make(signer) is not None or not settled:
                    made = self.clock()
            except Exception as error:  # noqa: BLE001 (the store is busy or gone: next time)
                log.warning("a checkpoint could not be made (%s); trying again", error)
                self.merkle.settled.set()
                stop.wait(1.0)

    def make(self, signer: Any) -> dict[str, Any] | None:
        """Sign the tree as the Merkle log holds it now, if it grew since the last
        checkpoint and extends it; returns the new checkpoint's row."""
        now = proofs.head(self.store)
        last = latest_row(self.store)
        if now.size == 0 or (last is not None and now.size <= last["size"]):
            return None
        root = proofs.root(self.store, now.size)
        if last is not None and proofs.root(self.store, last["size"]) != bytes(last["root"]):
            self.refused = (f"the Merkle log's first {last['size']} leaves no longer hash to "
                            f"the root of checkpoint {last['size']}: the log was rewritten; "
                            "no checkpoint is signed")
            log.error(self.refused)
            return None
        origin = log_origin(self.settings, signer, None if last is None else last["origin"],
                            self.club_name())
        checkpoint = Checkpoint(origin, now.size, root)
        row = {"size": now.size, "position": now.position, "root": root,
               "origin": checkpoint.origin, "note": str(sign(checkpoint.text, signer)),
               "made_at": datetime.now(UTC).isoformat(timespec="microseconds")}
        self.store.run([(f"INSERT INTO checkpoints ({COLUMNS}) VALUES "  # noqa: S608
                         "(%s, %s, %s, %s, %s, %s) ON CONFLICT (size) DO NOTHING",
                         tuple(row.values()))])
        return row


def latest_row(store: ReadStore) -> dict[str, Any] | None:
    rows = store.rows(f"SELECT {COLUMNS} FROM checkpoints "  # noqa: S608
                      "ORDER BY size DESC LIMIT 1")
    return rows[0] if rows else None


def shown(store: ReadStore, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Checkpoints as served: the note with its witnesses' cosignatures, the root in base64."""
    lines: dict[int, list[str]] = {}
    if rows:
        marks = ", ".join(["%s"] * len(rows))
        for found in store.rows(f"SELECT size, line FROM checkpoint_cosignatures WHERE "  # noqa: S608
                                f"size IN ({marks}) ORDER BY size, name, key_id",
                                [row["size"] for row in rows]):
            lines.setdefault(found["size"], []).append(found["line"])
    return [{"origin": row["origin"], "size": row["size"], "position": row["position"],
             "root": base64.b64encode(bytes(row["root"])).decode(),
             "note": row["note"] + "".join(lines.get(row["size"], [])),
             "at": row["made_at"]} for row in rows]


def latest(store: ReadStore) -> dict[str, Any] | None:
    row = latest_row(store)
    return shown(store, [row])[0] if row is not None else None


def checkpoints(store: ReadStore, *, after: int = 0, limit: int = 50) -> list[dict[str, Any]]:
    """Checkpoints in the order made (cursor: the size of the last one seen)."""
    return shown(store, store.rows(f"SELECT {COLUMNS} FROM checkpoints "  # noqa: S608
                                   "WHERE size > %s ORDER BY size LIMIT %s", (after, limit)))


def add_cosignature(store: ReadStore, size: int, line: str, vkey: str, *,
                    key: str | None = None) -> dict[str, Any]:
    """Keep a witness's cosignature of the checkpoint of `size` (the newest it made of that
    checkpoint), once it verifies against the witness's key; the served note carries it.
    `key`: the request's Idempotency-Key, scoped to its sender: a repeat changes nothing;
    the key sent with another request is refused."""
    rows = store.rows(f"SELECT {COLUMNS} FROM checkpoints WHERE size = %s",  # noqa: S608
                      (size,))
    if not rows:
        raise NotFound(f"there is no checkpoint of size {size}")
    asked = hashlib.sha256(f"{size}\n{line}\n{vkey}".encode()).hexdigest()
    if key is not None and _repeated(store, key, asked):
        return shown(store, rows)[0]
    try:
        witness = Verifier.parse(vkey, kind=COSIGNER)
        signature = Signature.parse(line)
        signed_at = cosignature_time(Checkpoint(rows[0]["origin"], size,
                                                bytes(rows[0]["root"])).text,
                                     signature, witness)
    except NoteError as error:
        raise NotAllowed(f"the cosignature is refused: {error}") from None
    now = datetime.now(UTC)
    if signed_at > now.timestamp() + FUTURE:
        raise NotAllowed(f"the cosignature is refused: it is dated {signed_at}, in the future "
                         "(check the witness's clock)")
    received = now.isoformat(timespec="microseconds")
    receipt = [] if key is None else [
        ("INSERT INTO cosignature_receipts (idempotency_key, request_hash, size) VALUES "
         "(%s, %s, %s) ON CONFLICT DO NOTHING", (key, asked, size))]
    store.run([
        ("DELETE FROM checkpoint_cosignatures WHERE size = %s AND name = %s AND key_id = %s "
         "AND signed_at <= %s", (size, witness.name, witness.key_id.hex(), signed_at)),
        ("INSERT INTO checkpoint_cosignatures (size, name, key_id, line, signed_at, "
         "received_at) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
         (size, witness.name, witness.key_id.hex(), signature.line, signed_at, received)),
        *receipt])
    return shown(store, rows)[0]


def _repeated(store: ReadStore, key: str, asked: str) -> bool:
    """Whether `key` was sent before with this very request (422 if with another)."""
    found = store.rows("SELECT request_hash FROM cosignature_receipts WHERE "
                       "idempotency_key = %s", (key,))
    if found and found[0]["request_hash"] != asked:
        raise NotAllowed("this Idempotency-Key was sent with another request")
    return bool(found)
