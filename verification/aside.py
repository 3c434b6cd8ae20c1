"""The second process of `pontoon verify`, on a log long enough to be worth one.

Verify is sequential Python: one core does it all. A helper process, spawned afresh, opens
the same store, reads the same log up to the same head, and takes three shares of the work:
both hash chains (and the checkpoint), every snapshot against a replay of its aggregate,
and the replays by the rules of the finished deals whose id falls `aside`. The main
process does the rest: decoding every event, chips, seeds, packs, postings, and the other
deals. The two agree on which deals are aside by their ids alone. The main process holds
the helper's counts to its own (the events read, the last position, the finished deals it
left aside) and a digest of every page either read, so a helper that read something else,
rows changed between the two reads, or a skipped deal cannot pass unseen.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.utils import resolve_topic

from domain.aggregates import DealAggregate
from domain.engine import facts as f
from domain.engine.verification import verify_deal
from domain.integrity import Checkpoint
from projections.base import EventLog
from projections.collector import without_cyclic_collection
from projections.decoding import Decoder
from verification.integrity import Chain, Snapshots, checked_pages

Fail = Callable[[str], None]
# Sixteenths of the finished deals the helper replays: with the chains and snapshots, 6/16
# of the replays gives each process about the same work (measured on a year of simulated
# play, a deal of about 55 events: decisions.md 88, 117).
SHARE = 6
FAILURES_MAX = 1000  # the most failures a report keeps (either process's)


def aside(deal_id: UUID, share: int = SHARE) -> bool:
    """Whether the helper, not the main process, replays this deal by the rules."""
    return deal_id.int % 16 < share


def replay_finished(deal_id: UUID, history: list[f.Fact], fail: Fail) -> None:
    """A finished deal decided again by the rules, to exactly its recorded events."""
    try:
        result = verify_deal(history)
    except Exception as error:  # noqa: BLE001 (verify reports; it never stops halfway)
        fail(f"deal {deal_id} cannot be replayed by the rules: {type(error).__name__}: "
             f"{error} (R11.4)")
        return
    if not result.replayed:
        fail(f"deal {deal_id} does not replay to its recorded events: "
             f"{'; '.join(result.differences[:2])}")
    if not result.chips_conserved:
        fail(f"deal {deal_id} does not conserve chips (R11.1)")


def is_deal_event(topic: str) -> bool:
    """Whether events of this topic decode to a deal's event, as the main process decides
    from the decoded event: any spelling of the topic that resolves to the class counts."""
    try:
        cls = resolve_topic(topic)
    except Exception:  # noqa: BLE001 (an event that cannot be read: the main process names it)
        return False
    return isinstance(cls, type) and issubclass(cls, DealAggregate.Event
                                                | DealAggregate.DealStarted)


def fold(digest: Any, notes: Sequence[Any]) -> None:
    """What one page read holds, folded into `digest`. The two processes compare theirs,
    so both checked the same rows and bytes: one changed between their reads fails verify."""
    try:
        digest.update(b"".join([note.state for note in notes]))
    except TypeError:  # SQLite hands back text where an intruder stored text
        digest.update(b"".join([note.state if isinstance(note.state, bytes)
                                else str(note.state).encode() for note in notes]))
    digest.update("\0".join([note.topic for note in notes]).encode())
    # Positions, versions and ids as machine words and bytes (a 128-bit int's repr is slow);
    # a row an intruder wrote text into is folded as text.
    try:
        digest.update(array("q", [note.id for note in notes]).tobytes())
        digest.update(array("q", [note.originator_version for note in notes]).tobytes())
        digest.update(b"".join([note.originator_id.bytes for note in notes]))
    except (TypeError, OverflowError, AttributeError):
        digest.update(repr([(note.id, note.originator_version, str(note.originator_id))
                            for note in notes]).encode())


@dataclass
class Outcome:
    """What the helper sends back."""

    failures: list[str] = field(default_factory=list)
    checkpoint: Checkpoint | None = None
    events: int = 0  # read, up to `position`
    position: int = 0
    digest: bytes = b""  # of every page read (`fold`)
    replayed: int = 0  # finished deals aside, replayed
    snapshots: int = 0  # snapshots checked
    error: str | None = None  # the helper could not finish: nothing it checked counts

    def fail(self, message: str) -> None:
        if len(self.failures) < FAILURES_MAX:
            self.failures.append(message)


class Helper:
    """The helper process, started at once; `wait` collects its outcome."""

    def __init__(self, reopen: Callable[[], EventLog], head: int, page: int,
                 checkpoint: Checkpoint | None, chained: bool, share: int = SHARE) -> None:
        self.share = share
        context = multiprocessing.get_context("spawn")  # never a copy of this process's state
        self.position = context.Value("q", 0, lock=False)
        self._receive, send = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_run, args=(reopen, head, page, checkpoint, chained, share, self.position,
                              send),
            name="pontoon-verify-helper", daemon=True)
        self.process.start()
        send.close()  # so a helper that dies leaves the pipe at its end

    def wait(self, progress: Callable[[int], None]) -> Outcome:
        """Its outcome, reporting its position meanwhile; a helper that died without a word
        is an outcome with an error."""
        try:
            while not self._receive.poll(0.2):
                progress(self.position.value)
                if not self.process.is_alive() and not self._receive.poll(0.5):
                    return Outcome(error=f"it ended with exit code {self.process.exitcode}")
            outcome: Outcome = self._receive.recv()
            return outcome
        except EOFError:
            return Outcome(error=f"it ended with exit code {self.process.exitcode}")
        finally:
            self.process.join(timeout=5)
            self._receive.close()

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)


def _run(reopen: Callable[[], EventLog], head: int, page: int, checkpoint: Checkpoint | None,
         chained: bool, share: int, position: Any, send: Any) -> None:
    try:
        ledger = reopen()
        try:
            with without_cyclic_collection():
                outcome = _work(ledger, head, page, checkpoint, chained, share, position)
        finally:
            ledger.close()  # type: ignore[attr-defined]
    except Exception as error:  # noqa: BLE001 (told to the main process, which fails verify)
        outcome = Outcome(error=f"{type(error).__name__}: {error}")
    with contextlib.suppress(OSError):  # the main process is gone: nobody to tell
        send.send(outcome)
        send.close()


def _work(ledger: EventLog, head: int, page: int, checkpoint: Checkpoint | None,
          chained: bool, share: int, position: Any) -> Outcome:
    outcome = Outcome()
    fail = outcome.fail
    parent = multiprocessing.parent_process()
    digest = hashlib.sha256()
    recorder = ledger.recorder
    chain = Chain(fail, checkpoint) if chained else None
    snapshots = Snapshots(recorder.select_snapshots() if chained else [], ledger.mapper, fail)
    decode = Decoder(ledger.mapper)
    deals: dict[str, bool] = {}  # by topic: whether it is a deal's event
    histories: dict[UUID, list[f.Fact]] = {}
    for notes in checked_pages(recorder, head, page, chain):
        if parent is not None and not parent.is_alive():
            sys.exit(1)  # the main process was killed: nobody waits for this work
        fold(digest, notes)
        outcome.events += len(notes)
        for note in notes:
            dealt = deals.get(note.topic)
            if dealt is None:
                dealt = deals[note.topic] = is_deal_event(note.topic)
            replay = dealt and aside(note.originator_id, share)
            snapshotted = note.originator_id.int in snapshots.pending
            if not (replay or snapshotted):
                continue
            try:  # one that cannot be read is left out here: the main process names it
                event = decode(note)
            except Exception:  # noqa: BLE001
                continue
            if snapshotted:
                snapshots.event(event)
            if replay:
                _deal_event(event, histories, outcome, fail)
        position.value = outcome.position = notes[-1].id
    if chain is not None:
        outcome.checkpoint = chain.finish()
    outcome.digest = digest.digest()
    snapshots.finish()
    outcome.snapshots = snapshots.checked
    return outcome


def _deal_event(event: Any, histories: dict[UUID, list[f.Fact]], outcome: Outcome,
                fail: Fail) -> None:
    """As the main process's pass: a deal is replayed when its end is read."""
    try:
        fact = f.Fact.from_dict(type(event).__name__, event.fact)
    except Exception:  # noqa: BLE001 (the main process names it)
        return
    history = histories.setdefault(event.originator_id, [])
    history.append(fact)
    if isinstance(fact, f.DealSettled | f.DealVoided):
        outcome.replayed += 1
        replay_finished(event.originator_id, histories.pop(event.originator_id), fail)
