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
        allow_debt: bool

    class Raised(Aggregate.Created):
        deal_id: str
        raised_by: str
        reason: str

        def apply(self, dispute: Any) -> None:
            dispute.deal_id, dispute.raised_by, dispute.reason = \
                self.deal_id, self.raised_by, self.reason
            dispute.status, dispute.decision, dispute.note, dispute.corrections = \
                "open", None, None, []
            dispute.allow_debt = False

    class Resolved(Aggregate.Event):
        """Version 2 records whether the resolution let a correction leave a player in debt
        (R11.4's Decision, R11.3); no resolution before it did so on purpose."""

        decision: str  # upheld | rejected
        note: str
        corrections: list[dict[str, Any]]  # postings: from_account, to_account, amount, id
        resolved_by: str
        allow_debt: bool

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["allow_debt"] = False

        def apply(self, dispute: Any) -> None:
            dispute.status, dispute.decision, dispute.note, dispute.corrections = \
                "resolved", self.decision, self.note, list(self.corrections)
            dispute.allow_debt = self.allow_debt

    @classmethod
    def raise_about(cls, *, id: UUID, deal_id: str, raised_by: str, reason: str  # noqa: A002
                    ) -> Dispute:
        return cls._create(cls.Raised, id=id, deal_id=deal_id, raised_by=raised_by,
                           reason=reason)

    def resolve(self, *, decision: str, note: str, corrections: list[dict[str, Any]],
                resolved_by: str, allow_debt: bool = False) -> None:
        self.trigger_event(self.Resolved, decision=decision, note=note,
                           corrections=corrections, resolved_by=resolved_by,
                           allow_debt=allow_debt)
