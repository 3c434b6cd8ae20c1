"""The global event log for integrating apps (API.md `GET /v1/events`), secrets left out.

Left out: every face-down card until its deal is settled or void (and for good the first card
of a player who sat the deal out, which went under the pack unseen, R3.5); the pack order a deal
starts from and leaves behind (it is the next deal's cards), and an ordered table's pack; a
pack's seed until the next shuffle reveals it (the later event carries it as
`revealed_seed`). Tokens, idempotency receipts and webhook subscriptions (their signing
secrets) are not part of the feed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from eventsourcing.domain import DomainEvent

from domain.aggregates.base import PINNED
from projections.audit import deal_row
from projections.base import EventLog, at
from projections.store import ReadStore

HIDDEN = ("Token", "Receipt", "Webhook", "TableName")
HIDDEN_TOPICS = tuple(f"domain.aggregates:{name}." for name in HIDDEN)
SHORT_NAMES = {"DealAggregate": "Deal", "TableAggregate": "Table"}


@functools.cache
def feed_types() -> dict[str, str]:
    """Every type the feed shows (`Deal.CardDealt`), with the topic its events are stored
    under: each event class of each aggregate the feed shows, but the bases others extend
    and the `Event` and `Created` classes the library makes for every aggregate."""
    types = {}
    for name, aggregate in sorted(PINNED.items()):
        if name in HIDDEN:
            continue
        classes = [value for key, value in vars(aggregate).items()
                   if isinstance(value, type) and issubclass(value, DomainEvent)
                   and key not in ("Event", "Created")]
        for cls in classes:
            if not any(other is not cls and issubclass(other, cls) for other in classes):
                topic: str = getattr(cls, "TOPIC")  # noqa: B009 (set by `pinned`)
                types[f"{SHORT_NAMES.get(name, name)}.{cls.__name__}"] = topic
    return types


def events(ledger: EventLog, store: ReadStore, *, after: int, limit: int,
           types: Sequence[str] = ()) -> tuple[list[dict[str, Any]], int | None]:
    """Up to `limit` events after position `after` (of `types` only, when given: names
    `feed_types` knows), and the cursor for the next page."""
    known = feed_types()
    topics = [known[name] for name in types]
    page = ledger.recorder.select_notifications(start=after + 1, limit=limit, topics=topics)
    settled: dict[str, bool] = {}
    sat_out: dict[str, set[str]] = {}
    items = []
    for notification in page:
        if notification.topic.startswith(HIDDEN_TOPICS):
            continue
        event = ledger.mapper.to_domain_event(notification)
        aggregate, _, name = type(event).__qualname__.partition(".")
        data = _data(event)
        if aggregate == "DealAggregate":
            deal_id = str(event.originator_id)
            if deal_id not in settled:
                row = deal_row(store, deal_id)
                settled[deal_id] = row is not None and row["phase"] != "open"
                sat_out[deal_id] = _sat_out(store, deal_id) if settled[deal_id] else set()
            over = settled[deal_id] and data.get("fact", {}).get("player") not in sat_out[deal_id]
            _redact(name, data, over)
        elif aggregate == "TableAggregate":
            _redact(name, data, True)
        items.append({"position": notification.id, "at": at(event),
                      "stream_id": str(event.originator_id),
                      "type": f"{SHORT_NAMES.get(aggregate, aggregate)}.{name}",
                      "data": data})
    next_after = page[-1].id if len(page) == limit else None
    return items, next_after


def _data(event: Any) -> dict[str, Any]:
    data = {key: value for key, value in vars(event).items()
            if key not in ("originator_id", "originator_version", "timestamp",
                           "originator_topic")}
    if "fact" in data:
        data["fact"] = dict(data["fact"])
    plain: dict[str, Any] = _plain(data)
    return plain


def _sat_out(store: ReadStore, deal_id: str) -> set[str]:
    """The players who sat a deal out (R3.5): their first card stays hidden."""
    rows = store.rows("SELECT fact FROM deal_events WHERE deal_id = %s AND type = %s",
                      (deal_id, "PlayerSatOut"))
    return {json.loads(row["fact"])["player"] for row in rows}


def _redact(name: str, data: dict[str, Any], deal_over: bool) -> None:
    fact = data.get("fact", {})
    for secret in ("pack", "pack_after", "seed"):
        fact.pop(secret, None)
    if name == "PackArranged":
        fact.pop("cards", None)  # an ordered pack is the dealing order
    if name == "CardDealt" and not fact.get("face_up") and not deal_over:
        fact["card"] = None


def _plain(value: Any) -> Any:
    """JSON-safe copies (UUIDs and times as text)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
