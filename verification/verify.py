"""`pontoon verify`: re-check everything from the event store, the source of truth.

- every deal decides again to exactly its recorded events (domain.engine.verification);
- chips are conserved: each account's entries chain (balance after = before + change), each
  deal's postings match the accounts' entries one for one, and all balances sum to zero;
- every seed matches its commitment, every contribution was made in its pack's window, and
  every deal started from the pack its table's shuffles, the players' contributions and
  earlier deals give, so the seed reproduces every card dealt (R1.7; verify_packs.py);
- nothing recorded was changed, inserted or deleted (R11.4): both hash chains, every
  snapshot against its events, a checkpoint kept outside the database, and the read models
  as witnesses of deleted events (verification/integrity.py); the Merkle log against the
  chain, and a signed checkpoint's root against the log (verification/tree.py);
- every read model says what the log gives (verification/models.py).

On a long log a helper process takes the hash chains, the snapshots and 6/16 of the
deals' replays (verification/aside.py), so both cores work.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from domain.aggregates import Account, DealAggregate, TableAggregate
from domain.aggregates import posting_id as make_posting_id
from domain.engine import facts as f
from domain.engine.postings import TREASURY
from domain.engine.verification import verify_deal
from domain.errors import of_kind
from domain.integrity import Checkpoint
from projections.base import EventLog
from projections.collector import without_cyclic_collection
from projections.decoding import Decoder
from projections.notes import Checkpoint as SignedCheckpoint
from projections.store import ReadStore
from verification.aside import FAILURES_MAX, Helper, aside, fold, replay_finished
from verification.integrity import Chain, Snapshots, checked_pages, named, witnesses
from verification.models import Expected, held
from verification.packs import PackChecks
from verification.tree import check_tree

Progress = Callable[[int, int], None]
# From this many events a helper process shares the work: below, starting it (a fresh
# interpreter that opens the store, about half a second) costs more than it saves.
HELPER_FROM = 60_000


@dataclass
class Report:
    deals: int = 0
    events: int = 0
    accounts: int = 0
    seeds: int = 0
    snapshots: int = 0
    chained: bool = False  # the store keeps hash chains (not the in-memory store)
    checkpoint: Checkpoint | None = None  # the log as verified, sealed
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, message: str) -> None:
        if len(self.failures) < FAILURES_MAX:
            self.failures.append(message)


def verify(ledger: EventLog, progress: Progress | None = None, page: int = 2000, *,
           checkpoint: Checkpoint | None = None, store: ReadStore | None = None,
           reopen: Callable[[], EventLog] | None = None,
           helper_from: int = HELPER_FROM, signed: SignedCheckpoint | None = None) -> Report:
    """Everything above, in one pass over the log; `checkpoint`: one kept outside the
    database, that the log must still extend; `store`: the read models, as witnesses;
    `reopen`: opens the same store again (picklable: it runs in the helper process), for
    a log of at least `helper_from` events; `signed`: a signed checkpoint (its signature
    checked already) whose root the log must give at its size."""
    report = Report()
    recorder = ledger.recorder
    head = recorder.max_notification_id() or 0
    report.chained = hasattr(recorder, "select_hashes")
    helper = Helper(reopen, head, page, checkpoint, report.chained) \
        if reopen is not None and head and head >= helper_from else None
    expected = Expected() if store is not None else None
    try:
        with without_cyclic_collection():
            _pass(ledger, head, page, checkpoint, report, helper, progress, expected)
    finally:
        if helper is not None:
            helper.stop()
    if store is not None:
        witnesses(store, head, lambda: recorder.max_notification_id() or 0, report.fail)
    if store is not None and expected is not None:
        held(store, expected, head, report.fail)
    if report.chained and (store is not None or signed is not None):
        check_tree(recorder, store, head, signed, report.fail)
    return report


def _pass(ledger: EventLog, head: int, page: int, checkpoint: Checkpoint | None,
          report: Report, helper: Helper | None, progress: Progress | None,
          expected: Expected | None = None) -> None:
    recorder = ledger.recorder
    chain = Chain(report.fail, checkpoint) if report.chained and helper is None else None
    snapshots = Snapshots(recorder.select_snapshots() if report.chained and helper is None
                          else [], ledger.mapper, report.fail)
    state = _Replay(PackChecks(report.fail), share=helper.share if helper else None)
    decode = Decoder(ledger.mapper)
    if expected is not None:  # the read models' rows, noted from the same decoded events
        decode = expected.noting(decode)  # type: ignore[assignment]
    digest = hashlib.sha256()
    after = 0
    for notes in checked_pages(recorder, head, page, chain):
        if helper is not None:
            fold(digest, notes)
        for note in notes:
            report.events += 1
            _check(decode, note, report, state, snapshots)
        after = notes[-1].id
        if progress:
            progress(min(after, helper.position.value) if helper else after, head)
    if chain is not None:
        report.checkpoint = chain.finish()
    snapshots.finish()
    report.snapshots = snapshots.checked
    if helper is not None:
        _helped(report, helper, state.aside, after, head, progress, digest.digest())
    state.finish(report)


def _helped(report: Report, helper: Helper, due: int, after: int, head: int,
            progress: Progress | None, digest: bytes) -> None:
    """The helper's failures first (the hash chains name a change where it was made), then
    this process's; a helper that could not finish fails verify. Its checkpoint and
    snapshots are the report's."""
    def told(position: int) -> None:
        if progress:
            progress(min(after, position), head)

    outcome = helper.wait(told)
    told(helper.position.value)
    if outcome.error is not None:
        report.fail(f"verify's helper process could not finish ({outcome.error}): the hash "
                    f"chains, the snapshots and {due} deals' replays are unchecked (R11.4)")
        return
    report.failures[:0] = outcome.failures
    del report.failures[FAILURES_MAX:]
    report.checkpoint = outcome.checkpoint
    report.snapshots = outcome.snapshots
    if (outcome.events, outcome.position) != (report.events, after):
        report.fail(f"verify's helper process read {outcome.events} events up to position "
                    f"{outcome.position} where this process read {report.events} up to "
                    f"{after}: its checks do not cover this log (R11.4)")
    elif outcome.digest != digest:
        report.fail("verify's helper process and this one read different rows or bytes up "
                    f"to position {after}: the log was changed while verify ran (run it "
                    "again) or the helper read another store (R11.4)")
    if outcome.replayed != due:
        report.fail(f"verify's helper process replayed {outcome.replayed} finished deals "
                    f"where {due} were left to it (R11.4)")


def _check(decode: Decoder, note: Any, report: Report, state: _Replay,
           snapshots: Snapshots) -> None:
    """One event's domain checks; an event tampered beyond reading is named, not fatal."""
    try:
        event = decode(note)
        state.event(event, report)
    except Exception as error:  # noqa: BLE001 (verify reports; it never stops halfway)
        report.fail(f"{named(note.topic, note.originator_id)} version "
                    f"{note.originator_version} at position {note.id} cannot be read or "
                    f"replayed: {type(error).__name__}: {error} (R11.4)")
        return
    snapshots.event(event)


@dataclass
class _Replay:
    """What the pass over the log keeps to check deals, chips and seeds."""

    packs: PackChecks
    # By the deal id's int (a UUID hashes in Python, an int in C: a million deal events).
    open_deals: dict[int, list[f.Fact]] = field(default_factory=dict)
    balances: dict[str, int] = field(default_factory=dict)
    # The treasury's balance is derived from its counterparts' entries (application/base.py
    # `_post`); a store written before that also holds the treasury's own entries, which
    # must chain and end where its counterparts' entries of the same postings do (the
    # postings since have none).
    treasury_own: dict[str, int] = field(default_factory=dict)
    treasury_sides: dict[str, int] = field(default_factory=dict)  # by posting: its change
    treasury_owned: list[str] = field(default_factory=list)  # postings with its own entry
    entries: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)  # by posting
    deal_postings: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    share: int | None = None  # with a helper: it replays the finished deals `aside`
    aside: int = 0  # finished deals left to the helper
    kinds: dict[type, str] = field(default_factory=dict)  # each event class's, found once

    def event(self, event: Any, report: Report) -> None:
        kind = self.kinds.get(type(event))
        if kind is None:  # a few dozen classes, millions of events
            kind = self.kinds[type(event)] = _kind(event)
        if kind == "deal":
            _deal_event(event, report, self)
        elif kind == "table":
            self.packs.table_fact(str(event.originator_id),
                                  f.Fact.from_dict(type(event).__name__, event.fact))
            _carried(event, self.deal_postings)
        elif kind == "opened":
            report.accounts += 1
            # An old store's treasury opens after its first counterpart's entry, whose
            # chips the derived balance already counts: opening must not forget them.
            self.balances.setdefault(_account_name(event), 0)
        elif kind == "entry":
            treasurys = _account_name_of_entry(event) == TREASURY
            _entry(event, report, self.treasury_own if treasurys else self.balances,
                   self.entries)
            if treasurys:
                self.treasury_owned.append(event.posting_id)
            counterpart = event.from_account if isinstance(event, Account.Credited) \
                else event.to_account
            if counterpart == TREASURY and not treasurys:
                change = event.amount if isinstance(event, Account.Credited) else -event.amount
                self.balances[TREASURY] = self.balances.get(TREASURY, 0) - change
                self.treasury_sides[event.posting_id] = -change

    def finish(self, report: Report) -> None:
        report.seeds = self.packs.seeds
        for key, history in self.open_deals.items():  # deals still in play replay so far
            deal_id = UUID(int=key)
            result = verify_deal(history)
            if not result.replayed:
                report.fail(f"deal {deal_id} (in play) does not replay to its recorded "
                            f"events: {'; '.join(result.differences[:2])}")
        _check_postings(report, self.deal_postings, self.entries)
        escrows = sum(_escrow_balance(facts) for facts in self.open_deals.values())
        total = sum(self.balances.values()) + escrows
        if total != 0:
            report.fail(f"all balances and open deals' stakes sum to {total}, not 0 (R11.1)")
        own = self.treasury_own.get(TREASURY)
        derived = sum(self.treasury_sides.get(p, 0) for p in self.treasury_owned)
        if own is not None and own != derived:
            report.fail(f"the treasury's own entries end at {own}, its counterparts' entries of "
                        f"those postings give {derived} (R11.1)")


def _kind(event: Any) -> str:
    """Which of `_Replay.event`'s checks an event of this class takes."""
    if isinstance(event, DealAggregate.Event | DealAggregate.DealStarted):
        return "deal"
    if isinstance(event, TableAggregate.Event | TableAggregate.TableOpened):
        return "table"
    if isinstance(event, Account.Opened):
        return "opened"
    if isinstance(event, Account.Credited | Account.Debited):
        return "entry"
    return "other"


def _deal_event(event: Any, report: Report, state: _Replay) -> None:
    key = event.originator_id.int
    fact = f.Fact.from_dict(type(event).__name__, event.fact)
    history = state.open_deals.setdefault(key, [])
    history.append(fact)
    _carried(event, state.deal_postings)
    if isinstance(fact, f.DealStarted):
        state.packs.deal_started(str(event.originator_id), fact)
    if isinstance(fact, f.DealSettled | f.DealVoided):
        report.deals += 1
        state.open_deals.pop(key)
        if state.share is not None and aside(event.originator_id, state.share):
            state.aside += 1
        else:
            replay_finished(event.originator_id, history, report.fail)


def _carried(event: Any, postings: dict[str, tuple[str, str, int]]) -> None:
    """The postings a deal's or a table's event carries, by the ids accounts know them by."""
    data = event.fact
    carried = [data["posting"]] if data.get("posting") else data.get("postings", [])
    for index, p in enumerate(carried):
        postings[make_posting_id(event.originator_id, event.originator_version, index)] = \
            (p["from_account"], p["to_account"], p["amount"])


def _entry(event: Any, report: Report, balances: dict[str, int],
           entries: dict[str, list[tuple[str, str, int]]]) -> None:
    credit = isinstance(event, Account.Credited)
    account = event.to_account if credit else event.from_account
    before = balances.get(account, 0)
    change = event.amount if credit else -event.amount
    if event.amount <= 0 or event.balance_after != before + change:
        report.fail(f"{account}: entry at version {event.originator_version} says "
                    f"{event.balance_after} after {before} {change:+d} (R11.1)")
    balances[account] = event.balance_after
    entries.setdefault(event.posting_id, []).append(
        (event.from_account, event.to_account, event.amount))


def _check_postings(report: Report, deal_postings: dict[str, tuple[str, str, int]],
                    entries: dict[str, list[tuple[str, str, int]]]) -> None:
    """Each posting touching an account appears on it, the same, exactly once a side."""
    for posting_id, posting in deal_postings.items():
        sides = sum(1 for name in posting[:2] if not name.startswith("escrow:"))
        seen = entries.get(posting_id, [])
        if len(seen) != sides or any(entry != posting for entry in seen):
            report.fail(f"posting {posting_id} {posting} does not match its account entries "
                        f"{seen} (R11.1)")
    for posting_id, seen in entries.items():
        if len(seen) not in (1, 2) or len(set(seen)) != 1:
            report.fail(f"posting {posting_id}: its entries disagree {seen} (R11.1)")


def _escrow_balance(history: list[f.Fact]) -> int:
    opened = of_kind(history[0], f.DealStarted, "a deal's opening fact")
    escrow = f"escrow:{opened.deal_id}"
    total = 0
    for fact in history:
        for p in fact.carried_postings():
            total += p.amount if p.to_account == escrow else 0
            total -= p.amount if p.from_account == escrow else 0
    return total


def _account_name_of_entry(event: Any) -> str:
    return str(event.to_account if isinstance(event, Account.Credited) else event.from_account)


def _account_name(event: Any) -> str:
    return "treasury" if event.kind == "treasury" else f"{event.kind}:{event.owner}"
