"""Random sequences of every command, sent to the real Ledger on SQLite, PostgreSQL and
the in-memory store (ledger_machine.py), with the ledger's invariants checked after every
command and every step (ledger_checks.py). On the SQL stores each test's store is shared
by its runs, each run with a fresh Ledger. The CI profile is derandomized and bounded;
`make test-long` runs it longer, from fresh seeds (tests/random_play.py).
"""

from __future__ import annotations

from collections import Counter

from hypothesis.stateful import run_state_machine_as_test

from config import Settings
from tests.integration.ledger_machine import LedgerMachine, Shared
from tests.ledger_club import MEMORY
from tests.random_play import budget


def run_machine(settings: Settings, examples: int, steps: int) -> Counter[str]:
    """Runs of the machine on fresh stores like `settings`; a tally of the commands sent.
    On an SQL store a failing run is not shrunk in CI: each try would make a store."""
    shared = Shared(settings)
    machine = type("LedgerMachineOn" + settings.store.title(), (LedgerMachine,),
                   {"shared": shared})
    run_state_machine_as_test(machine, settings=budget(
        examples, steps=steps, shrink=settings.store == "memory"))
    return shared.tally


def _exercised(tally: Counter[str]) -> None:
    """Every kind of command was sent; players, chips, tables, deals and disputes were
    accepted, corrections among them; illegal actions were refused, and refusals were
    common. (Which table commands are accepted depends more on the draw.)"""
    print(dict(sorted(tally.items())))
    kinds = {"register_player", "buy_in", "cash_out", "open_table", "seat_player",
             "remove_player", "put_up_kitty", "sell_bank", "open_auction", "bid",
             "close_auction", "start_deal", "act", "raise_dispute", "resolve_dispute"}
    assert {kind for kind in kinds if not tally[kind] + tally[f"{kind} refused"]} == set()
    accepted = {"register_player", "buy_in", "cash_out", "open_table", "put_up_kitty",
                "start_deal", "act", "raise_dispute", "resolve_dispute", "corrections"}
    assert {kind for kind in accepted if not tally[kind]} == set(), tally
    refused = sum(n for kind, n in tally.items() if kind.endswith(" refused"))
    assert tally["act refused"] >= 10 and refused >= 40, tally


def test_r11_any_sequence_of_commands_keeps_the_ledger_whole_on_the_store(store_settings):
    """R11.1-R11.4, R7.5: after every command of random sequences of every command, on
    SQLite and PostgreSQL: the balances total zero; no player is below zero but by a
    recorded debt; a refused command recorded nothing; every deal and table replays to its
    state and every deal verifies; every aggregate read back from the store, with snapshots
    and without, equals the one the process keeps; the read models, caught up, hold what the
    log says."""
    examples = 6 if store_settings.store == "postgres" else 10  # a slower round trip
    _exercised(run_machine(store_settings, examples=examples, steps=60))


def test_r11_any_sequence_of_commands_keeps_the_ledger_whole_in_memory():
    """R11.1-R11.4, R7.5: the same, on the in-memory store (no read models there)."""
    _exercised(run_machine(MEMORY, examples=10, steps=60))
