"""Readiness (API.md, Operations): may this process be sent traffic? It may when the store
answers, every migration this code knows is applied, no read model is failing (one that
cannot apply an event is named with its error: projections/failures.py), and every read
model is within its lag limit (`PONTOON_READY_MAX_LAG` events)."""

from __future__ import annotations

from typing import Any

from application.store import APPLIED_MIGRATIONS, not_applied
from projections.failures import failures


class NotReady(Exception):
    """503, naming each check that failed (api/errors.py)."""

    def __init__(self, reasons: dict[str, str]) -> None:
        super().__init__("not ready: " + "; ".join(f"{k}: {v}" for k, v in reasons.items()))
        self.reasons = reasons


def readiness(services: Any) -> dict[str, Any]:
    try:
        services.ledger.recorder.max_notification_id()
    except Exception as error:
        raise NotReady({"store": f"the store does not answer ({type(error).__name__})"}) \
            from None
    reasons = {}
    pending = _pending_migrations(services)
    if pending:
        reasons["migrations"] = f"not applied: {', '.join(pending)}; run `pontoon migrate`"
    if services.projections is not None and "migrations" not in reasons:
        failing = failures(services.projections.store)
        if failing:
            reasons["failing"] = "; ".join(
                f"{f.model} cannot apply the event at position {f.position} ({f.error})"
                for f in failing)
        limit = services.settings.ready_max_lag
        served = {m.name for m in services.projections.read_models}
        behind = {name: lag for name, lag in services.projections.lags().items()
                  if name in served and lag > limit}
        if behind:
            reasons["projections"] = ", ".join(
                f"{name} is {lag} events behind" for name, lag in behind.items()) \
                + f" (the limit is {limit})"
    if reasons:
        raise NotReady(reasons)
    return {"status": "ready"}


def _pending_migrations(services: Any) -> list[str]:
    """Once all are applied they stay applied, so a ready process stops asking."""
    if services.store is None or services.migrated:
        return []
    try:
        applied = {row["migration_id"] for row in services.store.rows(APPLIED_MIGRATIONS)}
    except Exception:  # no migration table: never migrated
        applied = set()
    pending = not_applied(applied)
    services.migrated = not pending
    return pending
