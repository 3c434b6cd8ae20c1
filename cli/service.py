"""`pontoon migrate` and `pontoon serve`: setting up the store and running the API."""

from __future__ import annotations

import click
from rich.console import Console

from cli.common import where
from cli.main import main


@main.command()
def migrate() -> None:
    """Create the store's tables (a deploy step; workers never create tables)."""
    from application.store import migrate as run_migrations
    from config import Settings

    settings = Settings.from_env()
    run_migrations(settings)
    Console().print(f"migrated the {settings.store} store at {where(settings)}")


@main.command()
@click.option("--host", default=None, help="Default: PONTOON_HOST or 127.0.0.1.")
@click.option("--port", type=int, default=None, help="Default: PONTOON_PORT or 8000.")
@click.option("--workers", type=int, default=2, show_default=True)
@click.option("--threads", type=int, default=4, show_default=True)
@click.option("--migrate/--no-migrate", "run_migrations", default=False,
              help="Create the store's tables first (the embedded SQLite default does).")
@click.option("--projections/--no-projections", "in_process", default=None,
              help="Stand in the election to run the read models and webhook deliveries "
                   "(default: yes, unless PONTOON_PROJECTIONS=off).")
@click.option("--print-treasurer-token", is_flag=True,
              help="Without PONTOON_TREASURER_TOKEN, make a treasurer token and print it.")
def serve(host: str | None, port: int | None, workers: int, threads: int,
          run_migrations: bool, in_process: bool | None, print_treasurer_token: bool) -> None:
    """Run the REST API under gunicorn."""
    import secrets
    from dataclasses import replace

    from api.server import serve as run
    from application.store import migrate as run_migrations_now
    from config import Settings

    settings = Settings.from_env()
    if in_process is not None:
        settings = replace(settings, projections="in-process" if in_process else "off")
    console = Console()
    if run_migrations:
        run_migrations_now(settings)
    if print_treasurer_token:
        if settings.treasurer_token is None:
            settings = replace(settings, treasurer_token="pt_" + secrets.token_urlsafe(32))
            console.print(f"treasurer token (local use): [bold]{settings.treasurer_token}[/]")
        else:
            console.print("treasurer token: the one in PONTOON_TREASURER_TOKEN")
    console.print(f"serving the {settings.store} store at {where(settings)} on "
                  f"http://{host or settings.host}:{port or settings.port} "
                  f"(API docs at /docs)")
    run(settings, host=host, port=port, workers=workers, threads=threads)


