"""`pontoon serve`: the API under granian, one Ledger built in each worker process.

granian parses HTTP and keeps connections in compiled code (Rust) and calls the Flask app
from a few threads a worker; gunicorn's gthread worker did the same in Python, about a
fifth of a command's CPU (docs/benchmarks.md, decision 90). Every worker stands in the
election for the read models (projections/election.py). On SIGTERM the server stops
accepting, each worker answers the requests it holds, then closes its services: the read
models finish the page under way and the lock is released, so another process takes over
at once. A worker whose server is gone (killed with SIGKILL) stops in the same way.
"""

from __future__ import annotations

import functools
import gc
import multiprocessing.util
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from api.observability import server_logging
from config import Settings

GRACEFUL_TIMEOUT = 30  # seconds a worker has to finish its requests and its page
WATCH_PERIOD = 0.5  # seconds between a worker's looks at its server and its stop
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
        server.serve(target_loader=functools.partial(worker_app, settings), wrap_loader=False)
    finally:
        if settings.metrics_dir is None:
            shutil.rmtree(folder, ignore_errors=True)


def worker_app(settings: Settings) -> Any:
    """In a worker, before it serves: the app, its services closed when the worker exits,
    and a watch on its stop."""
    from api import create_app

    watch = _StopWatch()
    app = create_app(settings)
    # Run by multiprocessing as the worker process ends, after granian has answered the
    # requests it held: atexit handlers are not, a forked child ending in os._exit.
    multiprocessing.util.Finalize(app, app.extensions["pontoon"].close, exitpriority=10)
    watch.start()
    forget_settings_in_environment()
    # What exists now (modules, the app, its schemas: nine objects in ten) lives as long as
    # the worker: kept out of the collector's full passes, which otherwise stopped every
    # thread of a busy worker for 50-80 ms every thousand or so requests, the slowest
    # requests of all (docs/benchmarks.md).
    gc.freeze()
    return app


def forget_settings_in_environment() -> None:
    """granian copies the process's environment into every request's WSGI environ. The
    worker has read its settings, so they leave it: the treasurer token and the store's
    URL (with its password) are then in no request's environ, whatever reads one."""
    for name in [name for name in os.environ if name.startswith("PONTOON_")]:
        del os.environ[name]


class _StopWatch:
    """A worker stops as SIGTERM stops it, answering what it holds, in two cases granian
    leaves to chance:
    - SIGTERM came while the app was being built, before granian's own handler was set
      (the worker had inherited its server's, and would have served on until killed);
    - its server died without stopping it (SIGKILL): it would go on answering on the
      shared socket, holding the port and the read models' lock."""

    def __init__(self) -> None:  # in the worker's main thread, the only one that may
        self.server = os.getppid()
        self.asked = False
        for stop in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop, self._ask)

    def _ask(self, signum: int, frame: object) -> None:
        self.asked = True

    def start(self) -> None:
        threading.Thread(target=self._watch, name="pontoon-stop-watch", daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(WATCH_PERIOD)
            self.asked = self.asked or os.getppid() != self.server
            if self.asked and signal.getsignal(signal.SIGTERM) != self._ask:
                os.kill(os.getpid(), signal.SIGTERM)  # to granian's handler, now it is set
                return


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
    """Refuse to start on a port something already listens on, with a message that says
    so. Tried for a few seconds: the workers of a service killed a moment ago hold the
    port until they notice and exit."""
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
