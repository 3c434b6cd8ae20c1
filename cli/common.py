"""What the `pontoon` subcommands share: the store's read models and progress bars."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console


def open_projections() -> tuple[Any, Any, Any]:
    """Settings, the ledger and the read models' runner on the configured store."""
    from application.store import build_ledger
    from config import Settings
    from projections.runner import Projections
    from projections.store import read_store

    settings = Settings.from_env()
    ledger = build_ledger(settings)
    store = read_store(ledger, settings)
    if store is None:
        raise click.ClickException("the in-memory store keeps no read models")
    return settings, ledger, Projections(ledger, store)


def player_named(store: Any, given: str) -> str:
    """`--player`: an id, or a name that exactly one player has (any case); a name that
    several players share is refused, naming each of them by id."""
    from uuid import UUID

    from projections.export import players_named

    try:
        return str(UUID(given))
    except ValueError:
        found = players_named(store, given)
    if len(found) != 1:
        raise click.BadParameter(f"{len(found)} players are named {given!r}"
                                 + (f": {', '.join(found)}; give the id" if found else ""),
                                 param_hint="--player")
    return found[0]


def progress_bar(console: Console, label: str):  # type: ignore[no-untyped-def]
    """A bar for long commands: done of total, and the time left."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeRemainingColumn(), console=console)


def where(settings: object) -> str:
    """Where the store is, for messages: the SQLite file, or host and database."""
    from config import Settings

    assert isinstance(settings, Settings)
    if settings.store == "sqlite":
        return str(settings.sqlite_path)
    return settings.database_url.split("@")[-1]
