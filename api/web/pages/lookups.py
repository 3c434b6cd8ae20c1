"""What the pages look up: the app's services, the read models, and names for ids."""

from __future__ import annotations

from flask import current_app

from api.reads import names, read_store, told_apart
from api.services import Services
from api.web.present import Accounts
from application import Ledger
from projections.audit import deal_row
from projections.store import ReadStore
from projections.tables import tables


def services() -> Services:
    return current_app.extensions["pontoon"]  # type: ignore[no-any-return]


def ledger() -> Ledger:
    return services().ledger


def read(min_position: int | None = None) -> ReadStore:
    """The read models, once they have applied `min_position` (read your own writes)."""
    return read_store(min_position)


def player_names(store: ReadStore) -> dict[str, str]:
    """Players' names, with the start of the id beside those two players share."""
    return told_apart(names(store))


def table_names(store: ReadStore) -> dict[str, str]:
    return {row["table_id"]: row["name"] for row in tables(store)}


def accounts_in_words(store: ReadStore) -> Accounts:
    return Accounts(player_names(store), table_names(store))


def deal_labels(store: ReadStore, deal_ids: set[str], tables_by_id: dict[str, str],
                *, with_table: bool = True) -> dict[str, str]:
    """`Friday school, deal 3` (or `deal 3`) for each deal named on a page."""
    labels = {}
    for deal_id in deal_ids:
        row = deal_row(store, deal_id)
        if row is None:
            labels[deal_id] = deal_id[:8]
            continue
        table_name = tables_by_id.get(row["table_id"], "a table")
        labels[deal_id] = f"{table_name}, deal {row['number']}" if with_table \
            else f"deal {row['number']}"
    return labels
