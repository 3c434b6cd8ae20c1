"""The command path's two statements, run through libpq's prepared-statement calls directly.

Every command reads the events its aggregates gained and inserts its own (application/
chain.py): two statements, each with two to five short arrays already in PostgreSQL's
binary form (application/arrays.py). psycopg's cursor wraps each run in generic Python
(query conversion, its prepared-statement bookkeeping, a dumper lookup per parameter,
row makers): about 120 µs of CPU against 70 µs for the same statement sent and read here,
measured alternately on one connection. libpq releases the GIL while it waits, as psycopg's
own wait does.

A statement is prepared on each connection the first time it runs there (a pool's
connections come and go, and a new one has nothing prepared), and again if it was taken
away since; a failure is raised as the psycopg error of its SQLSTATE, so callers see what
psycopg would have raised (a unique violation is still an IntegrityError, a lock timeout an
OperationalError).
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import errors, pq

BINARY = 1
GONE = b"26000"  # invalid_sql_statement_name: not prepared on this connection (any more)
TAKEN = b"42P05"  # duplicate_prepared_statement: this name, so this text, is prepared


class Statement:
    """One SQL statement with `$n` parameters of these types (oids), prepared where it runs
    under a name its text gives (no two texts share one on a connection)."""

    def __init__(self, sql: str, types: Sequence[int]) -> None:
        self.sql, self.types = sql.encode(), list(types)
        self.name = b"pontoon_" + hashlib.sha256(self.sql).hexdigest()[:16].encode()
        self._on: weakref.WeakKeyDictionary[psycopg.Connection[Any], bool] = \
            weakref.WeakKeyDictionary()
        self._lock = threading.Lock()  # connections are used by many threads, one at a time

    def run(self, conn: psycopg.Connection[Any], params: Sequence[bytes]) -> pq.abc.PGresult:
        """The statement's rows, every parameter and column in binary form, on a connection
        outside any transaction (the store's are autocommit): a statement prepared again
        after it was taken away could not be inside a failed one."""
        with self._lock:
            prepared = conn in self._on
        with conn.lock:  # what psycopg's own calls hold: one thread at a time on it
            if not prepared:
                self._prepare(conn)
            result = self._execute(conn, params)
            if _state(result) == GONE:
                # psycopg sends DEALLOCATE ALL after a ROLLBACK, DROP or ALTER it ran on
                # this connection, which takes this statement away too: prepare it again.
                self._prepare(conn)
                result = self._execute(conn, params)
        return _checked(conn, result, pq.ExecStatus.TUPLES_OK)

    def _prepare(self, conn: psycopg.Connection[Any]) -> None:
        result = conn.pgconn.prepare(self.name, self.sql, self.types)
        if _state(result) != TAKEN:  # else prepared already, by a Statement of the same text
            _checked(conn, result, pq.ExecStatus.COMMAND_OK)
        with self._lock:
            self._on[conn] = True

    def _execute(self, conn: psycopg.Connection[Any], params: Sequence[bytes]
                 ) -> pq.abc.PGresult:
        return conn.pgconn.exec_prepared(self.name, list(params), [BINARY] * len(params),
                                         BINARY)


def _state(result: pq.abc.PGresult) -> bytes | None:
    """The SQLSTATE of a failed result, None for a good one."""
    if result.status != pq.ExecStatus.FATAL_ERROR:
        return None
    return result.error_field(pq.DiagnosticField.SQLSTATE)


def _checked(conn: psycopg.Connection[Any], result: pq.abc.PGresult,
             expected: pq.ExecStatus) -> pq.abc.PGresult:
    if result.status != expected:
        message = result.get_error_message(conn.info.encoding)
        if conn.pgconn.status == pq.ConnStatus.BAD:
            # The connection is lost (a server restart, a killed backend): no SQLSTATE to
            # go by, but what psycopg raises then, so the store's retries try again.
            raise psycopg.OperationalError(message)
        raise errors.error_from_result(result, encoding=conn.info.encoding)
    return result
