"""What the aggregates share: their ids, pinned event topics, and recording engine facts."""

from __future__ import annotations

import copy
import hashlib
from datetime import datetime
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, DomainEvent
from eventsourcing.utils import register_topic

from domain.aggregates import clock
from domain.engine import facts as f
from domain.engine.sealed import SealedDict, SealedList, refuse, sealed

TREASURY_ID = uuid5(NAMESPACE_URL, "/pontoon/accounts/treasury")

# Stored events and snapshots name their class by topic. The classes were first stored from
# the module `domain.aggregates`; they keep that topic wherever they are defined.
TOPIC_MODULE = "domain.aggregates"

T = TypeVar("T", bound=type)

# Every pinned aggregate by its class name: the event feed lists its types from here, so a
# new aggregate's events are named (and filterable) without another list to keep.
PINNED: dict[str, type] = {}


def pinned(aggregate: T) -> T:
    """Class decorator: the aggregate and every event class in its body keep the topic
    `domain.aggregates:<Aggregate>.<Event>` (the library reads a class's `TOPIC`), and its
    events take their time from the ledger's clock (clock.py)."""
    events: list[type] = [value for value in vars(aggregate).values()
                          if isinstance(value, type) and issubclass(value, DomainEvent)]
    classes: list[type] = [aggregate, *events]
    for cls in classes:
        topic = f"{TOPIC_MODULE}:{cls.__qualname__}"
        setattr(cls, "TOPIC", topic)  # noqa: B010 (the library reads it by name)
        register_topic(topic, cls)
    PINNED[aggregate.__name__] = aggregate
    for cls in events:
        # The library stamps a new event with its class's create_timestamp().
        setattr(cls, "create_timestamp", staticmethod(clock.now))  # noqa: B010
    return aggregate


def kitty_id(table_id: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/pontoon/accounts/kitty/{table_id}")


def token_id(token_hash: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/pontoon/tokens/{token_hash}")


_URL = NAMESPACE_URL.bytes


def posting_id(source_id: UUID, version: int, index: int) -> str:
    """A posting's id: the event that carries it and its place there, so both accounts and
    the deal agree on it. It is `str(uuid5(NAMESPACE_URL, "/pontoon/postings/…"))`, made
    from the digest directly: verify makes one for every posting of the log."""
    digest = bytearray(hashlib.sha1(  # noqa: S324 (UUID version 5 is SHA-1 by definition)
        _URL + f"/pontoon/postings/{source_id}:{version}:{index}".encode()).digest()[:16])
    digest[6] = digest[6] & 0x0F | 0x50  # version 5
    digest[8] = digest[8] & 0x3F | 0x80  # the RFC 4122 variant
    x = digest.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


def receipt_id(key: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/pontoon/idempotency/{key}")


_SHARED = (str, int, bool, type(None), UUID, datetime)
_SEALED = "_sealed_by_the_cache"


class CheapCopy:
    """`copy.deepcopy` of an aggregate without the generic walk: the ledger hands out a copy
    of a cached aggregate for each command (application/cache.py). Values that never change
    in place (ids, times, numbers, strings) are shared, pending events (immutable) are
    listed afresh, dicts and lists are copied, and the engine copies itself (facts.py).

    The entry the cache shares is sealed when the cache takes it (`seal`): its attributes
    refuse new values, its lists and dicts are read-only, its engine is sealed too
    (domain/engine/sealed.py), so a thread that changed it by mistake raises
    `SharedStateChanged` rather than changing what every other thread reads. Its copies
    are open again."""

    def __setattr__(self, name: str, value: Any) -> None:
        if _SEALED in self.__dict__:
            refuse(self)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if _SEALED in self.__dict__:
            refuse(self)
        super().__delattr__(name)

    def seal(self) -> None:
        """Read-only from now on, in place (the caller gives it to the cache)."""
        values = self.__dict__
        if _SEALED in values:
            return
        for name, value in list(values.items()):
            if not isinstance(value, _SHARED):
                values[name] = SealedList(value) if type(value) is list else \
                    SealedDict(value) if type(value) is dict else sealed(value)
        values[_SEALED] = True

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        clone = object.__new__(type(self))
        for name, value in self.__dict__.items():
            if name == _SEALED:
                continue
            if not isinstance(value, _SHARED):
                kind = type(value)
                value = list(value) if kind is list or kind is SealedList else \
                    dict(value) if kind is dict or kind is SealedDict else \
                    copy.deepcopy(value, memo)
            clone.__dict__[name] = value
        return clone


class FactAggregate(CheapCopy, Aggregate):
    """Shared by deals and tables: the engine decides on a copy, events apply its facts."""

    if TYPE_CHECKING:  # set by the created event; no dataclass fields on aggregates
        engine: Any

    class Event(Aggregate.Event):
        fact: dict[str, Any]
        actor: str | None  # who sent the command: "player:<id>", "operator:<token>", ...

        def apply(self, aggregate: Any) -> None:
            aggregate.engine.apply(f.Fact.from_dict(type(self).__name__, self.fact))

    def trial(self) -> Any:
        """A copy of the engine to decide on: a refusal then leaves the aggregate untouched."""
        return copy.deepcopy(self.engine)

    def record(self, decided: list[f.Fact], actor: str | None = None) -> None:
        for fact in decided:
            self.trigger_event(getattr(type(self), fact.type), fact=fact.to_dict(), actor=actor)

    id_field = ""  # the field of the first fact that names the aggregate

    @classmethod
    def begin(cls, decided: list[f.Fact], actor: str | None = None) -> Self:
        """Create the aggregate with its first fact, then record the others."""
        opened = decided[0].to_dict()
        aggregate = cls._create(getattr(cls, decided[0].type), id=UUID(opened[cls.id_field]),
                                fact=opened, actor=actor)
        aggregate.record(decided[1:], actor)
        return aggregate
