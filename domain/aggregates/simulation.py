"""The mark of a store whose history was played on a simulated clock (`pontoon simulate
--start`): one aggregate per store, recorded in the log itself, so the mark survives backups,
copies and rebuilt read models, and nothing can take it off."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, uuid5

from eventsourcing.domain import Aggregate

from domain.aggregates.base import pinned

SIMULATION_ID = uuid5(NAMESPACE_URL, "/pontoon/simulation")


@pinned
class Simulation(Aggregate):
    """Each run of the simulator over the store: when it began, and when it ended.

    A run is recorded as it begins, before any of its play, and again when it ends, after
    all of it: so the log's last event is a run's end exactly when nothing was recorded
    since (docs/decisions.md 114)."""

    if TYPE_CHECKING:
        runs: list[dict[str, Any]]
        running: bool

    class Begun(Aggregate.Created):
        """The first run: the store is simulated from here on."""

        run: dict[str, Any]  # first night, nights, time zone, evening, seed

        def apply(self, simulation: Any) -> None:
            simulation.runs, simulation.running = [dict(self.run)], True

    class RunBegun(Aggregate.Event):
        """A later run, extending a store that holds only simulated history."""

        run: dict[str, Any]

        def apply(self, simulation: Any) -> None:
            simulation.runs = [*simulation.runs, dict(self.run)]
            simulation.running = True

    class RunEnded(Aggregate.Event):
        run: dict[str, Any]  # what was played: nights, deals, disputes...

        def apply(self, simulation: Any) -> None:
            simulation.runs = [*simulation.runs[:-1], {**simulation.runs[-1], **self.run}]
            simulation.running = False

    @classmethod
    def begin(cls, run: dict[str, Any]) -> Simulation:
        return cls._create(cls.Begun, id=SIMULATION_ID, run=run)

    def begin_run(self, run: dict[str, Any]) -> None:
        self.trigger_event(self.RunBegun, run=run)

    def end_run(self, run: dict[str, Any]) -> None:
        self.trigger_event(self.RunEnded, run=run)
