"""PostgreSQL: the insert function serialises writers with an advisory lock, not a table lock.

`ledger_insert_events` (0009) took `LOCK TABLE ledger_events IN EXCLUSIVE MODE`, as the
library's insert does, so that positions commit in order. That mode conflicts with the
SHARE UPDATE EXCLUSIVE lock that VACUUM, ANALYZE, autovacuum and CREATE INDEX CONCURRENTLY
hold on the table, so while one of them ran every command waited: autovacuum is cancelled
after `deadlock_timeout` (a second's stall of every writer each time it starts, and the
table never vacuumed), a manual VACUUM or an anti-wraparound autovacuum is not (commands
failed on their lock timeout for as long as it ran). One transaction-level advisory lock
per store, taken by every insert (they all come through this function) before its
positions are drawn and held until its commit is visible, serialises writers just as the
table lock did and conflicts with nothing else (docs/decisions.md 93). A writer still on
the table lock (code from before, during an upgrade) stays serialised with these: its
EXCLUSIVE lock conflicts with their INSERT's ROW EXCLUSIVE one.
"""

from __future__ import annotations

from typing import Any

from yoyo import step

from config import INSERT_LOCK, advisory_key

__depends__ = {"0010_packs_by_table"}

FUNCTION = """
CREATE OR REPLACE FUNCTION {schema}.ledger_insert_events(ids uuid[], versions bigint[],
                                                         topics text[], states bytea[],
                                                         lock_timeout text)
RETURNS SETOF bigint LANGUAGE plpgsql AS $body$
BEGIN
    PERFORM set_config('lock_timeout', lock_timeout, true);
    {lock};
    RETURN QUERY
        INSERT INTO {schema}.ledger_events AS t (originator_id, originator_version, topic,
                                                 state)
        SELECT * FROM unnest(ids, versions, topics, states)
        RETURNING t.notification_id;
END
$body$;
"""


def _replace(conn: Any, lock: str) -> None:
    if type(conn).__module__.split(".")[0] != "psycopg":
        return  # SQLite serialises its writers itself
    from psycopg.sql import Identifier

    cursor = conn.cursor()
    cursor.execute("SELECT current_schema()")
    name = cursor.fetchone()[0]
    schema = Identifier(name).as_string(conn)
    cursor.execute(FUNCTION.format(schema=schema, lock=lock.format(
        schema=schema, key=advisory_key(INSERT_LOCK, name))))


def apply(conn: Any) -> None:
    _replace(conn, "PERFORM pg_advisory_xact_lock({key})")


def rollback(conn: Any) -> None:
    _replace(conn, "LOCK TABLE {schema}.ledger_events IN EXCLUSIVE MODE")


steps = [step(apply, rollback)]
