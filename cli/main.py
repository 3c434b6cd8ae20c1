"""Entry point of the `pontoon` console command."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import click
from rich.console import Console


def _installed_version() -> str:
    try:
        return version("pontoon-ledger")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


@click.group()
@click.version_option(_installed_version(), prog_name="pontoon")
def main() -> None:
    """Pontoon chip ledger: rules engine, event store and (later) REST API."""


@main.command()
@click.option("--seed", type=str, default=None, help="Shuffle seed, for a repeatable game.")
@click.option("--players", type=int, default=4, show_default=True, help="Seated players.")
def demo(seed: str | None, players: int) -> None:
    """Play a demonstration game through the rules engine."""
    # Imported here so `pontoon --help` works even while the engine is being written.
    from cli.demo import play_demo

    play_demo(Console(), seed=seed, players=players)


@main.command()
def migrate() -> None:
    """Create the store's tables (a deploy step; workers never create tables)."""
    from api.config import Settings
    from api.store import migrate as run_migrations

    settings = Settings.from_env()
    run_migrations(settings)
    Console().print(f"migrated the {settings.store} store at {_where(settings)}")


@main.command()
@click.option("--host", default=None, help="Default: PONTOON_HOST or 127.0.0.1.")
@click.option("--port", type=int, default=None, help="Default: PONTOON_PORT or 8000.")
@click.option("--workers", type=int, default=2, show_default=True)
@click.option("--threads", type=int, default=4, show_default=True)
@click.option("--migrate/--no-migrate", "run_migrations", default=False,
              help="Create the store's tables first (the embedded SQLite default does).")
@click.option("--print-treasurer-token", is_flag=True,
              help="Without PONTOON_TREASURER_TOKEN, make a treasurer token and print it.")
def serve(host: str | None, port: int | None, workers: int, threads: int,
          run_migrations: bool, print_treasurer_token: bool) -> None:
    """Run the REST API under gunicorn."""
    import secrets
    from dataclasses import replace

    from api.config import Settings
    from api.server import serve as run
    from api.store import migrate as run_migrations_now

    settings = Settings.from_env()
    console = Console()
    if run_migrations:
        run_migrations_now(settings)
    if print_treasurer_token:
        if settings.treasurer_token is None:
            settings = replace(settings, treasurer_token="pt_" + secrets.token_urlsafe(32))
            console.print(f"treasurer token (local use): [bold]{settings.treasurer_token}[/]")
        else:
            console.print("treasurer token: the one in PONTOON_TREASURER_TOKEN")
    console.print(f"serving the {settings.store} store at {_where(settings)} on "
                  f"http://{host or settings.host}:{port or settings.port} "
                  f"(API docs at /docs)")
    run(settings, host=host, port=port, workers=workers, threads=threads)


@main.group()
def tokens() -> None:
    """Bearer tokens for the REST API."""


@tokens.command("create")
@click.option("--role", type=click.Choice(["treasurer", "operator"]), required=True)
def create_token(role: str) -> None:
    """Issue a token and print it once; only its SHA-256 is stored."""
    from api.config import Settings
    from api.store import build_ledger

    ledger = build_ledger(Settings.from_env())
    try:
        click.echo(ledger.create_token(role).result["token"])
    finally:
        ledger.close()


def _where(settings: object) -> str:
    from api.config import Settings

    assert isinstance(settings, Settings)
    if settings.store == "sqlite":
        return str(settings.sqlite_path)
    return settings.database_url.split("@")[-1]


if __name__ == "__main__":
    main()
