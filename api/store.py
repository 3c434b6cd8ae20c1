"""Building the ledger application on the configured store, and creating its tables."""

from __future__ import annotations

from api.config import Settings
from domain.application import Ledger


def build_ledger(settings: Settings, *, create_tables: bool = False) -> Ledger:
    """One application object per process, built after any fork (docs/architecture.md)."""
    if settings.store == "sqlite":
        settings.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    return Ledger(env=settings.ledger_env(create_tables=create_tables))


def migrate(settings: Settings) -> list[str]:
    """Create the event store's tables and apply the read models' migrations, once, as a
    deploy step (`pontoon migrate`). Returns the migrations applied now."""
    from projections.store import apply_migrations

    build_ledger(settings, create_tables=True).close()
    return apply_migrations(settings)
