"""Histories played on a simulated clock: the store's mark, and who may write one.

`pontoon simulate --start` plays nights into a store with a ledger whose events are stamped
by a `SimulatedClock` (application/clock.py). Such a store carries a `Simulation` aggregate
(domain/aggregates/simulation.py): every page shows a banner and `GET /v1/club` says
`"simulated": true`. A ledger never backdates: a simulation plays only into a store that
holds nothing but earlier simulations' play, after the last of it, and never past the real
now (docs/decisions.md 114).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from application.base import Decision, LedgerBase, Outcome
from domain.aggregates import SIMULATION_ID, Simulation
from domain.errors import NotFound, NotNow


class HistoryCommands(LedgerBase):
    def simulation(self) -> Simulation | None:
        """The store's mark if it was played on a simulated clock, else None (read through
        the process's cache: one indexed read when it is known)."""
        try:
            return self._load(Simulation, str(SIMULATION_ID), "simulation", False)
        except NotFound:
            return None

    def simulated(self) -> bool:
        """Whether the store holds a simulated history (`"simulated": true` of
        `GET /v1/club`, the pages' banner): once marked, always."""
        return self.simulation() is not None

    def begin_simulation(self, run: dict[str, Any]) -> Outcome:
        """Mark the store simulated (or note another run) before any of the run's play;
        refused (NotNow) when the store holds events recorded since the last run ended."""
        def decide() -> Decision:
            if (why := self.simulation_refused()) is not None:
                raise NotNow(why)
            simulation = self.simulation()
            if simulation is None:
                simulation = Simulation.begin(run)
            else:
                simulation.begin_run(run)
            return [simulation], {"runs": len(simulation.runs)}
        return self._command("begin_simulation", {"run": run}, None, decide)

    def end_simulation(self, run: dict[str, Any]) -> Outcome:
        """The run's last event: what it played."""
        def decide() -> Decision:
            simulation = self.simulation()
            if simulation is None or not simulation.running:
                raise NotNow("no simulation is under way in this store")
            simulation.end_run(run)
            return [simulation], {"runs": len(simulation.runs)}
        return self._command("end_simulation", {"run": run}, None, decide)

    def simulation_refused(self) -> str | None:
        """Why a simulation may not play into this store, in one line; None when it may: the
        store is empty, or the last event of its log ends an earlier simulation's run."""
        head = self.recorder.max_notification_id() or 0
        if head == 0:
            return None
        simulation = self.simulation()
        if simulation is None:
            return (f"the store holds {head} events recorded on the real clock; a simulated "
                    "history is played only into a new store (or one simulate built)")
        last = self._position_of_version(simulation.version)
        if simulation.running or last != head:
            return ("the store holds events recorded after its simulated history ended (on "
                    "the real clock, or by a simulation cut short); play into a new store")
        return None

    def last_recorded_at(self) -> datetime | None:
        """The time of the log's last event: a simulation goes on only after it."""
        head = self.recorder.max_notification_id() or 0
        if head == 0:
            return None
        [last] = self.recorder.select_notifications(start=head, limit=1)
        stamped: datetime = self.mapper.to_domain_event(last).timestamp
        return stamped

    def _position_of_version(self, version: int) -> int | None:
        exact = getattr(self.recorder, "position_of", None)
        if exact is None:  # the in-memory store: only the log's order tells
            notes = self.recorder.select_notifications(start=1, limit=10**9)
            return next((n.id for n in reversed(notes) if n.originator_id == SIMULATION_ID
                         and n.originator_version == version), None)
        found: int | None = exact(SIMULATION_ID, version)
        return found
