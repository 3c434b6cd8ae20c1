"""Receipts remember idempotent commands: the key, what was asked, what was answered."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain.aggregates.base import pinned, receipt_id


@pinned
class Receipt(Aggregate):
    """An idempotent command's key, what it asked and what it answered (API.md)."""

    if TYPE_CHECKING:
        request_hash: str
        result: dict[str, Any]
        position: int | None

    class Recorded(Aggregate.Created):
        request_hash: str
        result: dict[str, Any]

        def apply(self, receipt: Any) -> None:
            receipt.request_hash, receipt.result, receipt.position = \
                self.request_hash, self.result, None

    class PositionNoted(Aggregate.Event):
        """Stored by a second save until docs/decisions.md 69; now a receipt's position is
        its own event's (it is saved last with the command's events), looked up on a
        repeat. Kept to read the receipts that have it."""

        position: int

        def apply(self, receipt: Any) -> None:
            receipt.position = self.position

    @classmethod
    def record(cls, key: str, request_hash: str, result: dict[str, Any]) -> Receipt:
        return cls._create(cls.Recorded, id=receipt_id(key), request_hash=request_hash,
                           result=result)


