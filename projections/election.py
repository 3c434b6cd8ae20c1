"""Which one process runs the read models and the webhook deliveries: an election by lock.

SQLite is served from one host, so its processes race for a file lock. With PostgreSQL
every process on every host races for a session-level advisory lock, held on a connection
of its own (never a pooled one, which could be handed to other work). The lock lives
exactly as long as that session: a holder that dies closes its socket and releases it; one
that goes silent is cut off by keepalives or `idle_session_timeout` (it checks its session
every two seconds, so only a frozen or unreachable holder is ever idle that long). The
others try again every second and one takes over. Two holders at once can only happen for
a moment (a frozen holder that thaws): the tracking check then refuses its page.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from config import Settings, advisory_key
from projections.failures import describe

log = logging.getLogger("pontoon.projections")
Duty = Callable[[threading.Event], None]  # runs until the event is set
RETRY = 1.0  # seconds between two tries of a process standing by
HEARTBEAT = 2.0  # seconds between two checks that the lock is still held
SILENCE_MAX = "15s"  # a holder's session quiet this long is ended by the server


class Election(Protocol):
    description: str

    def acquire(self) -> bool: ...

    def alive(self) -> bool: ...

    def release(self) -> None: ...


class FileElection:
    """One host: the processes serving one SQLite file race for a file lock beside it."""

    def __init__(self, path: Path) -> None:
        self.path, self.description = path, f"file lock {path}"
        self._handle: IO[str] | None = None

    def acquire(self) -> bool:
        import fcntl

        if self._handle is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "w")  # noqa: SIM115 (held open while elected)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._handle = handle
        return True

    def alive(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the file releases the lock
            self._handle = None


class AdvisoryElection:
    """Every host: a PostgreSQL advisory lock keyed by the store's schema."""

    def __init__(self, connect: Callable[[], Any], key: int, description: str) -> None:
        self._connect, self.key, self.description = connect, key, description
        self._connection: Any = None
        self._unreachable = False  # said once per outage, not every second

    def acquire(self) -> bool:
        try:
            if self._connection is None or self._connection.closed:
                self._connection = self._connect()
            row = self._connection.execute("SELECT pg_try_advisory_lock(%s)",
                                           (self.key,)).fetchone()
        except Exception as error:  # the store is unreachable: stand by, try again
            if not self._unreachable:
                log.warning("cannot stand in the election (%s); trying every second",
                            describe(error))
            self._unreachable = True
            self.release()
            return False
        self._unreachable = False
        return bool(row and row[0])

    def alive(self) -> bool:
        try:
            self._connection.execute("SELECT 1").fetchone()
            return True
        except Exception:
            self.release()
            return False

    def release(self) -> None:
        """Unlock at once (a closed session's locks go a moment later, when the server has
        noticed), then close the session, whatever state the connection is in."""
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.execute("SELECT pg_advisory_unlock_all()")
            with contextlib.suppress(Exception):
                self._connection.close()
            self._connection = None


def lock_key(schema: str) -> int:
    """One lock per store: the schema names it within its database (a signed 64-bit key)."""
    return advisory_key("projections", schema)


def election_for(settings: Settings) -> Election:
    if settings.store != "postgres":
        return FileElection(settings.lock_path)
    env = settings.ledger_env()
    whoami = f"pontoon-projections {socket.gethostname()} pid {os.getpid()}"

    def connect() -> Any:
        import psycopg

        connection = psycopg.connect(
            host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
            dbname=env["POSTGRES_DBNAME"], user=env["POSTGRES_USER"],
            password=env["POSTGRES_PASSWORD"] or None, autocommit=True, connect_timeout=5,
            application_name=whoami[:63], keepalives=1, keepalives_idle=5,
            keepalives_interval=2, keepalives_count=3,
            options="-c statement_timeout=5000 -c tcp_keepalives_idle=5 "
                    "-c tcp_keepalives_interval=2 -c tcp_keepalives_count=3")
        with contextlib.suppress(psycopg.Error):  # PostgreSQL 14 and later
            connection.execute(f"SET idle_session_timeout = '{SILENCE_MAX}'")
        return connection

    schema = settings.postgres_schema
    return AdvisoryElection(connect, lock_key(schema),
                            f"advisory lock {lock_key(schema)} of schema {schema}")


def lead(election: Election, duties: Sequence[tuple[str, Duty]], stop: threading.Event, *,
         standing_by: Callable[[], None] | None = None) -> None:
    """Stand in the election until `stop`; while elected, run every duty in a thread of its
    own until `stop` is set or the lock is lost, then let each finish what it is doing."""
    told = False
    try:
        while not stop.is_set():
            if not election.acquire():
                if not told:
                    log.info("another process runs the read models (%s); standing by",
                             election.description)
                    if standing_by is not None:
                        standing_by()
                    told = True
                stop.wait(RETRY)
                continue
            told = False
            log.info("elected to run the read models and webhook deliveries (%s)",
                     election.description)
            try:
                _serve_term(election, duties, stop)
            finally:
                election.release()
    finally:
        election.release()  # a process standing by holds a session too


def _serve_term(election: Election, duties: Sequence[tuple[str, Duty]],
                stop: threading.Event) -> None:
    resign = threading.Event()
    threads = [threading.Thread(target=duty, args=(resign,), name=name, daemon=True)
               for name, duty in duties]
    for thread in threads:
        thread.start()
    while not stop.wait(HEARTBEAT):
        if not election.alive():
            log.warning("the lock was lost (%s); stopping the read models",
                        election.description)
            break
    resign.set()
    for thread in threads:
        thread.join(timeout=30)


def start(election: Election, duties: Sequence[tuple[str, Duty]], stop: threading.Event
          ) -> threading.Thread:
    """`lead` in a daemon thread of this process (the service's workers)."""
    thread = threading.Thread(target=lead, args=(election, duties, stop),
                              name="projections-election", daemon=True)
    thread.start()
    return thread
