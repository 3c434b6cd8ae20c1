"""Decision 143, on both stores: open tables have unique names, held by the table opened
under them in the same save, so two tables opened at once under one name never both are;
`pontoon migrate` gives tables opened before names were held their names."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from application import Ledger
from application.store import build_ledger, migrate
from config import Settings
from domain.aggregates import Account, TableAggregate, kitty_id
from domain.engine.table import Table
from domain.errors import NotNow, PontoonError

THREADS = 6


def players(ledger: Ledger, *names: str) -> list[str]:
    return [str(ledger.register_player(name).result["id"]) for name in names]


def test_a_second_table_under_a_name_open_already_is_refused_naming_the_first(
        ledger: Ledger) -> None:
    seats = players(ledger, "Ann", "Bob")
    first = ledger.open_table(name="Friday school", seats=seats).result["table_id"]

    with pytest.raises(NotNow) as refused:
        ledger.open_table(name="friday   SCHOOL ", seats=seats)

    assert first in refused.value.message and "Friday school" in refused.value.message
    assert ledger.open_table(name="Friday school upstairs", seats=seats).result["table_id"]


def test_tables_opened_at_once_under_one_name_are_one_table(
        store_settings: Settings) -> None:
    """Each thread has its own ledger, as each worker of a service does: one open wins the
    race, every other decides again, finds the name held and is refused (409)."""
    ledgers = [build_ledger(store_settings) for _ in range(THREADS)]
    seats = players(ledgers[0], "Ann", "Bob")
    start, opened, refused = threading.Barrier(THREADS), [], []

    def open_one(ledger: Ledger) -> None:
        start.wait()
        try:
            opened.append(ledger.open_table(name="Race night", seats=seats).result["table_id"])
        except PontoonError as error:
            refused.append(error)

    threads = [threading.Thread(target=open_one, args=(ledger,)) for ledger in ledgers]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        for ledger in ledgers:
            ledger.close()

    assert len(opened) == 1 and len(refused) == THREADS - 1
    assert all(isinstance(error, NotNow) and opened[0] in error.message for error in refused)


def open_the_old_way(ledger: Ledger, name: str, seats: Sequence[str]) -> str:
    """A table as the ledger opened one before names were held: no name saved with it."""
    table_id = f"00000000-0000-4000-8000-{len(name):012d}"
    _, decided = Table.open(table_id=table_id, name=name, seats=seats, banker=seats[0],
                            rules={"shoot": True}, pack=None, seed=ledger.new_seed())
    kitty = Account.open(id=kitty_id(table_id), kind="kitty", owner=table_id,
                         name=f"kitty of {name}")
    ledger.save(TableAggregate.begin(decided), kitty)
    return table_id


def test_migrate_gives_tables_opened_before_names_were_held_their_names(
        store_settings: Settings, ledger: Ledger) -> None:
    seats = players(ledger, "Ann", "Bob")
    old = open_the_old_way(ledger, "Old school", seats)

    migrate(store_settings)
    migrate(store_settings)  # idempotent: the name is held once

    with pytest.raises(NotNow) as refused:
        ledger.open_table(name="OLD SCHOOL", seats=seats)
    assert old in refused.value.message
    assert ledger.reserve_table_names() == 0
