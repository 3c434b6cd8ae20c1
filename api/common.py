"""Small pieces the resources share: how views are declared, positions, versions as ETags,
If-Match and idempotency keys."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from uuid import UUID

import flask_smorest
import orjson
from flask import Response, current_app, request
from marshmallow import Schema

from api.auth import principal
from api.errors import MalformedHeader
from application import Ledger, Outcome

# A body with headers (the ETag); the status is the one the view is declared with.
Shown = tuple[dict[str, Any], dict[str, str]]


def ledger() -> Ledger:
    return current_app.extensions["pontoon"].ledger  # type: ignore[no-any-return]


def idempotency_key() -> str | None:
    """Keys are scoped to the principal, so two clients' keys never collide; a key that is
    not 1 to 200 visible ASCII characters is malformed (400, API.md Additions)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not (1 <= len(key) <= 200 and key.isascii() and key.isprintable()):
        raise MalformedHeader("Idempotency-Key", "an Idempotency-Key is 1 to 200 visible "
                                                 "ASCII characters, such as a UUID")
    return f"{principal().id}:{key}"


def if_match() -> int | None:
    """The version a command expects, from `If-Match: "7"`; None when absent or `*`.
    Anything else is malformed (400, API.md Additions): a strong ETag this service gave."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    value = header.strip().removeprefix("W/")
    digits = value[1:-1] if len(value) > 2 and value[0] == value[-1] == '"' else ""
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 18:
        raise MalformedHeader("If-Match", 'If-Match takes the ETag of the aggregate as it '
                                          'was given, e.g. "7"')
    return int(digits)


def creation_key() -> str | None:
    """The Idempotency-Key of a command that names no aggregate showing an ETag (it creates
    one, or revokes a token or deletes a webhook by id): If-Match has nothing to match there
    and is ignored, but a malformed one is still 400, as on every command (API.md
    Additions)."""
    if_match()
    return idempotency_key()


def etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


def command_options() -> dict[str, Any]:
    """The Idempotency-Key, actor and If-Match version a command on an aggregate passes on.

    Unpack it last in the application call, after the view's own checks, so that a request
    a principal may not send is refused (403) before its headers are looked at."""
    return {"key": idempotency_key(), "actor": principal().id, "expected_version": if_match()}


def positioned(outcome: Outcome) -> dict[str, Any]:
    """A command's result and the position of its last event (API.md)."""
    return {**outcome.result, "position": outcome.position}


def shown(outcome: Outcome, view: Callable[..., dict[str, Any]], *, kind: str) -> Shown:
    """The aggregate (`kind`: table or deal) at the version the command saved, not a later
    one a concurrent command may have saved since, with that version as the ETag: the one
    the command saved, as it left it; read at that version only for a repeat answered
    from its receipt."""
    aggregate_id, version = UUID(outcome.result[f"{kind}_id"]), outcome.result["version"]
    aggregate = outcome.saved.get(aggregate_id)
    if aggregate is None or aggregate.version != version:
        aggregate = ledger().repository.get(aggregate_id, version=version)
    return view(aggregate, position=outcome.position), etag(aggregate.version)


ETAG_HEADER = {"ETag": {"description": 'the version of the aggregate shown, e.g. "7": send it '
                                  "back as If-Match to act only on that version",
                          "schema": {"type": "string"}}}
IDEMPOTENCY_KEY = {"name": "Idempotency-Key", "in": "header", "required": False,
                   "description": "a retry with the same key and body gets the first answer "
                                  "and changes nothing; the same key with another body is 422",
                   "schema": {"type": "string", "minLength": 1, "maxLength": 200}}
IF_MATCH = {"name": "If-Match", "in": "header", "required": False,
            "description": "the ETag of the aggregate the command acts on: refused with 409 "
                           "if its version has moved on",
            "schema": {"type": "string", "maxLength": 40}}
CSV = {"text/csv": {"schema": {"type": "string"}}}
MIN_POSITION = {"name": "min_position", "in": "query", "required": False,
                "description": "accepted as on every read; this one reads the event store "
                               "itself, so it is always current",
                "schema": {"type": "integer", "minimum": 0, "maximum": 2**62}}


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """flask-smorest's blueprint, where a view is declared with one decorator that names its
    route, its input schema and its one success answer (STYLE.md 10). The operation's id is
    the view's name; a query parameter a view does not declare is refused (400)."""

    def read(self, rule: str, answer: type[Schema], *, query: type[Schema] | None = None,
             csv: bool = False, etag: bool = False) -> Callable[[Callable[..., Any]], Any]:
        """A GET: `view` takes the loaded `query` (if any) and the path's parts. `csv`: it
        may also answer text/csv (a Response); `etag`: it answers an ETag header."""
        doc: dict[str, Any] = {"responses": {200: {"content": CSV}}} if csv else {}
        if query is None:
            doc["parameters"] = [MIN_POSITION]
        declare = self._operation(rule, "GET", 200, answer,
                                  None if query is None else (query, "query"),
                                  doc=doc, headers=ETAG_HEADER if etag else None)
        if not csv or query is None:
            return declare

        def with_download(view: Callable[..., Any]) -> Any:
            self._download(rule, view, query)
            return declare(view)
        return with_download

    def _download(self, rule: str, view: Callable[..., Any], query: type[Schema]) -> None:
        """`<rule>.csv`: the read's whole selection as CSV, an operation of its own
        (`<view>_csv`, decision 145). A client generated from the OpenAPI document decodes
        each operation's answer one way, so it downloads the CSV through this one; the
        read itself answers CSV too, to `format=csv` or `Accept: text/csv`."""
        paging = [name for name in ("format", "after", "limit") if name in query().fields]

        def download(loaded: dict[str, Any], *args: Any, **path: Any) -> Any:
            return view({**loaded, "format": "csv"}, *args, **path)
        download.__name__ = download.__qualname__ = f"{view.__name__}_csv"
        download.__doc__ = f"{(view.__doc__ or '').strip()} As CSV."
        documented = self.arguments(query(exclude=paging), location="query")(download)
        documented = self.doc(operationId=download.__name__, responses={
            200: {"description": "the whole selection as CSV", "content": CSV}})(documented)
        self.route(f"{rule}.csv", methods=["GET"])(documented)

    def command(self, rule: str, body: type[Schema] | None, answer: type[Schema], *,
                status: int = 200, method: str = "POST",
                show: Callable[[Outcome], Any] = positioned, guarded: bool = False,
                exact: bool = False) -> Callable[[Callable[..., Outcome]], Any]:
        """A command: `act` takes the loaded `body` (if any) and the path's parts, checks who
        may send it and makes one application call; `show` turns its Outcome into the
        answer (by default the result with its position), which is dumped through the
        `answer` schema unless `show` makes it `exact`ly as the schema would (`_answered`).
        A command shown with its aggregate answers its ETag; a `guarded` one takes
        If-Match."""
        headers = [IDEMPOTENCY_KEY] if method == "POST" else []
        if guarded:
            headers.append(IF_MATCH)

        def declare(act: Callable[..., Outcome]) -> Any:
            schema = answer()

            @functools.wraps(act)
            def view(*args: Any, **path: Any) -> Response:
                return _answered(show(act(*args, **path)), status, schema, exact=exact)
            self._operation(rule, method, status, answer,
                            None if body is None else (body, "json"),
                            doc={"parameters": headers} if headers else {},
                            headers=None if show is positioned else ETAG_HEADER)(view)
            return act
        return declare

    def removal(self, rule: str) -> Callable[[Callable[..., Any]], Any]:
        """A DELETE answering 204 without a body: `view` takes the path's parts."""
        def declare(view: Callable[..., Any]) -> Any:
            documented = _no_query(self.response(204)(view), allowed=())
            documented = self.doc(operationId=view.__name__)(documented)
            self.route(rule, methods=["DELETE"])(documented)
            return view
        return declare

    def _operation(self, rule: str, method: str, status: int, answer: type[Schema],
                   arguments: tuple[type[Schema], str] | None, *, doc: dict[str, Any],
                   headers: dict[str, Any] | None) -> Callable[[Callable[..., Any]], Any]:
        def declare(view: Callable[..., Any]) -> Any:
            documented = self.response(status, answer, headers=headers)(view)
            if arguments is not None:
                schema, location = arguments
                # An instance, made once: given the class, webargs would build one for
                # every request (a quarter of a millisecond each).
                documented = self.arguments(schema(), location=location)(documented)
            if arguments is None or arguments[1] != "query":
                # Checked before the body is read, as webargs checks a query schema first.
                documented = _no_query(documented, allowed=("min_position",)
                                       if method == "GET" else ())
            documented = self.doc(operationId=view.__name__, **doc)(documented)
            self.route(rule, methods=[method])(documented)
            return view
        return declare


def _answered(shown: dict[str, Any] | Shown, status: int, schema: Schema, *, exact: bool
              ) -> Response:
    """A command's answer. An `exact` one is written as its presenter made it: the deal and
    table presenters build exactly what the schema documents, so dumping it through the
    schema again (flask-smorest's way, a tenth of a millisecond for a deal, the commonest
    answer) changed nothing; with `CHECK_ANSWERS` (the test suite sets it) each is held to
    its schema's dump. Other results carry more than their schema shows, and are dumped."""
    body, headers = shown if isinstance(shown, tuple) else (shown, {})
    if not exact:
        body = schema.dump(body)
    elif current_app.config.get("CHECK_ANSWERS"):
        dumped = schema.dump(body)
        if _json(dumped) != _json(body):  # as written: 1 == 1.0 == True in Python
            raise AssertionError(f"the answer is not its schema's dump: {body!r} != {dumped!r}")
    response: Response = current_app.json.response(body)
    response.status_code = status
    response.headers.update(headers)
    return response


def _json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _no_query(view: Callable[..., Any], allowed: tuple[str, ...]) -> Callable[..., Any]:
    """An operation without query parameters refuses any (API.md: unknown ones are 400),
    but a read from the event store itself accepts the `min_position` a client sends to
    every read: it is current, so there is nothing to wait for."""
    @functools.wraps(view)
    def checked(*args: Any, **kwargs: Any) -> Any:
        unknown = sorted(name for name in request.args if name not in allowed)
        value = request.args.get("min_position", "0")
        if "min_position" in allowed and not (value.isascii() and value.isdigit()
                                              and len(value) <= 18):
            unknown.append("min_position")  # where it is not allowed, it is unknown already
        if unknown:
            flask_smorest.abort(400, message=f"unknown query parameter: {', '.join(unknown)}",
                                errors={name: ["Unknown field."] for name in unknown})
        return view(*args, **kwargs)
    return checked


def wants_csv(query: dict[str, Any]) -> bool:
    """CSV when asked by `format=csv` or by `Accept: text/csv` (API.md)."""
    if "format" in query:
        return bool(query["format"] == "csv")
    return request.accept_mimetypes.best_match(["application/json", "text/csv"]) == "text/csv"
