"""The tamper-evidence checks of `pontoon verify` (R11.4: nothing recorded is changed).

- `Chain` re-hashes every stored event from its raw bytes (domain/integrity.py) and compares
  with the hashes recorded beside it: a changed event, a missing version, an event without
  its hash, a hash without its event, a broken log chain, each named by aggregate, version
  and position; and a checkpoint kept outside the database that the log no longer extends.
- `Snapshots` replays each snapshotted aggregate alongside and compares every snapshot
  with the state its events give at that version.
- `witnesses` reads the read models: rows they applied beyond the end of the log prove the
  newest events were deleted.

The hash chain proves the log is consistent with itself; whoever can write the database can
recompute it. Checkpoints kept elsewhere are what make a rewrite visible (README).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from uuid import UUID

from domain.integrity import GENESIS, Checkpoint, event_hash, log_hash
from projections.base import APPLICATION
from projections.log import Log

Fail = Callable[[str], None]
KINDS = {"Account": "account", "DealAggregate": "deal", "TableAggregate": "table",
         "Token": "token", "Receipt": "receipt", "Dispute": "dispute", "Webhook": "webhook"}
NOTHING_CHANGED = "(R11.4: nothing recorded is changed)"


def named(topic: str | None, originator_id: UUID) -> str:
    """`account 5f0c…` (Account.Credited): the aggregate's kind and id, and the event."""
    event = (topic or "").rpartition(":")[2]
    kind = KINDS.get(event.partition(".")[0], "aggregate")
    return f"{kind} {originator_id}" + (f" ({event})" if event else "")


class Chain:
    """Both hash chains, checked one page of stored events (and their hash rows) at a time."""

    def __init__(self, fail: Fail, checkpoint: Checkpoint | None = None) -> None:
        self.fail, self.checkpoint = fail, checkpoint
        # By the aggregate id's int: a UUID hashes in Python, an int in C (millions of events).
        self.versions: dict[int, tuple[int, bytes, bytes]] = {}  # version, stored, replayed
        self.stored_log = self.replayed_log = GENESIS
        self.position = 0
        self.sealed = checkpoint is None
        self.broken_links = 0

    def page(self, notes: Sequence[Any], hashes: Sequence[Any]) -> None:
        """`notes` and `hashes` cover the same range of positions, each in order."""
        rows = {row.position: row for row in hashes}
        for note in notes:
            self._event(note, rows.pop(note.id, None))
        for row in rows.values():
            self.fail(f"{named(None, row.originator_id)} version {row.originator_version} "
                      f"at position {row.position}: its hash is recorded but the event is "
                      f"gone (deleted) {NOTHING_CHANGED}")

    def _event(self, note: Any, row: Any) -> None:
        last, stored_before, replayed_before = self.versions.get(
            note.originator_id.int, (0, GENESIS, GENESIS))
        gap = note.originator_version != last + 1
        if gap:
            missing = f"version {last + 1} is" if note.originator_version == last + 2 else \
                f"versions {last + 1} to {note.originator_version - 1} are"
            self.fail(f"{_where(note)}: the aggregate's {missing} missing (deleted) "
                      f"{NOTHING_CHANGED}")
        replayed = event_hash(replayed_before, note.originator_id, note.originator_version,
                              note.topic, _raw(note.state))
        self.replayed_log = log_hash(self.replayed_log, note.id, replayed)
        if row is None:
            self.fail(f"{_where(note)}: the event has no recorded hash (inserted by hand, or its "
                      f"hash deleted) {NOTHING_CHANGED}")
            stored = replayed
        else:
            # After a gap the event cannot link to its lost predecessor: the gap is named.
            before = (replayed_before, replayed_before) if gap else \
                (stored_before, replayed_before)
            stored = self._links(note, row, before, replayed, check_event=not gap)
        self.versions[note.originator_id.int] = (note.originator_version, stored, replayed)
        self._seal(note.id)

    def _links(self, note: Any, row: Any, before: tuple[bytes, bytes],
               replayed: bytes, *, check_event: bool) -> bytes:
        """The recorded hashes against the event's bytes and the recorded predecessors."""
        stored_before, replayed_before = before
        # Each link is checked against the recorded predecessor, so one change is named
        # once, at its own version, however many events follow it.
        linked = replayed if stored_before == replayed_before else event_hash(
            stored_before, note.originator_id, note.originator_version, note.topic,
            _raw(note.state))
        if (row.originator_id, row.originator_version) != (note.originator_id,
                                                           note.originator_version):
            self._broken(f"{_where(note)}: its recorded hash belongs to {row.originator_id} "
                         f"version {row.originator_version} {NOTHING_CHANGED}")
        elif check_event and row.event_hash != linked:
            self._broken(f"{_where(note)}: the stored event does not match its recorded hash: "
                         f"it was changed after it was recorded {NOTHING_CHANGED}")
        if row.log_hash != log_hash(self.stored_log, note.id, row.event_hash):
            self._broken(f"{_where(note)}: the log chain breaks here: an event before it was "
                         f"deleted, inserted or rewritten {NOTHING_CHANGED}")
        self.stored_log = row.log_hash
        return bytes(row.event_hash)

    def _broken(self, message: str) -> None:
        self.broken_links += 1
        self.fail(message)

    def _seal(self, position: int) -> None:
        checkpoint = self.checkpoint
        self.position = position
        if checkpoint is None or self.sealed or position < checkpoint.position:
            return
        self.sealed = True
        if position != checkpoint.position:
            self.fail(f"checkpoint {checkpoint}: the event at position {checkpoint.position} "
                      f"is gone: the log no longer extends the checkpoint {NOTHING_CHANGED}")
        elif self.replayed_log.hex() != checkpoint.hash:
            self.fail(f"checkpoint {checkpoint}: the log up to position "
                      f"{checkpoint.position} hashes to {self.replayed_log.hex()}: an event "
                      f"up to there was changed, inserted or deleted {NOTHING_CHANGED}")

    def finish(self) -> Checkpoint | None:
        """After the last page: a checkpoint beyond the end is a deletion of the newest
        events; returns the checkpoint of the log as verified."""
        if self.checkpoint is not None and not self.sealed:
            self.fail(f"checkpoint {self.checkpoint}: the log ends at position "
                      f"{self.position}, before the checkpoint: the newest events were "
                      f"deleted {NOTHING_CHANGED}")
        return Checkpoint(self.position, self.replayed_log.hex()) if self.position else None


def checked_pages(recorder: Any, head: int, page: int, chain: Chain | None
                  ) -> Iterator[list[Any]]:
    """The log's pages up to `head`, in order, each checked by `chain` (if the store keeps
    hashes) before it is handed on; after the last, the hash rows left without events."""
    log, after = Log(recorder), 0
    while after < head:
        notes = log.page(after + 1, page, head)
        if not notes:
            break
        if chain is not None:
            chain.page(notes, recorder.select_hashes(after, notes[-1].id))
        yield notes
        after = notes[-1].id
    if chain is not None:
        chain.page([], hashes_without_events(recorder, after))


def hashes_without_events(recorder: Any, after: int) -> list[Any]:
    """Hash rows past the last event verified whose events do not exist (now: a running
    service records events and their hashes together)."""
    rows = recorder.select_hashes(after, None)
    if not rows:
        return []
    present: set[int] = set()
    start = after + 1
    while notes := recorder.select_notifications(start=start, limit=2000,
                                                 stop=rows[-1].position):
        present.update(note.id for note in notes)
        start = notes[-1].id + 1
    return [row for row in rows if row.position not in present]


class Snapshots:
    """Each stored snapshot against a replay of its aggregate's events up to its version."""

    def __init__(self, stored: Sequence[Any], mapper: Any, fail: Fail) -> None:
        self.mapper, self.fail = mapper, fail
        self.pending: dict[int, list[Any]] = {}  # by the aggregate id's int, as Chain
        for snapshot in sorted(stored, key=lambda s: s.originator_version):
            self.pending.setdefault(snapshot.originator_id.int, []).append(snapshot)
        self.replays: dict[int, Any] = {}
        self.checked = 0

    def event(self, event: Any) -> None:
        """Every decoded event, in log order."""
        key = event.originator_id.int
        waiting = self.pending.get(key)
        if not waiting:
            return
        try:
            aggregate = event.mutate(self.replays.get(key))
        except Exception as error:  # noqa: BLE001 (e.g. a version deleted before this one)
            del self.pending[key]
            self.replays.pop(key, None)
            self.fail(f"{named(None, event.originator_id)} version "
                      f"{event.originator_version}: its events do not replay ({error}), so "
                      f"its snapshots cannot be checked {NOTHING_CHANGED}")
            return
        self.replays[key] = aggregate
        while waiting and waiting[0].originator_version == event.originator_version:
            self._compare(waiting.pop(0), aggregate)
        if not waiting:
            del self.pending[key], self.replays[key]

    def _compare(self, stored: Any, replayed: Any) -> None:
        self.checked += 1
        kind = KINDS.get(type(replayed).__name__, "aggregate")
        where = f"the snapshot of {kind} {stored.originator_id} at version " \
                f"{stored.originator_version}"
        try:
            restored = self.mapper.to_domain_event(stored).mutate(None)
            kept, replay = self._state(restored), self._state(replayed)
        except Exception as error:  # noqa: BLE001 (a tampered snapshot may not even decode)
            self.fail(f"{where} cannot be read: {error} {NOTHING_CHANGED}")
            return
        differing = sorted(k for k in kept.keys() | replay.keys() if kept.get(k) != replay.get(k))
        if differing:
            shown = "; ".join(f"{k.lstrip('_')} {_short(kept.get(k))} in the snapshot, "
                              f"{_short(replay.get(k))} by replay" for k in differing[:3])
            self.fail(f"{where} does not equal a replay of its events: {shown} "
                      f"{NOTHING_CHANGED}")

    def _state(self, aggregate: Any) -> Any:
        state = {k: v for k, v in vars(aggregate).items() if k != "_pending_events"}
        return json.loads(self.mapper.transcoder.encode(state))

    def finish(self) -> None:
        for waiting in self.pending.values():
            for stored in waiting:
                self.fail(f"the snapshot of aggregate {stored.originator_id} at version "
                          f"{stored.originator_version} is beyond its last recorded event: "
                          f"its events were deleted {NOTHING_CHANGED}")


def _where(note: Any) -> str:
    """The event named in a failure (made only then: verify reads millions that pass)."""
    return f"{named(note.topic, note.originator_id)} version {note.originator_version} " \
        f"at position {note.id}"


def _raw(state: Any) -> bytes:
    """The stored bytes; SQLite hands back text when an intruder stored text instead."""
    return state if isinstance(state, bytes) else str(state).encode("utf-8")


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def witnesses(store: Any, since: int, head: Callable[[], int], fail: Fail) -> None:
    """The read models applied events in log order: what they hold beyond the end of the
    log was deleted from it. Rows past `since` (the end verify read) are the candidates;
    `head` is read after them, so rows a running service adds meanwhile are no evidence."""
    tracked = store.rows("SELECT application_name, notification_id FROM tracking "
                         "WHERE notification_id > %s", (since,))
    entries = store.rows("SELECT p.account, p.position, p.posting_id, (SELECT COUNT(*) FROM "
                         "postings q WHERE q.account = p.account AND q.position <= p.position)"
                         " AS entries FROM postings p WHERE p.position > %s", (since,))
    end = head()
    for row in tracked:
        if row["application_name"].startswith(APPLICATION) and row["notification_id"] > end:
            fail(f"the read model {row['application_name']} has applied events up to "
                 f"position {row['notification_id']}, but the log ends at {end}: the newest "
                 f"events were deleted {NOTHING_CHANGED}")
    for row in entries:
        if row["position"] > end:
            # An account's version is its opening plus one per entry (domain/aggregates).
            fail(f"account {row['account']}: its statement shows its version "
                 f"{int(row['entries']) + 1} (posting {row['posting_id']}) at position "
                 f"{row['position']}, beyond the end of the log at {end}: it was deleted "
                 f"{NOTHING_CHANGED}")
