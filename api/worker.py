"""A gunicorn worker whose requests are read by waitress's event loop (api/front.py).

gunicorn's arbiter still forks, replaces and stops the workers: one that dies is replaced,
one whose loop stops beating for `timeout` seconds (a frozen process, SIGSTOP) is killed and
replaced, SIGTERM stops each gracefully, and a worker whose arbiter is gone stops on its
own. Inside, the main thread runs waitress's loop over the worker's listening sockets,
and `threads` threads run the app for requests it has read whole.
"""

from __future__ import annotations

import os
import resource
import time
from typing import Any

from gunicorn.workers.base import Worker
from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.task import ThreadedTaskDispatcher

from api.edge import BODY_MAX
from api.front import HEADER_TIMEOUT, FrontServer

BEAT_EVERY = 1.0  # seconds between heartbeats (gunicorn's `timeout` is far longer)
STOP_LINGER = 2.0  # seconds a stopping worker keeps idle connections, for a request under way
CONNECTIONS_MOST = 2000  # a worker's open connections; past it, new ones wait in the backlog
ANSWER_STALL = 3 * HEADER_TIMEOUT  # an answer the client reads nothing of for this long


class BufferingWorker(Worker):  # type: ignore[misc]
    servers: list[FrontServer]

    def init_process(self) -> None:
        self.servers, self.map, self._beat_at = [], {}, 0.0
        self.connection_limit = _open_files_allowed() // 2
        super().init_process()

    @property
    def nr_conns(self) -> int:
        """The connections this worker holds (api/spread.py evens them out)."""
        return sum(len(server.active_channels) for server in self.servers)

    def handle_exit(self, sig: int, frame: Any) -> None:
        """SIGTERM: stop gracefully; wake the loop at once."""
        self.alive = False
        for server in self.servers:
            server.pull_trigger()

    def run(self) -> None:
        adjustments = Adjustments(
            threads=self.cfg.threads, backlog=self.cfg.backlog,
            connection_limit=min(CONNECTIONS_MOST, self.connection_limit),
            cleanup_interval=1, channel_timeout=ANSWER_STALL, asyncore_use_poll=True,
            log_socket_errors=False, clear_untrusted_proxy_headers=False, ident="",
            max_request_body_size=BODY_MAX + 1, url_scheme="http")
        tasks = ThreadedTaskDispatcher()
        tasks.set_thread_count(self.cfg.threads)
        for listener in self.sockets:
            sock = listener.sock
            self.servers.append(FrontServer(
                self.wsgi, self.map, _sock=sock, dispatcher=tasks, adj=adjustments,
                bind_socket=False, crowded=self._crowded,
                sockinfo=(sock.family, sock.type, sock.proto, sock.getsockname())))
        while self.alive and self._parent_alive():
            self._beat()
            wasyncore.loop(timeout=1.0, map=self.map, use_poll=True, count=1)
        self._stop(tasks)

    def _crowded(self, request: Any) -> bool:
        """In a worker thread: whether this worker holds more than its share of the
        connections, so this one closes after its answer (api/spread.py)."""
        self.cfg.pre_request(self, request)
        return bool(request.must_close)

    def _stop(self, tasks: ThreadedTaskDispatcher) -> None:
        """Answer what has been accepted, within the graceful timeout; keep idle connections
        briefly for a request already on its way (answered with `Connection: close`)."""
        for server in self.servers:
            server.stopping = True
            server.stop_listening()
        began = time.monotonic()
        deadline = began + self.cfg.graceful_timeout
        checked = 0.0
        while (now := time.monotonic()) < deadline:
            self._beat()
            channels = [c for s in self.servers for c in s.active_channels.values()]
            if now - began >= STOP_LINGER:
                for channel in channels:
                    channel.will_close = channel.will_close or not channel.busy()
            if not channels:
                break
            if now - checked >= 1.0:
                checked = now
                for server in self.servers:  # deadlines still hold
                    server.maintenance(time.time())
            wasyncore.loop(timeout=0.2, map=self.map, use_poll=True, count=1)
        tasks.shutdown(cancel_pending=True, timeout=5)
        wasyncore.close_all(self.map)

    def _beat(self) -> None:
        now = time.monotonic()
        if now - self._beat_at >= BEAT_EVERY:
            self._beat_at = now
            self.notify()

    def _parent_alive(self) -> bool:
        if self.ppid != os.getppid():
            self.log.info("Parent changed, shutting down: %s", self)
            return False
        return True


def _open_files_allowed() -> int:
    """Raise this process's limit of open files to the most it may have: every connection
    is a file, and a worker holds many idle ones. Returns the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 2 * CONNECTIONS_MOST
