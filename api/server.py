"""`pontoon serve`: the API under gunicorn's arbiter, one Ledger built in each worker after
fork; each worker reads requests whole in an event loop before its threads see them
(api/worker.py, api/front.py: decision 118).

Every worker stands in the election for the read models (projections/election.py). On
SIGTERM each worker stops accepting, finishes the requests it has, then closes its
services: the read models finish the page under way and the lock is released, so another
process takes over at once. A worker that dies, or stops beating for HEARTBEAT_TIMEOUT
seconds (a frozen process), is killed and replaced.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import socket
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from gunicorn.app.base import BaseApplication

from api.observability import gunicorn_logging
from api.spread import Spread
from config import Settings

GRACEFUL_TIMEOUT = 30  # seconds a worker has to finish its requests and its page
# Seconds a worker's event loop may go without a heartbeat before the arbiter kills it and
# starts another (it beats every second, whatever its threads are doing): a frozen worker
# holds the connections the kernel gave it for about this long (README).
HEARTBEAT_TIMEOUT = 10
# The files prometheus-client's multiprocess mode writes: `<type>_<pid>.db`, a gauge's type
# carrying its mode (prometheus_client/values.py).
_METRICS_FILE = re.compile(r"(counter|histogram|summary|gauge_(live)?(all|min|max|sum|"
                           r"mostrecent))_\d+\.db")


class Server(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, *, workers: int, threads: int) -> None:
        self.settings = settings
        self.app: Any = None
        self.spread = spread = Spread(workers)
        self.options = {"bind": f"{settings.host}:{settings.port}", "workers": workers,
                        "threads": threads, "worker_class": "api.worker.BufferingWorker",
                        "accesslog": None, "loglevel": settings.log_level.lower(),
                        "logconfig_dict": gunicorn_logging(settings.log_level),
                        "preload_app": False, "timeout": HEARTBEAT_TIMEOUT,
                        "graceful_timeout": GRACEFUL_TIMEOUT,
                        # One control socket per user and host: several services on one
                        # host (hosts in the tests, blue/green) would take it from each other.
                        "control_socket_disable": True,
                        # Each worker listens on a socket of its own (SO_REUSEPORT), so the
                        # kernel spreads new connections over the workers; on one shared
                        # socket the first worker awake took every keep-alive connection of a
                        # burst (8+0 seen at 8 clients), leaving the other core idle.
                        "reuse_port": True,
                        # ...and a worker holding more than its share of the keep-alive
                        # connections closes some, so that they land again (api/spread.py).
                        "pre_fork": spread.pre_fork, "post_fork": self._post_fork,
                        "pre_request": spread.pre_request,
                        "worker_exit": self._worker_exit, "child_exit": self._child_exit}
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        # Called in each worker after fork (preload_app is off): never share a store
        # connection pool across a fork.
        from api import create_app

        self.app = create_app(self.settings)
        # What exists now (modules, the app, its schemas: nine objects in ten) lives as long
        # as the worker: kept out of the collector's full passes, which otherwise stopped
        # every thread of a busy worker for 50-80 ms every thousand or so requests, the
        # slowest requests of all (docs/benchmarks.md).
        gc.freeze()
        return self.app

    def _post_fork(self, server: Any, worker: Any) -> None:
        self.spread.post_fork(server, worker)

    def _worker_exit(self, server: Any, worker: Any) -> None:
        """In the worker, once its requests are answered: stop the read models after the
        page under way, release the election's lock, close the store."""
        if self.app is not None:
            self.app.extensions["pontoon"].close()

    def _child_exit(self, server: Any, worker: Any) -> None:
        """In the master: a dead worker's gauges leave the metrics (multiprocess mode), and
        it holds no connections."""
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
        self.spread.child_exit(server, worker)


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


def serve(settings: Settings, *, host: str | None, port: int | None, workers: int,
          threads: int) -> None:
    settings = replace(settings, host=host or settings.host, port=port or settings.port)
    folder = metrics_folder(settings)
    try:
        Server(settings, workers=workers, threads=threads).run()
    finally:
        if settings.metrics_dir is None:
            shutil.rmtree(folder, ignore_errors=True)


def refuse_taken_port(host: str, port: int, *, attempts: int = 5) -> None:
    """Refuse to start on a port something already listens on. The workers bind with
    SO_REUSEPORT, which a second `pontoon serve` of the same user would share silently,
    taking half the connections; a plain bind, as here, is refused by any listener. Tried
    for a few seconds, as gunicorn retries its own bind: the workers of a service killed
    a moment ago hold the port until they notice and exit."""
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
