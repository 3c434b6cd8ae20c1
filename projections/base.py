"""A read model: a projection of the ledger's events into rows of its own tables."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC
from typing import Any, ClassVar, Protocol

import orjson
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from projections.store import ReadStore, Statement

APPLICATION = "Ledger"


class ReadModel(Projection[Any]):
    """Subclasses say which events they read (`reads`) and the rows each event writes."""

    name: str = ""
    reads: ClassVar[tuple[type, ...]] = ()
    tables: ClassVar[tuple[str, ...]] = ()
    # False for the webhook outbox: its rows cause deliveries, so it is never rebuilt and
    # reads never wait for it.
    rebuildable: ClassVar[bool] = True
    topic_set: ClassVar[frozenset[str]] = frozenset()  # `topics`, to test each event against

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.topics = tuple(get_topic(event_class) for event_class in cls.reads)
        cls.topic_set = frozenset(cls.topics)

    @property
    def tracking_name(self) -> str:
        """Each read model keeps its own position in the shared tracking table."""
        return f"{APPLICATION}:{self.name}"

    @property
    def store(self) -> ReadStore:
        return self.view  # type: ignore[no-any-return]

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """The library's interface: one event, its rows and its position, one transaction."""
        self.store.write(self.statements(domain_event, tracking.notification_id),
                         Tracking(self.tracking_name, tracking.notification_id))

    def select(self, page: list[Any], done: int, decode: Callable[[Any], Any]
               ) -> list[tuple[int, Any]]:
        """The events of a page of the log this model applies past `done`, decoded, with
        their positions (the Merkle log takes every position, undecoded)."""
        topics = self.topic_set
        return [(n.id, decode(n)) for n in page if n.id > done and n.topic in topics]

    def page_statements(self, events: list[tuple[int, Any]]) -> list[Statement]:
        """The rows of a run of `select`ed events, in order."""
        return self.compact([s for position, event in events
                             for s in self.statements(event, position)])

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        raise NotImplementedError

    def compact(self, statements: list[Statement]) -> list[Statement]:
        """A page's statements, possibly merged into fewer that write the same rows."""
        return statements

    def applied(self) -> None:
        """Called once a page of this model's rows has been committed."""


def dumps(value: Any) -> str:
    """JSON text for a column, made in C (orjson); what it refuses (an integer beyond 64
    bits, say) by the standard library. Readers parse it: only the data must be the same."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(value)


def at(event: Any) -> str:
    """RFC 3339 UTC with microseconds always, so the text sorts in time order."""
    return str(event.timestamp.astimezone(UTC).isoformat(timespec="microseconds"))


class EventLog(Protocol):
    """What the read side needs of the ledger application: its event log, read in pages of
    notifications (the recorder), and the mapper that decodes them into domain events."""

    @property
    def recorder(self) -> Any: ...

    @property
    def mapper(self) -> Any: ...
