"""CSV downloads of the lists that hold money (API.md: `Accept: text/csv` or `format=csv`).

A download is the whole selection (the period, the filters), read page by page with the
same cursor as the JSON list and streamed, so its size never has to fit in memory.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from flask import Response

from api.reads import names, told_apart
from projections.spreadsheet import SafeWriter
from projections.store import ReadStore

PAGE = 500


def every(fetch: Callable[[Any], list[dict[str, Any]]], key: str) -> Iterator[dict[str, Any]]:
    """Every row `fetch(after)` pages through, `key` being each row's cursor."""
    after = None
    while True:
        rows = fetch(after)
        yield from rows
        if len(rows) < PAGE:
            return
        after = rows[-1][key]


def csv_response(rows: Iterable[dict[str, Any]], columns: Sequence[str], filename: str
                 ) -> Response:
    def lines() -> Iterator[str]:
        buffer = io.StringIO()
        writer = SafeWriter(buffer)
        writer.writerow(columns)
        for row in rows:
            writer.writerow(row.get(column) for column in columns)
            if buffer.tell() > 16_384:
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()
        yield buffer.getvalue()
    # The rows are read as the answer is sent; they need the store, not the request.
    response = Response(lines(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def balances_download(store: ReadStore, kinds: Sequence[str], cutoff: str | None = None
                      ) -> Response:
    """Every account of `kinds` with its balance and name (GET /v1/balances as CSV); with
    a `cutoff`, as each stood just before it."""
    from projections.asof import standing
    from projections.balances import balance_page

    words = AccountNames(store)
    then = None if cutoff is None else standing(store, cutoff, kinds=kinds)
    rows = every(lambda after: balance_page(store, kinds, after=after, limit=PAGE), "account")
    return csv_response(({**row, "name": words(row["account"])} if then is None else
                         {**row, "name": words(row["account"]), "position": None,
                          "balance": then.get(row["account"], 0)} for row in rows),
                        ("account", "kind", "name", "balance", "position"), "balances.csv")


class AccountNames:
    """Names beside account ids in a download: players by name, kitties by table."""

    def __init__(self, store: ReadStore) -> None:
        self.players = told_apart(names(store))
        self.tables = {row["table_id"]: row["name"]
                       for row in store.rows("SELECT table_id, name FROM tables")}

    def __call__(self, account: str | None) -> str:
        kind, _, owner = (account or "").partition(":")
        if kind == "player":
            return self.players.get(owner, owner)
        if kind == "kitty":
            return f"kitty of {self.tables.get(owner, owner)}"
        if kind == "escrow":
            return "stakes on the table"
        return kind
