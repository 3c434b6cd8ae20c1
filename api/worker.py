"""What runs in each of `pontoon serve`'s worker processes, forked by granian's server.

A worker builds its own app and Ledger (never a pool shared across a fork), closes its
services as its process ends, and stops as SIGTERM stops it in the cases granian leaves to
chance (`StopWatch`).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing.util
import os
import signal
import sys
import threading
import time
from typing import Any, ClassVar

from config import Settings

GRACEFUL_TIMEOUT = 30  # seconds a worker has to finish its requests and its page
WATCH_PERIOD = 0.5  # seconds between a worker's looks at its server and its stop
log = logging.getLogger("pontoon.serve")


def worker_app(settings: Settings) -> Any:
    """In a worker, before it serves: the app, its services closed when the worker exits,
    and a watch on its stop. A worker that cannot build its app says why in a log line and
    exits 1 (the server replaces it, and stops if it fails again at once)."""
    from api import create_app

    watch = StopWatch.current or StopWatch()
    try:
        app = create_app(settings)
    except Exception:
        log.exception("this worker could not start")
        sys.exit(1)
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


class StopWatch:
    """A worker stops as SIGTERM stops it, answering what it holds, in the cases granian
    leaves to chance:
    - SIGTERM came before granian's own handler was set, while the app was being built
      (the worker had inherited its server's handler, and would have served on until
      killed): installed the moment the worker is forked (`install`), this takes it;
    - its server died without stopping it (SIGKILL): it would go on answering on its
      socket, holding the read models' lock. With no server left to kill it after the
      graceful timeout, it bounds its own stop (a client that never finishes its body
      would hold it for ever)."""

    current: ClassVar[StopWatch | None] = None  # this worker's, made as it was forked

    @classmethod
    def install(cls) -> None:
        """`os.register_at_fork(after_in_child=...)`: in the new worker, first of all."""
        cls.current = cls()

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
            orphaned = os.getppid() != self.server
            self.asked = self.asked or orphaned
            if self.asked and signal.getsignal(signal.SIGTERM) != self._ask:
                os.kill(os.getpid(), signal.SIGTERM)  # to granian's handler, now it is set
                if orphaned:
                    time.sleep(GRACEFUL_TIMEOUT)
                    log.warning("the server is gone and requests are still held after "
                                f"{GRACEFUL_TIMEOUT} s: this worker stops without them")
                    os._exit(1)
                return
