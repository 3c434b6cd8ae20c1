"""The hash chains of the event log (domain/integrity.py, docs/architecture.md).

`event_hashes` holds one row per recorded event: its position, aggregate and version, its
event hash (chained per aggregate) and its log hash (chained over the whole log). On
PostgreSQL a trigger fills it in the inserting transaction; on SQLite the ledger's recorder
does (application/chain.py). Events recorded before this migration are hashed here, once,
in position order, while writers wait for the migration's lock.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from yoyo import step

from domain.integrity import GENESIS, event_hash, log_hash

__depends__ = {"0002_tables"}

SQLITE_TABLE = """
CREATE TABLE event_hashes (
    notification_id INTEGER NOT NULL PRIMARY KEY,
    originator_id TEXT NOT NULL,
    originator_version INTEGER NOT NULL,
    event_hash BLOB NOT NULL,
    log_hash BLOB NOT NULL
)"""

POSTGRES_TABLE = """
CREATE TABLE {schema}.event_hashes (
    notification_id BIGINT NOT NULL PRIMARY KEY,
    originator_id UUID NOT NULL,
    originator_version BIGINT NOT NULL,
    event_hash BYTEA NOT NULL,
    log_hash BYTEA NOT NULL
)"""

INDEX = ("CREATE UNIQUE INDEX event_hashes_by_version ON {schema}event_hashes "
         "(originator_id, originator_version)")

# Runs after each inserted row, in position order, inside the insert's transaction (which
# holds the store's insert lock, migrations/0011): the log's last hash is well defined.
POSTGRES_TRIGGER = """
CREATE FUNCTION {schema}.ledger_chain_event() RETURNS trigger LANGUAGE plpgsql AS $body$
DECLARE
    genesis CONSTANT bytea := decode(repeat('00', 32), 'hex');
    previous bytea;
    previous_log bytea;
    hashed bytea;
BEGIN
    IF NEW.originator_version > 1 THEN
        SELECT h.event_hash INTO previous FROM {schema}.event_hashes h
         WHERE h.originator_id = NEW.originator_id
           AND h.originator_version = NEW.originator_version - 1;
    END IF;
    SELECT h.log_hash INTO previous_log FROM {schema}.event_hashes h
     ORDER BY h.notification_id DESC LIMIT 1;
    hashed := sha256(coalesce(previous, genesis) || uuid_send(NEW.originator_id)
                     || int8send(NEW.originator_version) || convert_to(NEW.topic, 'UTF8')
                     || '\\x00'::bytea || NEW.state);
    INSERT INTO {schema}.event_hashes VALUES (
        NEW.notification_id, NEW.originator_id, NEW.originator_version, hashed,
        sha256(coalesce(previous_log, genesis) || int8send(NEW.notification_id) || hashed));
    RETURN NULL;
END
$body$;
CREATE TRIGGER ledger_chain_event AFTER INSERT ON {schema}.ledger_events
    FOR EACH ROW EXECUTE FUNCTION {schema}.ledger_chain_event();
"""


def _postgres(conn: Any) -> bool:
    return type(conn).__module__.split(".")[0] == "psycopg"


def apply(conn: Any) -> None:
    cursor = conn.cursor()
    if _postgres(conn):
        from psycopg.sql import Identifier

        cursor.execute("SELECT current_schema()")
        schema = Identifier(cursor.fetchone()[0]).as_string(conn)
        cursor.execute(f"LOCK TABLE {schema}.ledger_events IN EXCLUSIVE MODE")
        cursor.execute(POSTGRES_TABLE.format(schema=schema))
        cursor.execute(INDEX.format(schema=schema + "."))
        cursor.execute(POSTGRES_TRIGGER.format(schema=schema))
        _backfill(cursor, f"SELECT notification_id, originator_id, originator_version, "
                  f"topic, state FROM {schema}.ledger_events WHERE notification_id > %s "
                  "ORDER BY notification_id LIMIT 2000",
                  f"INSERT INTO {schema}.event_hashes VALUES (%s, %s, %s, %s, %s)",
                  lambda u: u)
    else:
        cursor.execute(SQLITE_TABLE)
        cursor.execute(INDEX.format(schema=""))
        _backfill(cursor, "SELECT rowid, originator_id, originator_version, topic, state "
                  "FROM stored_events WHERE rowid > ? ORDER BY rowid LIMIT 2000",
                  "INSERT INTO event_hashes VALUES (?, ?, ?, ?, ?)", lambda u: u.hex)


def _backfill(cursor: Any, select: str, insert: str, stored_id: Any) -> None:
    """Hash the events recorded before the chain existed, in position order."""
    previous: dict[UUID, bytes] = {}
    last_log, after = GENESIS, 0
    while True:
        cursor.execute(select, (after,))
        rows = cursor.fetchall()
        if not rows:
            return
        out = []
        for position, originator_id, version, topic, state in rows:
            key = originator_id if isinstance(originator_id, UUID) else UUID(originator_id)
            hashed = event_hash(previous.get(key, GENESIS), key, version, topic, bytes(state))
            previous[key] = hashed
            last_log = log_hash(last_log, position, hashed)
            out.append((position, stored_id(key), version, hashed, last_log))
        cursor.executemany(insert, out)
        after = rows[-1][0]


def rollback(conn: Any) -> None:
    cursor = conn.cursor()
    if _postgres(conn):
        cursor.execute("DROP TRIGGER ledger_chain_event ON ledger_events")
        cursor.execute("DROP FUNCTION ledger_chain_event()")
    cursor.execute("DROP TABLE event_hashes")


steps = [step(apply, rollback)]
