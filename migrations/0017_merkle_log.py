"""The Merkle log and its signed checkpoints (API.md, "Proofs anyone can check").

- `merkle_leaves`: a read model (projections/merkle.py), rebuilt from the log: a row per
  leaf with the event's position and the hashes of the subtrees that leaf completes
  (projections/proofs.py says how a node is found);
- `checkpoints`: the signed notes the elected runner made (projections/checkpoints.py), and
  `checkpoint_cosignatures` the witnesses' cosignatures of them. Neither is derived from
  the log, so neither is rebuilt: a checkpoint once published stays as it was signed;
  `cosignature_receipts` keeps each Idempotency-Key a witness sent with the request's hash.

Binary columns are BLOB on SQLite and BYTEA on PostgreSQL, as `event_hashes` (0003).
"""

from __future__ import annotations

from typing import Any

from yoyo import step

__depends__ = {"0011_insert_lock"}

TABLES = """
CREATE TABLE merkle_leaves (
    idx {leaf_key},
    position BIGINT NOT NULL,
    hashes {binary} NOT NULL
);
CREATE UNIQUE INDEX merkle_leaves_by_position ON merkle_leaves (position);
CREATE TABLE checkpoints (
    size BIGINT NOT NULL PRIMARY KEY,
    position BIGINT NOT NULL,
    root {binary} NOT NULL,
    origin TEXT NOT NULL,
    note TEXT NOT NULL,
    made_at TEXT NOT NULL
);
CREATE TABLE checkpoint_cosignatures (
    size BIGINT NOT NULL REFERENCES checkpoints (size),
    name TEXT NOT NULL,
    key_id TEXT NOT NULL,
    line TEXT NOT NULL,
    signed_at BIGINT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (size, name, key_id)
);
CREATE TABLE cosignature_receipts (
    idempotency_key TEXT NOT NULL PRIMARY KEY,
    request_hash TEXT NOT NULL,
    size BIGINT NOT NULL
)
"""


def _binary(conn: Any) -> str:
    return "BYTEA" if type(conn).__module__.split(".")[0] == "psycopg" else "BLOB"


def apply(conn: Any) -> None:
    cursor = conn.cursor()
    binary = _binary(conn)
    # On SQLite the leaf's index is the rowid itself: a proof's reads are one B-tree
    # lookup a row, not an index's and then the table's.
    leaf_key = "BIGINT NOT NULL PRIMARY KEY" if binary == "BYTEA" else "INTEGER PRIMARY KEY"
    for statement in TABLES.format(binary=binary, leaf_key=leaf_key).split(";"):
        cursor.execute(statement)


def rollback(conn: Any) -> None:
    cursor = conn.cursor()
    for table in ("cosignature_receipts", "checkpoint_cosignatures", "checkpoints",
                  "merkle_leaves"):
        cursor.execute(f"DROP TABLE {table}")


steps = [step(apply, rollback)]
