"""What every request meets before a view: who sends it, how large it is, how deep its JSON
nests and how long its integers are, all checked before the body is parsed (API.md,
Input limits). A request that fails here never reaches a schema, a view or the ledger.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask, Response, request
from marshmallow import RAISE
from webargs import core
from webargs.flaskparser import FlaskParser, abort, is_json_request
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge

from api.auth import is_api_command, principal
from api.errors import token_refusal
from api.inputs import bounded_int
from application.reads import TokenChanged

BODY_MAX = 64 * 1024  # bytes (API.md: 413 above 64 KiB)
# The deepest body a schema takes is three levels (a resolution's corrections, a table's
# pack and its cards); eight leaves room and stops a parser's recursion long before Python's.
DEPTH_MAX = 8

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_OPENS = frozenset(b"[{")


def guard(app: Flask) -> None:
    """Install the checks: the token before the body, then the size of the body."""
    app.config["MAX_CONTENT_LENGTH"] = BODY_MAX  # also stops chunked bodies as they stream

    @app.before_request
    def token_then_size() -> None:
        if request.routing_exception is not None:
            return  # 404 or 405: no view will read the body
        if is_api_command():
            principal()  # 401 whatever the body, and before it is read
        if (request.content_length or 0) > BODY_MAX:
            raise RequestEntityTooLarge(f"a request body is at most {BODY_MAX} bytes")

    @app.after_request
    def settle_token_check(response: Response) -> Response:
        """A token check left to a command that never ran (refused before deciding, or
        answered from its receipt) is made now; a changed token is refused after all."""
        ledger = app.extensions["pontoon"].ledger
        if ledger.token_check_pending() is None:
            return response
        try:
            ledger.settle_token_check()
        except TokenChanged:
            return token_refusal() or response
        return response

    @app.teardown_request
    def forget_token_check(error: BaseException | None) -> None:
        app.extensions["pontoon"].ledger.drop_token_check()


def depth(data: bytes) -> int:
    """How deeply a JSON text nests arrays and objects, strings left aside."""
    deepest = level = 0
    for byte in _STRING.sub(b'""', data).translate(None, _NOT_BRACKETS):
        if byte in _OPENS:
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def loads(data: bytes) -> Any:
    """JSON with its limits checked before parsing: nesting, then each integer's digits
    (an integer longer than the bound is never converted: see api/inputs.py)."""
    if depth(data) > DEPTH_MAX:
        abort(400, messages={"json": [f"JSON nests deeper than {DEPTH_MAX} levels"]})
    return json.loads(data.decode(), parse_int=bounded_int)


class Parser(FlaskParser):
    """Malformed input is 400 (API.md); webargs' default 422 is kept for rule refusals. An
    unknown query parameter is malformed input too, as an unknown body field is."""

    DEFAULT_VALIDATION_STATUS = 400
    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
                                   "query": RAISE, "querystring": RAISE}

    def _raw_load_json(self, req: Any) -> Any:
        if not is_json_request(req):
            return core.missing
        try:
            data = req.get_data(cache=True)
        except ClientDisconnected:  # under another WSGI server: the client went away
            abort(400, messages={"json": [
                "the body stopped before its Content-Length: the client closed the "
                "connection"]})
        if req.content_length is None and len(data) >= BODY_MAX:
            # A chunked body stops being read at the limit (MAX_CONTENT_LENGTH): what was
            # read is its first 64 KiB, not all of it.
            raise RequestEntityTooLarge(f"a request body is at most {BODY_MAX} bytes")
        try:
            return loads(data)
        except RecursionError:  # not expected below DEPTH_MAX; never a 500 all the same
            abort(400, messages={"json": ["JSON nests too deeply"]})
        except UnicodeDecodeError as error:
            raise json.JSONDecodeError(f"the body is not UTF-8: {error.reason}",
                                       doc=data.decode("utf-8", "replace"),
                                       pos=error.start) from None
