"""The closed sets of words the API answers and takes (phases, actions, statuses, kinds,
roles, event types): each is one named enum in the OpenAPI document, so that a generated
client decodes every field that holds one into the same enum (api/openapi.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marshmallow import fields, validate

from application.tokens import ROLES
from domain.aggregates.webhook import EVENT_TYPES
from domain.engine.deal import ACTIONS
from domain.engine.deal_state import BANKER, DOUBLING, PLAYING, SETTLED, SHOOTING, STAKING, VOID
from projections.balances import KINDS
from projections.feed import feed_types


@dataclass(frozen=True)
class Words:
    name: str  # the enum's name in /openapi.json (components/schemas)
    values: tuple[str, ...]
    description: str


PHASE = Words("Phase", (STAKING, DOUBLING, SHOOTING, PLAYING, BANKER, SETTLED, VOID),
              "where a deal stands, in the deal view's words")
ACTION = Words("ActionName", ACTIONS, "what a player or the banker does in a deal")
HAND_STATUS = Words("HandStatus", ("open", "stuck", "bust", "five_card_trick", "pontoon",
                                   "royal_pontoon"), "a hand's state (R2, R4)")
DISPUTE_STATUS = Words("DisputeStatus", ("open", "resolved"), "a dispute's state (R11.4)")
DISPUTE_DECISION = Words("DisputeDecision", ("upheld", "rejected"),
                         "the treasurer's decision on a dispute (R11.4)")
ACCOUNT_KIND = Words("AccountKind", KINDS, "who holds an account's chips")
TOKEN_ROLE = Words("TokenRole", ROLES, "what a bearer token may do (README, roles)")
WEBHOOK_EVENT = Words("WebhookEvent", EVENT_TYPES, "what a webhook subscription is told of")
WEBHOOK_STATUS = Words("WebhookStatus", ("active", "disabled"),
                       "disabled after its deliveries failed for a day")
EVENT_TYPE = Words("EventType", tuple(feed_types()), "an event's type in the feed")
ENTRY_KIND = Words("EntryKind", ("deal", "posting", "correction"),
                   "a row of a per-deal view: a deal's net, a posting outside deals, or a "
                   "correction (R11.4)")
PACK_MODE = Words("PackMode", ("shuffled", "ordered", "recorded"), "how a table's pack is "
                  "ordered (R1.7)")

ALL = (PHASE, ACTION, HAND_STATUS, DISPUTE_STATUS, DISPUTE_DECISION, ACCOUNT_KIND, TOKEN_ROLE,
       WEBHOOK_EVENT, WEBHOOK_STATUS, EVENT_TYPE, ENTRY_KIND, PACK_MODE)


class Choice(fields.String):
    """A string from one closed set: loaded only if it is one of them (400 otherwise), and
    documented as a reference to the set's enum."""

    def __init__(self, words: Words, *, only: tuple[str, ...] | None = None,
                 **options: Any) -> None:
        self.words, self.whole = words, only is None
        super().__init__(validate=validate.OneOf(only or words.values), **options)
