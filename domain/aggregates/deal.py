"""A deal as an aggregate: the engine's `Deal`, rebuilt by replaying its facts (R3–R9)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain.aggregates.base import FactAggregate, pinned
from domain.engine import facts as f
from domain.engine.deal import Deal


def _note_end(self: Any, aggregate: Any) -> None:
    """A settled or void deal remembers when, and at which version, for its postings' ids."""
    FactAggregate.Event.apply(self, aggregate)
    aggregate.ended = {"at": self.timestamp.isoformat(), "version": self.originator_version}


@pinned
class DealAggregate(FactAggregate):
    """One deal: cards, stakes, shoot bets, turns and its settlement (R3–R9)."""

    if TYPE_CHECKING:
        engine: Deal
        ended: dict[str, Any]  # when and at which version the deal settled or was void

    class DealStarted(Aggregate.Created):
        fact: dict[str, Any]
        actor: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.engine, aggregate.ended = Deal(), None
            aggregate.engine.apply(f.Fact.from_dict("DealStarted", self.fact))

    class CardDealt(FactAggregate.Event): ...
    class StakePlaced(FactAggregate.Event): ...
    class PlayerSatOut(FactAggregate.Event): ...
    class BankerDoubled(FactAggregate.Event): ...
    class BankerDeclinedToDouble(FactAggregate.Event): ...
    class ShootBetPlaced(FactAggregate.Event): ...
    class ShootPassed(FactAggregate.Event): ...
    class CardBought(FactAggregate.Event): ...
    class HandTwisted(FactAggregate.Event): ...
    class HandSplit(FactAggregate.Event): ...
    class HandBurned(FactAggregate.Event): ...
    class HandStuck(FactAggregate.Event): ...
    class HandFinished(FactAggregate.Event): ...
    class HandBusted(FactAggregate.Event): ...
    class PlayersTurnsBegan(FactAggregate.Event): ...
    class BankerTurnBegan(FactAggregate.Event): ...
    class BankerStayed(FactAggregate.Event): ...

    class DealSettled(FactAggregate.Event):
        apply = _note_end

    class DealVoided(FactAggregate.Event):
        apply = _note_end

    id_field = "deal_id"


