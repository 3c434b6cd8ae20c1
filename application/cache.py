"""The aggregates a process has read or saved, kept to be fast-forwarded, never rebuilt.

Every command reads a deal, a table or accounts, and rebuilding one from its snapshot and
events cost more than everything else a command does (about 130 events replayed a POST).
So each process keeps the aggregates it last read or saved, at the version it knows them,
and a read asks the store only for the events recorded since: one round trip for all the
aggregates a command needs (`Recorder.select_events_after` where the store has it), usually
answering nothing, since a table's requests mostly come to the process that served the last
one. The decision is then checked by the save as before: an aggregate that moved on
meanwhile fails its version check, and the command is decided again from fresh state.

Entries are never changed in place, and cannot be: an entry is sealed when it is put here
(read-only lists and dicts, attributes refusing new values: domain/engine/sealed.py). A read
copies an entry (cheaply, and open again: the aggregates and the engine copy themselves,
domain/aggregates/base.py), applies the events since to the copy, and puts that copy back
when it is newer; a command's saved aggregates become the entries.
So no lock is held while a command decides, and a command that is refused or loses a race
leaves the cache as it was. Why not the library's cache (AGGREGATE_CACHE_MAXSIZE): it
fast-forwards one aggregate a round trip, changes its entries in place while other threads
copy them, and does not keep what was just saved, so the next read fetches it again
(docs/decisions.md 68).
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.aggregates import Account, DealAggregate, TableAggregate

# Only what commands read again and again; receipts, tokens, disputes and webhooks are read
# rarely (or, tokens, checked by a query of their own) and are not kept.
CACHED = (Account, DealAggregate, TableAggregate)


class AggregateCache:
    """The last known state of up to `maxsize` aggregates, least recently used dropped."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[UUID, Any] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, aggregate_id: UUID) -> Any | None:
        """The entry itself (never change it: copy it), or None."""
        with self._lock:
            found = self._items.get(aggregate_id)
            if found is not None:
                self._items.move_to_end(aggregate_id)
            return found

    def put(self, aggregate: Any) -> None:
        """Keep `aggregate` (no pending events: saved, or read) unless a newer one is kept.
        The caller gives it up: it is sealed, and from now on nobody can change it."""
        if self.maxsize <= 0 or not isinstance(aggregate, CACHED):
            return
        aggregate.seal()
        with self._lock:
            known = self._items.get(aggregate.id)
            if known is None or known.version < aggregate.version:
                self._items[aggregate.id] = aggregate
            self._items.move_to_end(aggregate.id)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)

    def keep(self, aggregates: Iterable[Any]) -> None:
        """`put` each of them (a command's saved aggregates)."""
        for aggregate in aggregates:
            self.put(aggregate)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def events_after(recorder: Any, known: Sequence[tuple[UUID, int]]
                 ) -> dict[UUID, list[StoredEvent]]:
    """The events of each aggregate after the version known, in one round trip when the
    recorder can (application/eventstore/recorders.py), else one query each (the in-memory
    store)."""
    if not known:
        return {}
    batched = getattr(recorder, "select_events_after", None)
    if batched is not None:
        found: dict[UUID, list[StoredEvent]] = batched(known)
        return found
    return {aggregate_id: list(events) for aggregate_id, version in known
            if (events := recorder.select_events(aggregate_id, gt=version))}


def fast_forward(cached: Iterable[Any], new: Mapping[UUID, Sequence[StoredEvent]],
                 mapper: Any) -> dict[UUID, Any]:
    """Each cached aggregate brought up to date with its `new` events (`events_after`):
    the entry itself when there are none, else a newer copy, both still to be copied by a
    command that changes them."""
    entries = {aggregate.id: aggregate for aggregate in cached}
    out = {}
    for aggregate_id, entry in entries.items():
        stored = new.get(aggregate_id)
        if not stored:
            out[aggregate_id] = entry
            continue
        advanced = copy.deepcopy(entry)
        for event in stored:
            mapper.to_domain_event(event).mutate(advanced)
        out[aggregate_id] = advanced
    return out
