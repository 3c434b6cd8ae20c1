"""A read model that cannot apply an event never stops for good, and never stops the others.

The failure is real: the test adds to its own store a rule the balances model's SQL cannot
satisfy (a CHECK constraint on PostgreSQL, a trigger on SQLite, refusing the account of a
player named "Poison"), then removes it, as an operator fixing the cause would.
"""

from __future__ import annotations

import time

import pytest

from application import Ledger
from projections.failures import Failures, failures
from projections.runner import ModelFailing, Projections
from projections.store import ReadStore, read_store
from tests.integration.ledger_views import head
from tests.integration.projection_session import aggregate_balances, read_balances, same_balances

POISON = "Poison"


def poison(store: ReadStore, store_kind: str) -> None:
    if store_kind == "postgres":
        store.run([("ALTER TABLE accounts ADD CONSTRAINT no_poison "
                    f"CHECK (name IS DISTINCT FROM '{POISON}') NOT VALID", ())])
    else:
        store.run([("CREATE TRIGGER no_poison BEFORE INSERT ON accounts "
                    f"WHEN NEW.name = '{POISON}' BEGIN SELECT RAISE(ABORT, 'poisoned row'); "
                    "END", ())])


def cure(store: ReadStore, store_kind: str) -> None:
    store.run([("ALTER TABLE accounts DROP CONSTRAINT no_poison" if store_kind == "postgres"
                else "DROP TRIGGER no_poison", ())])


@pytest.fixture
def store(ledger: Ledger, store_settings) -> ReadStore:  # type: ignore[no-untyped-def]
    found = read_store(ledger, store_settings)
    assert found is not None
    return found


def a_stream_with_a_poisoned_event(ledger: Ledger) -> tuple[str, int]:
    """Ann, then the poisoned player, then more than a page of Ann's buy-ins."""
    ann = str(ledger.register_player("Ann").result["id"])
    poisoned = ledger.register_player(POISON).position
    assert poisoned is not None
    for _ in range(12):
        ledger.buy_in(ann, 5)
    return ann, poisoned


def test_a_failing_read_model_stays_before_the_event_it_cannot_apply_and_the_others_go_on(
        ledger, store, store_settings):
    """Issue 10: balances stop just before the poisoned event, named with its position and
    the error; every other read model reaches the head of the log, pages beyond it too."""
    poison(store, store_settings.store)
    ann, poisoned = a_stream_with_a_poisoned_event(ledger)
    runner = Projections(ledger, store, page=5)

    runner.catch_up()

    [failure] = failures(store)
    assert (failure.model, failure.position, failure.attempts) == ("balances", poisoned, 1)
    assert "no_poison" in failure.error or "poisoned row" in failure.error
    status = runner.status()
    assert status["balances"]["position"] == poisoned - 1
    assert {name: s["lag"] for name, s in status.items() if name != "balances"} == \
        {m.name: 0 for m in runner.models if m.name != "balances"}
    statement = store.rows("SELECT change FROM postings WHERE account = %s",
                           (f"player:{ann}",))
    assert [row["change"] for row in statement] == [5] * 12


def test_a_failing_read_model_is_retried_after_a_pause_not_at_every_step(ledger, store,
                                                                          store_settings):
    """Issue 10: no hot loop; the next attempt waits (1 s, then doubling up to a minute)."""
    poison(store, store_settings.store)
    a_stream_with_a_poisoned_event(ledger)
    runner = Projections(ledger, store, page=5)
    runner.catch_up()

    for _ in range(20):
        runner.step()

    assert [f.attempts for f in failures(store)] == [1]
    assert not runner.failures.due("balances")


def test_a_read_asking_for_a_position_beyond_a_failing_model_is_refused_naming_it(
        ledger, store, store_settings):
    """Issue 10: read-your-writes on a failing model answers at once, naming the model, the
    position and the error, rather than waiting out its timeout."""
    poison(store, store_settings.store)
    _, poisoned = a_stream_with_a_poisoned_event(ledger)
    runner = Projections(ledger, store, page=5)
    runner.catch_up()

    with pytest.raises(ModelFailing) as refused:
        runner.wait(poisoned, timeout=30)

    assert refused.value.failure.model == "balances"
    assert f"balances cannot apply the event at position {poisoned}" in str(refused.value)
    runner.wait(poisoned - 1, timeout=1)  # before the poisoned event, balances answer


def test_a_failing_read_model_recovers_by_itself_once_the_cause_is_fixed(ledger, store,
                                                                          store_settings):
    """Issue 10: after the cause is removed, the next attempt applies the event; the failure
    is cleared and the balances equal the aggregates' and sum to zero."""
    poison(store, store_settings.store)
    a_stream_with_a_poisoned_event(ledger)
    runner = Projections(ledger, store, page=5)
    runner.failures = Failures(store, first=0.05)  # the next attempt is due soon
    runner.catch_up()
    assert [f.model for f in failures(store)] == ["balances"]

    cure(store, store_settings.store)
    while not runner.failures.due("balances"):
        time.sleep(0.01)
    runner.catch_up()

    assert failures(store) == []
    assert runner.lags() == {m.name: 0 for m in runner.models}
    assert runner.position(runner.models[0]) == head(ledger)
    assert same_balances(read_balances(store), aggregate_balances(ledger))
    assert sum(read_balances(store).values()) == 0
