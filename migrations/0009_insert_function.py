"""PostgreSQL: the function that records a command's events in one statement.

`ledger_insert_events(ids, versions, topics, states, lock_timeout)` does what the library's
insert does in a pipelined transaction (SET LOCAL lock_timeout, LOCK TABLE ledger_events IN
EXCLUSIVE MODE, INSERT ... SELECT FROM unnest(...) RETURNING notification_id), inside the
database: called as one autocommitted statement, its transaction takes the lock, inserts (the
chain's trigger hashing each row, migrations/0003_event_chain.py) and commits without waiting
for the client, so the lock that serialises every writer is held for the insert alone.
Position order stays commit order. The events come as four plain arrays, which psycopg sends
in binary, not as an array of the library's composite type, which it formats as text in
Python. The library's NOTIFY is left out: nothing here listens (the read models poll the
log; docs/decisions.md 70). SQLite needs nothing: its recorder is in the process.
application/chain.py calls it.
"""

from __future__ import annotations

from typing import Any

from yoyo import step

__depends__ = {"0008_webhooks"}

FUNCTION = """
CREATE FUNCTION {schema}.ledger_insert_events(ids uuid[], versions bigint[], topics text[],
                                              states bytea[], lock_timeout text)
RETURNS SETOF bigint LANGUAGE plpgsql AS $body$
BEGIN
    PERFORM set_config('lock_timeout', lock_timeout, true);
    LOCK TABLE {schema}.ledger_events IN EXCLUSIVE MODE;
    RETURN QUERY
        INSERT INTO {schema}.ledger_events AS t (originator_id, originator_version, topic,
                                                 state)
        SELECT * FROM unnest(ids, versions, topics, states)
        RETURNING t.notification_id;
END
$body$;
"""


def _postgres(conn: Any) -> bool:
    return type(conn).__module__.split(".")[0] == "psycopg"


def _schema(cursor: Any, conn: Any) -> str:
    from psycopg.sql import Identifier

    cursor.execute("SELECT current_schema()")
    return str(Identifier(cursor.fetchone()[0]).as_string(conn))


def apply(conn: Any) -> None:
    if _postgres(conn):
        cursor = conn.cursor()
        cursor.execute(FUNCTION.format(schema=_schema(cursor, conn)))


def rollback(conn: Any) -> None:
    if _postgres(conn):
        cursor = conn.cursor()
        schema = _schema(cursor, conn)
        cursor.execute(f"DROP FUNCTION {schema}.ledger_insert_events("
                       "uuid[], bigint[], text[], bytea[], text)")


steps = [step(apply, rollback)]
