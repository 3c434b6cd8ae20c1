"""`pontoon backup PATH`: a copy of the SQLite store taken while it is served."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from cli.common import ready_store
from cli.main import main

PG_DUMP = ("pg_dump --format=custom --no-owner --schema=SCHEMA --file=pontoon.dump "
           "postgresql://USER@HOST:5432/DB")


@main.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def backup(path: Path) -> None:
    """Copy the SQLite store to PATH, safely while it is served (SQLite's online backup).
    Restore by serving the copy: PONTOON_DATABASE_URL=sqlite:///PATH. With PostgreSQL use
    pg_dump (README, Backups)."""
    from application.store import backup as copy_store
    from config import Settings

    settings = Settings.from_env()
    if settings.store != "sqlite":
        raise click.UsageError(f"`pontoon backup` copies a SQLite store; back up PostgreSQL "
                               f"with pg_dump, e.g. `{PG_DUMP}`, and restore with pg_restore "
                               "(README, Backups)")
    ready_store(settings)
    if path.exists():
        raise click.BadParameter(f"{path} exists already; name a new file", param_hint="PATH")
    copy_store(settings, path)
    Console().print(f"backed up {settings.sqlite_path} to {path} "
                    f"({path.stat().st_size} bytes); check it with "
                    f"PONTOON_DATABASE_URL=sqlite:///{path} pontoon verify")
