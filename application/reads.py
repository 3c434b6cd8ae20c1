"""How commands read: through the process's aggregate cache, fast-forwarded in one round
trip for everything a command needs, each command deciding on private copies
(application/cache.py, docs/decisions.md 68); and the bearer token's check that rides with
that round trip (decision 71). `LedgerBase` stands on it.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate

from application.cache import AggregateCache, events_after, fast_forward
from domain.errors import NotAllowed, NotFound

A = TypeVar("A", bound=Aggregate)


class TokenChanged(Exception):
    """The token a command was sent with changed (was revoked) since this process last
    checked it: the command is not saved, and the caller authenticates it again."""


class Reads:
    """The reading half of the ledger application (a mixin of `LedgerBase`)."""

    if TYPE_CHECKING:  # eventsourcing's Application, which the ledger also is, has these
        recorder: Any
        mapper: Any
        repository: Any

    def start_reading(self, cache_size: int) -> None:
        self.cache = AggregateCache(cache_size)
        # What the command being decided on this thread has read: shared entries, and the
        # private copies handed out (application/cache.py).
        self._reads = threading.local()
        # A bearer token's check left to the command being sent with it on this thread:
        # (token aggregate's id, version seen), read with the command's own round trip.
        self._token = threading.local()

    def _load(self, cls: type[A], aggregate_id: str, what: str, referenced: bool) -> A:
        try:
            key = UUID(str(aggregate_id))
        except ValueError:
            raise _missing(what, aggregate_id, referenced) from None
        mine: dict[UUID, Any] | None = getattr(self._reads, "mine", None)
        if mine is not None and key in mine:
            aggregate = mine[key]
        else:
            shared = getattr(self._reads, "shared", None) or {}
            entry = shared[key] if key in shared else self._current([key]).get(key)
            aggregate = None if entry is None else copy.deepcopy(entry)
            if mine is not None:
                mine[key] = aggregate
        if not isinstance(aggregate, cls):
            raise _missing(what, aggregate_id, referenced)
        return aggregate

    def _read_ahead(self, *aggregate_ids: UUID | str | None) -> None:
        """Read these aggregates now, in one round trip, for the command being decided: its
        loads then find them. Ids that name nothing are found missing when loaded."""
        shared: dict[UUID, Any] | None = getattr(self._reads, "shared", None)
        if shared is None:
            return  # not deciding a command: each load reads for itself
        wanted = [i for i in dict.fromkeys(_uuids(aggregate_ids))
                  if i not in shared and i not in self._reads.mine]
        if wanted:
            found = self._current(wanted)
            shared.update({i: found.get(i) for i in wanted})

    def defer_token_check(self, token_key: UUID, version: int) -> None:
        """Check that this token has not changed since `version` with the next read of the
        command about to be decided on this thread, in its round trip, not one of its own
        (API requests that run commands; the caller settles it if none ran)."""
        self._token.pending = (token_key, version)

    def token_check_pending(self) -> tuple[UUID, int] | None:
        pending: tuple[UUID, int] | None = getattr(self._token, "pending", None)
        return pending

    def drop_token_check(self) -> None:
        self._token.pending = None

    def settle_token_check(self) -> None:
        """Do a deferred token check now, if no read did it (TokenChanged if it changed)."""
        if self.token_check_pending() is not None:
            self._events_after([])

    def _events_after(self, known: list[tuple[UUID, int]]) -> dict[UUID, Any]:
        """The events recorded after these versions, read with the deferred token check in
        the same round trip (TokenChanged if the token was recorded since)."""
        token = self.token_check_pending()
        new = events_after(self.recorder, known + ([token] if token else []))
        if token is not None:
            self._token.pending = None
            if new.get(token[0]):
                raise TokenChanged
        return new

    def cached(self, aggregate_id: UUID | str) -> Any | None:
        """This process's last known state of an aggregate, maybe stale: a hint of what a
        command will read (never decide on it; never change it). None for an id that is
        not one: the command's own read refuses it."""
        return next((self.cache.peek(key) for key in _uuids([aggregate_id])), None)

    def _current(self, ids: Sequence[UUID]) -> dict[UUID, Any]:
        """Each aggregate as stored now, shared with the cache (copy it to change it):
        cached ones fast-forwarded in one round trip, others rebuilt and then cached."""
        entries, missing = [], []
        for aggregate_id in ids:
            entry = self.cache.peek(aggregate_id)
            if entry is None:
                missing.append(aggregate_id)
            else:
                entries.append(entry)
        new = self._events_after([(entry.id, entry.version) for entry in entries])
        found = fast_forward(entries, new, self.mapper)
        for aggregate_id in new:  # the others are the entries already kept
            if aggregate_id in found:
                self.cache.put(found[aggregate_id])
        for aggregate_id in missing:
            try:
                rebuilt: Any = self.repository.get(aggregate_id)
            except AggregateNotFoundError:
                continue
            self.cache.put(rebuilt)
            found[aggregate_id] = rebuilt
        return found


def _uuids(values: Iterable[UUID | str | None]) -> Iterable[UUID]:
    for value in values:
        if isinstance(value, UUID):
            yield value
        elif value is not None:
            try:
                yield UUID(value)
            except ValueError:
                continue


def _missing(what: str, aggregate_id: str, referenced: bool) -> Exception:
    if referenced:
        return NotAllowed(f"there is no {what} {aggregate_id}")
    return NotFound(f"there is no {what} {aggregate_id}")
