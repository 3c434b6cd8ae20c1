"""Disputes about a deal, resolved by correcting postings, never by editing (R11.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.aggregates.base import pinned


@pinned
class Dispute(Aggregate):
    """A dispute about a deal; resolved by the treasurer, never by editing history (R11.4)."""

    if TYPE_CHECKING:
        deal_id: str
        raised_by: str
        reason: str
        status: str
        decision: str | None
        note: str | None
        corrections: list[dict[str, Any]]

    class Raised(Aggregate.Created):
        deal_id: str
        raised_by: str
        reason: str

        def apply(self, dispute: Any) -> None:
            dispute.deal_id, dispute.raised_by, dispute.reason = \
                self.deal_id, self.raised_by, self.reason
            dispute.status, dispute.decision, dispute.note, dispute.corrections = \
                "open", None, None, []

    class Resolved(Aggregate.Event):
        decision: str  # upheld | rejected
        note: str
        corrections: list[dict[str, Any]]  # postings: from_account, to_account, amount, id
        resolved_by: str

        def apply(self, dispute: Any) -> None:
            dispute.status, dispute.decision, dispute.note, dispute.corrections = \
                "resolved", self.decision, self.note, list(self.corrections)

    @classmethod
    def raise_about(cls, *, id: UUID, deal_id: str, raised_by: str, reason: str  # noqa: A002
                    ) -> Dispute:
        return cls._create(cls.Raised, id=id, deal_id=deal_id, raised_by=raised_by,
                           reason=reason)

    def resolve(self, *, decision: str, note: str, corrections: list[dict[str, Any]],
                resolved_by: str) -> None:
        self.trigger_event(self.Resolved, decision=decision, note=note,
                           corrections=corrections, resolved_by=resolved_by)
