"""The front of `pontoon serve` (decision 118): waitress's event loop reads each request
whole, headers and body, before one of the worker's threads sees it, so a slow client holds
a little memory in the loop, never a thread that serves others.

What this adds to waitress:
- Deadlines. A connection gets HEADER_TIMEOUT seconds to complete a request's headers from
  the moment it began waiting for them (it opened, or its previous answer was sent), and a
  body BODY_GRACE seconds plus one second for every BODY_RATE bytes received (a minimum
  rate once under way). A connection past either is answered 408, if it sent anything, and
  closed. Idle keep-alive connections close at the same deadline.
- A body over the API's limit (api/edge.py) is not read: the request goes to the app at
  once, with its length and without its body, so the app answers 401 or 413 before any of
  it is read; the connection is then half-closed and drained for LINGER seconds (a
  lingering close), so the client reads the answer instead of a reset.
- The even spread of keep-alive connections over the workers (api/spread.py).
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections import Counter
from typing import Any

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import WSGITask
from waitress.utilities import RequestEntityTooLarge

from api.edge import BODY_MAX

HEADER_TIMEOUT = 10.0  # seconds to complete a request's headers (API.md: 10 s)
BODY_GRACE = 10.0  # seconds a body has before it must keep to BODY_RATE
BODY_RATE = 1024  # bytes a second, the slowest a body may come once under way
LINGER = 5.0  # seconds a connection is drained after an answer to a body left unread
DROP_LOG_EVERY = 10.0  # seconds: dropped connections are logged as one line a period
DROPPED = "closed connections whose requests came too slowly"
log = logging.getLogger("pontoon.front")

_LATE = json.dumps({
    "type": "https://pontoon.example/problems/408", "title": "Request Timeout", "status": 408,
    "detail": f"the request came too slowly: headers are due within {HEADER_TIMEOUT:g} s, a "
              f"body within {BODY_GRACE:g} s and one more second for every {BODY_RATE} "
              f"bytes"}).encode()
TIMEOUT_ANSWER = (b"HTTP/1.1 408 Request Timeout\r\nContent-Type: application/problem+json\r\n"
                  b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(_LATE)) + _LATE


class Parser(HTTPRequestParser):  # type: ignore[misc]
    """waitress's parser, noting when the headers ended, and leaving unread a body over the
    limit (waitress would answer 413 itself, before the app could say 401)."""

    headers_at = 0.0
    skipped_body = False
    must_close = False  # set by the spread (api/spread.py)

    def received(self, data: bytes) -> int:
        finished = self.headers_finished
        consumed = int(super().received(data))
        if self.headers_finished and not finished:
            self.headers_at = time.monotonic()
        if isinstance(self.error, RequestEntityTooLarge):
            self._skip_body()
            return len(data)  # the rest of this read is body, never the next request
        return consumed

    def _skip_body(self) -> None:
        length = self.body_bytes_received if self.chunked else self.content_length
        if self.body_rcv is not None:
            self.body_rcv.getbuf().close()
            self.body_rcv = None  # the app's wsgi.input is empty
        self.error, self.skipped_body, self.completed = None, True, True
        self.expect_continue = False  # no "100 Continue": the body is not wanted
        self.headers["CONTENT_LENGTH"] = str(max(length, BODY_MAX + 1))

    def late(self, now: float) -> bool:
        """Whether the body has fallen behind its deadline."""
        return now > self.headers_at + BODY_GRACE + self.body_bytes_received / BODY_RATE


class Task(WSGITask):  # type: ignore[misc]
    def execute(self) -> None:
        server = self.channel.server
        if self.request.skipped_body or server.stopping or server.crowded(self.request):
            self.set_close_on_finish()  # before the app answers: `Connection: close` is sent
        super().execute()


class Channel(HTTPChannel):  # type: ignore[misc]
    """One client connection, with its deadlines and its lingering close."""

    parser_class = Parser
    task_class = Task
    linger_after = False  # this connection's last request left a body unread
    lingering_until: float | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.waiting_since = time.monotonic()

    def service(self) -> None:
        """In a worker thread: one request answered; the next one's headers are due from
        now."""
        if self.requests and (self.requests[0].skipped_body or self.requests[0].error):
            self.linger_after = True
        super().service()
        self.waiting_since = time.monotonic()

    def readable(self) -> bool:
        return self.lingering_until is not None or bool(super().readable())

    def handle_read(self) -> None:
        if self.lingering_until is None:
            super().handle_read()
            return
        try:
            self.recv(65536)  # drained and forgotten; at its end the connection closes
        except OSError:
            self.handle_close()

    def handle_close(self) -> None:
        """A connection whose body was left unread is half-closed first: the answer goes
        out with a FIN, and what the client still sends is drained, not answered with a
        reset that could destroy the answer before the client reads it."""
        if self.linger_after and self.lingering_until is None and self.connected:
            try:
                self.socket.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            else:
                self.lingering_until = time.monotonic() + LINGER
                self.will_close = False
                return
        super().handle_close()

    def overdue(self, now: float) -> str | None:
        """In the event loop, once a second: why this connection is closed now, if it is."""
        if self.requests or self.will_close or self.close_when_flushed:
            return None  # being served, or closing already
        if self.lingering_until is not None:
            self.will_close = now >= self.lingering_until
            return None
        if self.total_outbufs_len:  # an answer still going out: the client is reading
            self.waiting_since = now
            return None
        request = self.request
        if request is None or not request.headers_finished:
            if now - self.waiting_since <= HEADER_TIMEOUT:
                return None
            self._drop(answer=request is not None)
            return "headers" if request is not None else "idle"
        if request.late(now):
            self._drop(answer=True)
            return "body"
        return None

    def _drop(self, *, answer: bool) -> None:
        if self.request is not None:
            self.request.close()
            self.request = None
        if not answer:
            self.will_close = True
            return
        with self.outbuf_lock:
            self.outbufs[-1].append(TIMEOUT_ANSWER)
            self.current_outbuf_count += len(TIMEOUT_ANSWER)
            self.total_outbufs_len += len(TIMEOUT_ANSWER)
        self.close_when_flushed = True

    def busy(self) -> bool:
        """Whether a request is being received, served or answered on it."""
        return bool(self.requests or self.request is not None or self.total_outbufs_len)


class FrontServer(TcpWSGIServer):  # type: ignore[misc]
    """One listening socket of a worker, its connections' deadlines checked every second."""

    channel_class = Channel

    def __init__(self, *args: Any, crowded: Any, **kwargs: Any) -> None:
        self.crowded = crowded  # (request) -> whether to close its connection after it
        self.stopping = False
        self.dropped: Counter[str] = Counter()
        self.logged_at = time.monotonic()
        super().__init__(*args, **kwargs)

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # waitress's: an answer not read for channel_timeout
        clock = time.monotonic()
        for channel in list(self.active_channels.values()):
            reason = channel.overdue(clock)
            if reason is not None and reason != "idle":
                self.dropped[reason] += 1
        if self.dropped and clock - self.logged_at >= DROP_LOG_EVERY:
            # One line a period, however many: slow clients cannot fill the log.
            log.warning("%s in the last %.0f s: %s", DROPPED, clock - self.logged_at,
                        ", ".join(f"{count} by their {reason}"
                                  for reason, count in sorted(self.dropped.items())))
            self.dropped.clear()
            self.logged_at = clock

    def stop_listening(self) -> None:
        """Take what the kernel has queued here (answered, not reset), then close."""
        while True:
            held = len(self._map)
            self.handle_accept()
            if len(self._map) == held:
                break
        self.accepting = False
        self.del_channel()
        self.socket.close()
