"""What must hold of a Ledger after any command, accepted or refused, checked from the
store itself: the stateful random tests (test_stateful_ledger.py) run these after every
command they send.

The figures come from the log (tests/ledger_club.py `Recorded`), the aggregates as the
store rebuilds them, the process's cache, and the read models once caught up; the rules
say what they must be. Nothing here asks the Ledger to check itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

from application import Ledger, Outcome
from domain.aggregates import Account, TableAggregate
from domain.engine.deal import Deal
from domain.engine.deal_state import DealState
from domain.engine.table import Table
from domain.engine.verification import verify_deal
from projections.runner import Projections
from projections.statements import statement
from projections.store import ReadStore
from tests.integration.ledger_views import deal_picture, table_picture
from tests.integration.projection_session import read_balances, same_balances
from tests.ledger_club import Recorded

# RULES.md: the postings that spend a player's own chips, which never overdraw (R11.2):
# stakes (R3.5), buys (R4.3), split stakes (R5.1), shoot bets (R9.3, R9.5, R9.6), kitties
# (R9.1, R9.9), the price of the bank (R8.2, R9.10) and cash-outs (R11.1). Only settling
# may leave a debt (R11.3), and a correction whose resolution allows one (R11.4).
SPENDING = frozenset({"R3.5", "R4.3", "R5.1", "R9.3", "R9.5", "R9.6", "R9.1", "R9.9",
                      "R8.2", "R9.10", "R11.1"})
DEBT_ALLOWED = "the resolution allows a debt (R11.3)"  # domain/engine/postings.py's words


class OftenSnapshotted(Ledger):
    """The Ledger with a snapshot every 5 versions of a table or an account, not every 100,
    so that reads from a snapshot happen in every run (decision 101)."""

    name = "Ledger"  # the library names the store's tables after it
    snapshotting_intervals = {TableAggregate: 5, Account: 5}  # noqa: RUF012


def picture(aggregate: Any) -> dict[str, Any]:
    """An aggregate's whole state as comparable values."""
    # Not state: the events still to save, and the cache's mark on an entry it shares.
    state = {k: v for k, v in vars(aggregate).items()
             if k not in ("_pending_events", "_sealed_by_the_cache")}
    engine = state.pop("engine", None)
    if isinstance(engine, DealState):
        state["engine"] = deal_picture(engine)
    elif isinstance(engine, Table):
        state["engine"] = table_picture(engine)
    return state


def stored_versions(ledger: Ledger, ids: Iterable[UUID]) -> dict[UUID, int | None]:
    """Each aggregate's last version in the store (None: it has no events)."""
    out: dict[UUID, int | None] = {}
    for aggregate_id in ids:
        last = ledger.recorder.select_events(aggregate_id, desc=True, limit=1)
        out[aggregate_id] = last[0].originator_version if last else None
    return out


def replayed(ledger: Ledger, aggregate_id: UUID) -> Any:
    """The aggregate rebuilt from every one of its events, no snapshot."""
    aggregate = None
    for event in ledger.events.get(aggregate_id):
        aggregate = event.mutate(aggregate)
    return aggregate


def check_read_back(ledger: Ledger, aggregate_id: UUID, kept: Any = None) -> None:
    """The aggregate the process keeps (the command's saved one, or the cache's entry)
    equals the store's, read with snapshots (the repository) and without (a replay)."""
    cached = ledger.cache.peek(aggregate_id)
    stored = ledger.repository.get(aggregate_id)
    want = picture(stored)
    assert picture(replayed(ledger, aggregate_id)) == want, \
        f"{aggregate_id}: a replay of its events differs from its snapshot and later events"
    for name, held in (("saved", kept), ("cached", cached)):
        if held is not None:
            assert picture(held) == want, f"{aggregate_id}: the {name} aggregate differs " \
                                          "from the stored one"


def check_total_and_debts(recorded: Recorded, since: int) -> None:
    """R11.1: every balance sums to zero. R11.2, R11.3: an entry that leaves a player below
    zero is a settlement's, or a correction's whose resolution allowed the debt; a kitty
    never goes below zero (R9.2). (The treasury holds minus every chip it issued.)"""
    total = sum(recorded.balances.values())
    assert total == 0, f"the balances sum to {total}"
    for name, entry in recorded.moves[since:]:
        if entry.balance_after >= 0 or name == "treasury":
            continue
        rule, reason = entry.posting.rule, entry.posting.reason
        assert name.startswith("player:"), f"{name} went below zero: {entry}"
        assert entry.change > 0 or rule not in SPENDING, \
            f"{name} spent chips it did not hold: {entry}"
        assert rule != "R11.4" or entry.change > 0 or DEBT_ALLOWED in reason, \
            f"a correction left {name} in debt without allowing it: {entry}"


def check_facts(ledger: Ledger, recorded: Recorded, streams: Iterable[str]) -> None:
    """R11.4, R7.5: each table's and deal's facts replay to the state the Ledger holds,
    and the audit's verification decides every deal's facts again from them."""
    for stream in streams:
        history = recorded.streams[stream]
        if stream in recorded.tables:
            held = ledger.table(stream).engine
            assert Table.replay(history).to_state() == held.to_state(), stream
            continue
        deal = ledger.deal(stream).engine
        assert deal_picture(Deal.replay(history)) == deal_picture(deal), stream
        verified = verify_deal(history)
        assert verified.replayed and verified.chips_conserved, \
            f"deal {stream} ({deal.phase}): {verified.differences}"


def check_read_models(runner: Projections, store: ReadStore, recorded: Recorded,
                      accounts: Sequence[str], since: int) -> None:
    """Once caught up, every read model is at the head; each account holds the balance the
    log says, and each account's statement lists its entries as the log records them."""
    runner.catch_up()
    head = recorded.position
    names = [model.tracking_name for model in runner.models]
    positions = store.positions(names)
    behind = {name: positions.get(name, 0) for name in names if positions.get(name) != head}
    assert not behind, f"read models not at the head {head} after catching up: {behind}"
    assert same_balances(read_balances(store), recorded.balances)
    for account in accounts:
        after = since if account == "treasury" else None  # a long one: its new rows
        rows = statement(store, account, after=after, limit=10**6)
        want = [entry for entry in recorded.entries.get(account, [])
                if after is None or entry.position > after]
        assert [(r["position"], r["posting_id"], r["change"], r["balance_after"], r["rule"],
                 r["reason"], r["from_account"], r["to_account"], r["amount"])
                for r in rows] == [
            (e.position, e.posting_id, e.change, e.balance_after, e.posting.rule,
             e.posting.reason, e.posting.from_account, e.posting.to_account, e.posting.amount)
            for e in want], account


def check_outcome(outcome: Outcome, head: int) -> None:
    """The answer's position is the command's last event, the head of the log."""
    assert outcome.position == head, f"answered position {outcome.position}, head {head}"
