"""The stalled-client log line (decision 91): gunicorn's socket error for a read that timed
out in its request parser becomes one warning, and nothing else does."""

from __future__ import annotations

import errno
import logging
import socket
import struct
import sys

import pytest
from gunicorn.http.unreader import SocketUnreader

from api.observability import STALLED, StalledClientFilter

MESSAGE = "Socket error processing request."


def logged(error: BaseException, message: str = MESSAGE) -> logging.LogRecord:
    """The record gunicorn's `log.exception(message)` makes for `error`."""
    try:
        raise error
    except OSError:
        record = logging.LogRecord("gunicorn.error", logging.ERROR, __file__, 1, message,
                                   (), sys.exc_info())
    StalledClientFilter().filter(record)
    return record


def timed_out_in_the_parser() -> OSError:
    """What gunicorn's parser raises when a client stalls: a real read on a socket whose
    SO_RCVTIMEO runs out (as api/server.py sets it), through gunicorn's own unreader."""
    ours, theirs = socket.socketpair()
    try:
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", 0, 50_000))
        try:
            SocketUnreader(ours).read()
        except OSError as error:
            return error
        raise AssertionError("the read did not time out")
    finally:
        ours.close()
        theirs.close()


def test_a_read_timing_out_in_gunicorns_parser_is_one_warning_line() -> None:
    error = timed_out_in_the_parser()
    assert error.errno in (errno.EAGAIN, errno.EWOULDBLOCK)

    record = logged(error)

    assert (record.levelno, record.getMessage()) == (logging.WARNING, STALLED)
    assert record.exc_info is None


@pytest.mark.parametrize("error", [BlockingIOError(errno.EAGAIN, "from the app"),
                                   ConnectionAbortedError(errno.ECONNABORTED, "aborted")],
                         ids=["eagain-elsewhere", "another-errno"])
def test_any_other_socket_error_keeps_its_level_and_traceback(error: OSError) -> None:
    record = logged(error)

    assert (record.levelno, record.getMessage()) == (logging.ERROR, MESSAGE)
    assert record.exc_info is not None


def test_other_messages_are_left_alone() -> None:
    record = logged(timed_out_in_the_parser(), "Error handling request")

    assert record.levelno == logging.ERROR and record.exc_info is not None
