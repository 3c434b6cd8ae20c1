"""R11.4 nothing recorded is changed: whoever can write the store cannot change, insert or
delete an event, a snapshot or a token record without `pontoon verify` naming the aggregate
and the version touched (issue 10, point 6), on both stores. The SQL here is what a
dishonest DBA would run. Each test runs twice: verify in one process, and verify sharing the
log with its helper process, as `pontoon verify` does on a long log."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest

from application import Ledger
from application.store import build_ledger
from config import Settings
from domain.aggregates import Account, DealAggregate, TableAggregate, Token
from domain.aggregates import token_id as token_aggregate_id
from domain.integrity import Checkpoint
from projections.runner import Projections
from projections.store import read_store
from tests.integration.ledger_views import notifications, topic
from tests.integration.projection_session import Session, play_session, rewrite_event
from tests.integration.tampering import (
    delete_event,
    execute,
    recompute_every_hash,
    rewrite_snapshot,
)
from verification.verify import Report, verify


@dataclass
class Club:
    settings: Settings
    ledger: Ledger
    session: Session
    operator: str  # an operator's bearer token
    helped: bool  # verify shares the log with its helper process

    @property
    def ann(self) -> UUID:
        return UUID(self.session.ids["Ann"])

    def version(self, aggregate_id: UUID) -> int:
        return int(self.ledger.repository.get(aggregate_id).version)

    def event(self, event_class: type, aggregate_id: UUID | None = None, *,
              last: bool = True) -> Any:
        found = [n for n in notifications(self.ledger, topics=[topic(event_class)])
                 if aggregate_id is None or n.originator_id == aggregate_id]
        return found[-1] if last else found[0]

    def catch_up_read_models(self) -> Any:
        store = read_store(self.ledger, self.settings)
        assert store is not None
        Projections(self.ledger, store).catch_up()
        return store


@pytest.fixture(params=[False, True], ids=["one process", "helped"])
def club(request: pytest.FixtureRequest, store_settings: Settings, ledger: Ledger) -> Club:
    """The projection tests' club night, an operator's token, and a last buy-in of 40 to
    Ann (her account's newest entry and the treasury's)."""
    session = play_session(ledger)
    operator = str(ledger.create_token("operator").result["token"])
    ledger.buy_in(session.ids["Ann"], 40)
    return Club(store_settings, ledger, session, operator, helped=request.param)


def named_in_one_failure(report: Report, aggregate_id: UUID, version: int) -> bool:
    return any(str(aggregate_id) in failure and f"version {version}" in failure
               for failure in report.failures)


def checked(club: Club, *, store: Any = None, checkpoint: Checkpoint | None = None) -> Report:
    if club.helped:
        return verify(club.ledger, store=store, checkpoint=checkpoint, helper_from=0,
                      reopen=functools.partial(build_ledger, club.settings))
    return verify(club.ledger, store=store, checkpoint=checkpoint)


# --- what point 6 lists, each named by aggregate and version ------------------------------

Tamper = Callable[[Club], list[tuple[UUID, int]]]  # does it; returns what must be named


def token_role_raised(club: Club) -> list[tuple[UUID, int]]:
    """An operator's token made a treasurer's: it could then issue treasurer tokens."""
    token = token_aggregate_id(hashlib.sha256(club.operator.encode()).hexdigest())
    rewrite_event(club.settings, club.event(Token.Issued, token),
                  lambda state: state.update(role="treasurer"))
    found = club.ledger.principal(club.operator)
    assert found is not None and found.role == "treasurer"  # the threat is real
    return [(token, 1)]


def snapshot_balance_raised(club: Club) -> list[tuple[UUID, int]]:
    """Ann's latest snapshot says 1,000,000: the ledger believes it, and lets her cash out
    500,000."""
    club.ledger.take_snapshot(club.ann)
    version = rewrite_snapshot(club.settings, club.ann,
                               lambda state: state.update(balance=1_000_000))
    club.ledger.cache.clear()  # as a process that has not read Ann's account yet
    club.ledger.cash_out(str(club.ann), 500_000)
    assert club.ledger.player_account(str(club.ann)).balance == 500_000
    return [(club.ann, version)]


# A buy-in is one row: the player's entry. The treasury keeps no entries of its own (its
# side of a posting is its counterpart's entry), so the "two rows" are one here.

def last_buy_in_raised_consistently(club: Club) -> list[tuple[UUID, int]]:
    """The last buy-in 1,000 more, every balance still adding up to 0 (the treasury's is
    derived from it)."""
    credit = club.event(Account.Credited, club.ann)
    rewrite_event(club.settings, credit, lambda s: s.update(
        amount=s["amount"] + 1000, balance_after=s["balance_after"] + 1000))
    return [(club.ann, credit.originator_version)]


def last_buy_in_deleted_keeping_hashes(club: Club) -> list[tuple[UUID, int]]:
    version = club.version(club.ann)
    delete_event(club.settings, club.ann, version, with_hash=False)
    return [(club.ann, version)]


def earlier_buy_in_deleted(club: Club) -> list[tuple[UUID, int]]:
    """A buy-in deleted with its hashes, Ann's cash-out after it left in place."""
    club.ledger.cash_out(str(club.ann), 10)
    club.ledger.take_snapshot(club.ann)  # its replay now stops at the gap
    version = club.version(club.ann) - 1
    delete_event(club.settings, club.ann, version)
    return [(club.ann, version + 1)]  # the cash-out: the version before it is missing


def deal_event_field(field: str, value: Any) -> Tamper:
    def tamper(club: Club) -> list[tuple[UUID, int]]:
        event = club.event(DealAggregate.CardDealt, UUID(club.session.deals[1]), last=False)
        rewrite_event(club.settings, event, lambda state: state.update({field: value}))
        return [(event.originator_id, event.originator_version)]
    return tamper


def entry_field(field: str, value: str) -> Tamper:
    def tamper(club: Club) -> list[tuple[UUID, int]]:
        event = club.event(Account.Credited, club.ann, last=False)
        rewrite_event(club.settings, event, lambda state: state.update({field: value}))
        return [(event.originator_id, event.originator_version)]
    return tamper


def revealed_seed(club: Club) -> list[tuple[UUID, int]]:
    shuffles = [n for n in notifications(club.ledger, topics=[topic(TableAggregate.PackShuffled)])
                if b'"revealed_seed":"' in n.state]
    event = shuffles[-1]

    def change(state: dict[str, Any]) -> None:
        state["fact"]["revealed_seed"] = "00" * 32
    rewrite_event(club.settings, event, change)
    return [(event.originator_id, event.originator_version)]


def unreadable_state(club: Club) -> list[tuple[UUID, int]]:
    """An event's bytes replaced by something that is not an event at all: verify names it
    and goes on checking the rest."""
    event = club.event(DealAggregate.DealSettled, UUID(club.session.deals[0]))
    execute(club.settings, "UPDATE {events} SET state = %s WHERE originator_id = %s AND "
            "originator_version = %s", (b"\x00not json", event.originator_id,
                                        event.originator_version))
    return [(event.originator_id, event.originator_version)]


TAMPERS: dict[str, Tamper] = {
    "a token's role changed from operator to treasurer": token_role_raised,
    "a player's latest snapshot balance set to 1,000,000": snapshot_balance_raised,
    "the last buy-in raised by 1,000 consistently": last_buy_in_raised_consistently,
    "the last buy-in deleted, its hash left": last_buy_in_deleted_keeping_hashes,
    "an earlier buy-in deleted with its hash": earlier_buy_in_deleted,
    "a deal event's actor": deal_event_field("actor", "treasurer:someone-else"),
    "a deal event's timestamp": deal_event_field("timestamp", "2020-01-01T00:00:00+00:00"),
    "an account entry's rule": entry_field("rule", "R9.9"),
    "an account entry's reason": entry_field("reason", "a gift from the treasurer"),
    "a revealed seed": revealed_seed,
    "an event's bytes replaced by garbage": unreadable_state,
}


def test_an_untouched_store_verifies_with_its_chains_and_snapshots(club: Club) -> None:
    """R11.4: the chains of an honest store recompute exactly; every snapshot equals its
    replay; the checkpoint verify reports is the one the store records."""
    club.ledger.take_snapshot(club.ann)
    store = club.catch_up_read_models()

    report = checked(club, store=store)

    assert report.ok, report.failures
    assert report.chained and report.snapshots >= 1
    assert report.checkpoint is not None
    assert str(report.checkpoint) == str(club.ledger.recorder.checkpoint())


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_tampering_with_the_store_is_named_by_aggregate_and_version(club: Club,
                                                                    tamper: str) -> None:
    """R11.4: each tampering of issue 10 point 6, done in SQL on the store, is caught by
    verify with a message naming the aggregate and the version touched."""
    touched = TAMPERS[tamper](club)

    report = checked(club)

    assert not report.ok
    for aggregate_id, version in touched:
        assert named_in_one_failure(report, aggregate_id, version), report.failures


def test_the_newest_events_deleted_with_their_hashes_are_witnessed_by_the_read_models(
        club: Club) -> None:
    """R11.4: the last buy-in deleted, hashes and all: the statements still show Ann's
    entry beyond the end of the log, named by account and version."""
    store = club.catch_up_read_models()
    version = club.version(club.ann)
    delete_event(club.settings, club.ann, version)

    report = checked(club, store=store)

    assert not report.ok
    assert any(f"player:{club.ann}" in failure and f"version {version}" in failure
               for failure in report.failures), report.failures


def test_a_checkpoint_kept_outside_catches_the_newest_events_deleted(club: Club) -> None:
    """R11.4: with no read model to witness it, deleting the newest events and their
    hashes leaves a consistent log; the checkpoint taken before shows it is not the log
    that was sealed."""
    sealed = club.ledger.recorder.checkpoint()
    assert checked(club, checkpoint=sealed).ok
    delete_event(club.settings, club.ann, club.version(club.ann))

    plain, against = checked(club), checked(club, checkpoint=sealed)

    assert plain.ok  # what a hash chain alone cannot see
    assert not against.ok
    assert any(str(sealed) in f and "deleted" in f for f in against.failures), \
        against.failures


def test_a_rewritten_history_with_recomputed_hashes_fails_its_checkpoint(club: Club) -> None:
    """R11.4: an intruder who rewrites an entry and recomputes every hash passes the chain
    checks (anyone with write access can), but not a checkpoint kept outside."""
    sealed = club.ledger.recorder.checkpoint()
    rewrite_event(club.settings, club.event(Account.Credited, club.ann, last=False),
                  lambda state: state.update(reason="a quiet rewrite"))
    recompute_every_hash(club.settings)

    plain, against = checked(club), checked(club, checkpoint=sealed)

    assert plain.ok
    assert any(f"checkpoint {sealed}" in failure for failure in against.failures)
