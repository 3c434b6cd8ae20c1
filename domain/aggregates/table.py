"""A table as an aggregate: seats, banker, kitty, pack order and shuffles (R1, R3, R8, R9)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain.aggregates.base import FactAggregate, pinned
from domain.engine import facts as f
from domain.engine.table import Table


@pinned
class TableAggregate(FactAggregate):
    """A table between deals: seats, banker, kitty, pack order and shuffles (R1, R3, R8, R9)."""

    if TYPE_CHECKING:
        engine: Table

    class TableOpened(Aggregate.Created):
        fact: dict[str, Any]
        actor: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.engine = Table()
            aggregate.engine.apply(f.Fact.from_dict("TableOpened", self.fact))

    class PackArranged(FactAggregate.Event): ...
    class PackShuffled(FactAggregate.Event): ...
    class PlayerSeated(FactAggregate.Event): ...
    class PlayerLeft(FactAggregate.Event): ...

    class KittyPutUp(FactAggregate.Event):
        """Version 2 names the rule: R9.1 for a new kitty, R9.9 for a top-up."""

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            fact = state["fact"]
            fact["rule"] = "R9.1" if fact["amount"] == fact["kitty_after"] else "R9.9"
            fact["posting"]["rule"] = fact["rule"]

    class BankSold(FactAggregate.Event): ...
    class AuctionOpened(FactAggregate.Event): ...
    class BidPlaced(FactAggregate.Event): ...
    class AuctionClosed(FactAggregate.Event): ...
    class DealOpened(FactAggregate.Event): ...
    class DealEnded(FactAggregate.Event): ...
    class KittyCorrected(FactAggregate.Event): ...
    class ContributionAdded(FactAggregate.Event): ...

    id_field = "table_id"


