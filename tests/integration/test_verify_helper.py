"""`pontoon verify` on a long log shares the work with a helper process that opens the
store again (verification/aside.py). What it checks is tested with and without it
(tests/integration/test_tamper_evidence.py); here, that a helper which reads something
else, or cannot run at all, can never let verify pass (R11.4)."""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from uuid import UUID

from application import Ledger
from application.store import build_ledger, migrate
from config import Settings
from domain.aggregates import Account
from tests.integration.ledger_views import notifications, topic
from tests.integration.projection_session import play_session, rewrite_event
from verification.aside import aside, is_deal_event
from verification.verify import verify


def test_the_helper_gives_the_same_report_as_one_process(store_settings, ledger):
    """R11.4: the same deals, events, checkpoint and verdict either way, and the progress
    reaches the head of the log."""
    play_session(ledger)
    seen: list[tuple[int, int]] = []

    alone = verify(ledger)
    shared = verify(ledger, lambda position, head: seen.append((position, head)),
                    reopen=functools.partial(build_ledger, store_settings), helper_from=0)

    assert alone.ok and shared.ok, (alone.failures, shared.failures)
    assert (shared.deals, shared.events, shared.accounts, shared.seeds) == \
        (alone.deals, alone.events, alone.accounts, alone.seeds)
    assert str(shared.checkpoint) == str(alone.checkpoint)
    head = ledger.recorder.max_notification_id()
    assert seen and seen[-1] == (head, head)
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)


def test_a_helper_that_reads_another_store_fails_verify(store_settings, ledger, tmp_path):
    """R11.4: a helper that read an empty store read no event and checked no hash: verify
    says so instead of passing."""
    play_session(ledger)
    other = Settings(database_url=f"sqlite:///{tmp_path}/other.sqlite3")
    migrate(other)
    session_deals = verify(ledger).deals

    report = verify(ledger, reopen=functools.partial(build_ledger, other), helper_from=0)

    assert not report.ok
    assert report.deals == session_deals
    head = ledger.recorder.max_notification_id()
    assert any(f"helper process read 0 events up to position 0 where this process read "
               f"{head} up to {head}" in failure for failure in report.failures), \
        report.failures


def no_store() -> Ledger:
    raise ConnectionError("the store is unreachable from here")


def test_a_helper_that_cannot_open_the_store_fails_verify(ledger):
    """R11.4: nothing the helper was to check counts as checked when it could not run."""
    play_session(ledger)

    report = verify(ledger, reopen=no_store, helper_from=0)

    assert not report.ok
    assert any("could not finish (ConnectionError: the store is unreachable from here)"
               in failure and "unchecked" in failure for failure in report.failures), \
        report.failures
    assert report.checkpoint is None  # the chain was the helper's to check


def test_a_short_log_is_verified_in_one_process(store_settings, ledger, tmp_path):
    """Below `helper_from` events no helper is started: a reopen that would fail is never
    called."""
    play_session(ledger)

    assert verify(ledger, reopen=no_store).ok


def test_deals_are_set_aside_by_their_ids_alone():
    """Both processes decide from the id, so they agree without speaking."""
    assert aside(UUID(int=0)) and not aside(UUID(int=15))
    assert [aside(UUID(int=n), 4) for n in range(6)] == [True] * 4 + [False] * 2


def test_a_helper_that_read_other_bytes_fails_verify(tmp_path):
    """R11.4: the helper reads a copy of the store in which one entry's reason differs:
    the same events at the same positions, other bytes. The two reads' digests differ, so
    verify fails instead of vouching for bytes the main process never checked (as when a
    row is changed between the two processes' reads)."""
    settings = Settings(database_url=f"sqlite:///{tmp_path}/ledger.sqlite3")
    migrate(settings)
    ledger = build_ledger(settings)
    try:
        play_session(ledger)
        copy = Settings(database_url=f"sqlite:///{tmp_path}/copy.sqlite3")
        with contextlib.closing(sqlite3.connect(settings.sqlite_path)) as source, \
                contextlib.closing(sqlite3.connect(copy.sqlite_path)) as target:
            source.backup(target)  # the log's pages still in the WAL file too
        entry = notifications(ledger, topics=[topic(Account.Credited)])[0]
        rewrite_event(copy, entry, lambda state: state.update(reason="a quiet rewrite"))

        report = verify(ledger, reopen=functools.partial(build_ledger, copy), helper_from=0)
    finally:
        ledger.close()

    assert not report.ok
    assert any("read different rows or bytes" in failure for failure in report.failures), \
        report.failures


def test_a_deal_event_under_another_spelling_of_its_topic_is_still_a_deal_event():
    """R11.4: the library resolves any import path to the class; the helper must count an
    event as a deal's whenever it decodes to one, as the main process does, or a deal event
    stored under an alias would be replayed by neither."""
    assert is_deal_event("domain.aggregates:DealAggregate.CardDealt")
    assert is_deal_event("domain:aggregates.DealAggregate.CardDealt")
    assert is_deal_event("domain.aggregates:DealAggregate.DealStarted")
    assert not is_deal_event("domain.aggregates:Account.Credited")
    assert not is_deal_event("no.such.module:Nothing")
