"""The global event log for integrating apps; secret cards left out (API.md)."""

from __future__ import annotations

from typing import Any

from api.auth import require
from api.calendar import with_club_days
from api.common import Blueprint, ledger
from api.events.schemas import EventsQuerySchema, EventsSchema
from api.reads import read_store
from projections.feed import events

blp = Blueprint("events", __name__, url_prefix="/v1/events", description="Event feed")


@blp.read("", EventsSchema, query=EventsQuerySchema)
def event_log(query: dict[str, Any]) -> dict[str, Any]:
    """Events after `after`, in order, of the types asked for (all by default); face-down
    cards stay hidden until settled."""
    require("operator")
    items, next_after = events(ledger(), read_store(query.get("min_position")),
                               after=query["after"], limit=query["limit"],
                               types=query.get("type", ()))
    return {"items": with_club_days(items, "at"), "next": next_after}
