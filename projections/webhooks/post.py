"""One webhook delivery attempt, bounded as a whole: resolving the receiver's name,
connecting, sending and reading its status all end within `timeout` seconds (API.md
Additions), however slowly the receiver trickles its answer; a socket timeout alone bounds
each read, not the attempt. It connects only to an address it has just resolved and
checked (projections/webhooks/addresses.py), and follows no redirect (a 3xx is a failure).
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

from projections.webhooks.addresses import Address, checked, host_and_port


def post(url: str, body: bytes, headers: Mapping[str, str], *, timeout: float,
         allow_private: bool) -> int:
    """The receiver's HTTP status. Raises Refused (a forbidden or unknown address),
    TimeoutError (no status within `timeout`), or the connection's own error."""
    deadline = time.monotonic() + timeout
    host, port = host_and_port(url)
    addresses = checked(host, port, allow_private=allow_private, within=timeout)
    sock = _connect(addresses, deadline, timeout)
    # At the deadline the socket is shut: whatever read or write is under way ends there,
    # and whatever it read by then (a status line, say, with headers still coming) is no
    # answer.
    shut = threading.Event()
    cut = threading.Timer(max(deadline - time.monotonic(), 0.0), _shut, (sock, shut))
    cut.daemon = True
    cut.start()
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else \
        http.client.HTTPConnection
    conn = kind(host, port, timeout=timeout)
    conn._create_connection = lambda *args, **kwargs: sock  # type: ignore[attr-defined]
    try:
        conn.request("POST", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                     body=body, headers=dict(headers))
        status = conn.getresponse().status  # its body is not read: the status is the answer
        if shut.is_set():
            raise OSError("cut at the deadline")
    except (OSError, http.client.HTTPException) as error:
        if shut.is_set() or time.monotonic() >= deadline:
            raise TimeoutError(f"no answer within {timeout:g} s") from None
        raise error
    finally:
        cut.cancel()
        conn.close()
        sock.close()
    return status


def _connect(addresses: list[Address], deadline: float, timeout: float) -> socket.socket:
    """A connection to the first checked address that takes one, before the deadline."""
    failure: OSError = TimeoutError(f"no connection within {timeout:g} s")
    for family, sockaddr in addresses:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(remaining)
        try:
            sock.connect(sockaddr)
            return sock
        except OSError as error:
            sock.close()
            failure = TimeoutError(f"no connection within {timeout:g} s") \
                if isinstance(error, TimeoutError) else error
    raise failure


def _shut(sock: socket.socket, shut: threading.Event) -> None:
    shut.set()
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
