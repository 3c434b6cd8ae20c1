"""`pontoon serve`: the API under granian, one Ledger built in each worker process.

granian parses HTTP and keeps connections in compiled code (Rust) and calls the Flask app
from a few threads a worker; gunicorn's gthread worker did the same in Python, 0.15-0.3 ms
more CPU a request (docs/benchmarks.md, decision 90). Every worker stands in the
election for the read models (projections/election.py). On SIGTERM the server stops
accepting, each worker answers the requests it holds, then closes its services: the read
models finish the page under way and the lock is released, so another process takes over
at once. A worker whose server is gone (killed with SIGKILL) stops in the same way
(api/worker.py).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import socket
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from api.observability import server_logging
from api.worker import GRACEFUL_TIMEOUT, StopWatch, worker_app
from config import Settings

# The files prometheus-client's multiprocess mode writes: `<type>_<pid>.db`, a gauge's type
# carrying its mode (prometheus_client/values.py).
_METRICS_FILE = re.compile(r"(counter|histogram|summary|gauge_(live)?(all|min|max|sum|"
                           r"mostrecent))_\d+\.db")


def serve(settings: Settings, *, host: str | None, port: int | None, workers: int,
          threads: int) -> None:
    from granian.constants import HTTPModes, Interfaces
    from granian.server import Server

    settings = replace(settings, host=host or settings.host, port=port or settings.port)
    folder = metrics_folder(settings)
    server = Server(
        "api:create_app", address=settings.host, port=settings.port,
        interface=Interfaces.WSGI, workers=workers, blocking_threads=threads,
        http=HTTPModes.http1, websockets=False,
        log_level=settings.log_level.lower(), log_dictconfig=server_logging(settings.log_level),
        log_access=False,  # the app logs each request itself, with its request id
        respawn_failed_workers=True, workers_kill_timeout=GRACEFUL_TIMEOUT)
    try:
        # The loader runs in each worker: the workers are forked from this process, which
        # holds no store connection, and each builds its own (never share a pool across a
        # fork). A partial of the settings, not a closure, so a spawned worker gets them too.
        # Each worker takes SIGTERM itself from the moment it is forked (api/worker.py).
        os.register_at_fork(after_in_child=StopWatch.install)
        server.serve(target_loader=functools.partial(worker_app, settings), wrap_loader=False)
    finally:
        if settings.metrics_dir is None:
            shutil.rmtree(folder, ignore_errors=True)


def metrics_folder(settings: Settings) -> Path:
    """The folder for the workers' metrics files, cleared of an earlier run's, named in
    PROMETHEUS_MULTIPROC_DIR before prometheus_client is first imported (it chooses its
    mode then)."""
    folder = Path(settings.metrics_dir or tempfile.mkdtemp(prefix="pontoon-metrics-"))
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):  # an earlier run's counters must not add to these
        if _METRICS_FILE.fullmatch(stale.name):  # and nobody else's file goes with them
            stale.unlink()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    return folder


def refuse_taken_port(host: str, port: int, *, attempts: int = 5) -> None:
    """Refuse to start on a port something already listens on. granian's workers each bind
    with SO_REUSEPORT, which a second `pontoon serve` of the same user would share
    silently, taking part of the connections; a plain bind, as here, is refused by any
    listener. Tried for a few seconds: the workers of a service killed a moment ago hold
    the port until they notice and exit."""
    for attempt in range(attempts):
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is free
            try:
                probe.bind((host, port))
                return
            except OSError as error:
                reason = error.strerror
        if attempt < attempts - 1:
            time.sleep(1)
    raise PortTaken(f"{host}:{port} is taken ({reason}): is another service running "
                    f"there? Stop it or choose --port")


class PortTaken(Exception):
    """The address `pontoon serve` was told to listen on is in use."""
