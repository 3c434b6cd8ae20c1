"""`pontoon verify` holds every read model against the log (API.md Additions): a row edited
in the balances, a statement, a kitty history, the disputes, the lists of tables and deals
is named; `pontoon projections rebuild` mends them, and verify passes again. On both
stores, in one process and with verify's helper process."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from application import Ledger
from application.store import build_ledger
from config import Settings
from projections.runner import Projections
from projections.store import ReadStore, read_store
from tests.integration.projection_session import Session, play_session, pontoon
from verification.verify import Report, verify


@pytest.fixture
def session(ledger: Ledger) -> Session:
    return play_session(ledger)


@pytest.fixture
def store(ledger: Ledger, store_settings: Settings, session: Session) -> ReadStore:
    found = read_store(ledger, store_settings)
    assert found is not None
    Projections(ledger, found).catch_up()
    return found


@pytest.fixture(params=[False, True], ids=["one process", "helped"])
def checked(request: pytest.FixtureRequest, ledger: Ledger, store_settings: Settings,
            store: ReadStore) -> Any:
    def run() -> Report:
        if request.param:
            return verify(ledger, store=store, helper_from=0,
                          reopen=functools.partial(build_ledger, store_settings))
        return verify(ledger, store=store)
    return run


def edit(store: ReadStore, sql: str, *params: Any) -> None:
    store.run([(sql, params)])


def newest(store: ReadStore, account: str) -> int:
    rows = store.rows("SELECT MAX(position) AS p FROM postings WHERE account = %s", (account,))
    return int(rows[0]["p"])


def tamper_everywhere(store: ReadStore, s: Session) -> dict[str, str]:
    """The issue's edits, each in SQL on a read model; what a failure must say for each."""
    ann = s.account("Ann")
    edit(store, "UPDATE accounts SET balance = balance + 1000 WHERE account = %s", ann)
    edit(store, "UPDATE accounts SET balance = balance - 1000 WHERE account = 'treasury'")
    edit(store, "UPDATE postings SET change = change + 1000, balance_after = balance_after + "
                "1000 WHERE account = %s AND position = %s", ann, newest(store, ann))
    edit(store, "UPDATE postings SET reason = 'nothing to see' WHERE account = %s AND "
                "position = %s", s.kitty, newest(store, s.kitty))
    edit(store, "UPDATE disputes SET decision = 'upheld' WHERE dispute_id = %s", s.rejected)
    edit(store, "UPDATE tables SET kitty = kitty + 50 WHERE table_id = %s", s.table_id)
    edit(store, "UPDATE deals SET phase = 'void' WHERE deal_id = %s", s.deals[1])
    return {"balances": f"the balances, {ann}: balance",
            "treasury": "the balances, treasury: balance",
            "statement": f"the statement of player {s.ids['Ann']}, the row at position "
                         f"{newest(store, ann)}: change",
            "kitty": f"the kitty history of table {s.table_id}, the row at position "
                     f"{newest(store, s.kitty)}: reason \"nothing to see\"",
            "dispute": f"the disputes, {s.rejected}: decision \"upheld\" where the log gives "
                       "\"rejected\"",
            "table": f"the list of tables, {s.table_id}: kitty",
            "deal": f"the list of deals, {s.deals[1]}: phase \"void\" where the log gives "
                    "\"settled\""}


def test_an_honest_stores_read_models_are_held_to_the_log_and_pass(checked: Any) -> None:
    report = checked()

    assert report.ok, report.failures


def test_edited_read_models_are_each_named_and_a_rebuild_mends_them(
        checked: Any, ledger: Ledger, store: ReadStore, session: Session) -> None:
    """Issue 24: Ann +1,000 and the treasury -1,000 (the total stays 0), her newest
    statement row, a kitty history row, a dispute, a table and a deal: every verify passed
    before, and /v1/balances served the edit."""
    said = tamper_everywhere(store, session)

    report = checked()

    assert not report.ok
    for what, words in said.items():
        assert any(words in failure for failure in report.failures), (what, report.failures)
    assert all("pontoon projections rebuild" in failure for failure in report.failures)
    Projections(ledger, store).rebuild()
    assert checked().ok


def test_a_row_deleted_or_added_is_named(checked: Any, store: ReadStore,
                                         session: Session) -> None:
    ann = session.account("Ann")
    gone = newest(store, ann)
    edit(store, "DELETE FROM postings WHERE account = %s AND position = %s", ann, gone)
    edit(store, "DELETE FROM deals WHERE deal_id = %s", session.deals[0])
    edit(store, "INSERT INTO disputes (dispute_id, deal_id, raised_by, reason, status, "
                "raised_at, raised_position) VALUES ('forged', %s, 'x', 'y', 'open', 'z', 1)",
         session.deals[0])

    failures = " | ".join(checked().failures)

    assert f"has no row for the entry at position {gone}" in failures
    assert f"the list of deals has no row for {session.deals[0]}" in failures
    assert "the disputes has a row for forged that no event of the log gives" in failures


def test_a_read_model_short_of_the_log_is_named_not_vouched_for(
        ledger: Ledger, store: ReadStore) -> None:
    head = ledger.recorder.max_notification_id()
    edit(store, "UPDATE tracking SET notification_id = notification_id - 3 WHERE "
                "application_name = 'Ledger:tables'")

    report = verify(ledger, store=store)

    assert any(f"the read model tables has applied the log up to position {head - 3}, not "
               f"to {head}" in failure for failure in report.failures), report.failures


def test_the_command_names_each_difference_and_rebuild_mends_them(
        store_settings: Settings, store: ReadStore, session: Session, tmp_path: Path) -> None:
    said = tamper_everywhere(store, session)

    failed = pontoon(store_settings, "verify", cwd=tmp_path)
    rebuilt = pontoon(store_settings, "projections", "rebuild", cwd=tmp_path)
    passed = pontoon(store_settings, "verify", cwd=tmp_path)

    assert failed.returncode == 1, failed.stdout + failed.stderr
    for words in said.values():
        assert words in " ".join(failed.stdout.split()), (words, failed.stdout)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert passed.returncode == 0, passed.stdout + passed.stderr
