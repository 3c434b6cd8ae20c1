"""Entry point of the `pontoon` console command."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

import click
from rich.console import Console

from cli.common import SERVICE, STORE, Group
from cli.output import output_console
from cli.simulate.history_options import history_options


def _installed_version() -> str:
    try:
        return version("pontoon-ledger")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


@click.group(cls=Group, environment=SERVICE)
@click.version_option(_installed_version(), prog_name="pontoon")
def main() -> None:
    """Pontoon chip ledger: the REST service, its store, read models and tools."""
    from config import Settings

    try:  # a setting that makes no sense stops every command at once, by its name
        Settings.from_env()
    except ValueError as error:
        raise click.UsageError(str(error)) from None


@main.command(environment=())
@click.option("--seed", type=str, default=None, help="Shuffle seed, for a repeatable game.")
@click.option("--players", type=click.IntRange(2, 8), default=4, show_default=True,
              help="Seated players (the demo has eight names).")
def demo(seed: str | None, players: int) -> None:
    """Play a demonstration game through the rules engine."""
    # Imported here so that `pontoon --help` stays fast.
    from cli.demo import play_demo

    play_demo(Console(), seed=seed, players=players)


@main.command(environment=("PONTOON_TREASURER_TOKEN", *STORE))  # the store: --start
@click.option("--players", type=click.IntRange(2, 14), default=6, show_default=True,
              help="Bots to register and seat.")
@click.option("--deals", type=click.IntRange(1), default=500, show_default=True,
              help="Deals to play.")
@click.option("--shoot", is_flag=True, help="Shoot Pontoon: the banker puts up a kitty.")
@click.option("--url", default="http://127.0.0.1:8000", show_default=True,
              help="The service's address.")
@click.option("--token", envvar="PONTOON_TREASURER_TOKEN", default=None, show_envvar=True,
              help="A treasurer token (default: PONTOON_TREASURER_TOKEN).")
@click.option("--seed", type=str, default=None,
              help="Seed of the bots' choices (the service shuffles the pack itself).")
@click.option("--table", "table_id", type=str, default=None,
              help="Keep playing at this existing table (staff act for its seats).")
@history_options
def simulate(players: int, deals: int, shoot: bool, url: str, token: str | None,
             seed: str | None, table_id: str | None, **history: Any) -> None:
    """Bots play complete deals through the REST API, each with its own player token; with
    --start, a club's nights on a simulated clock, into the store, in this process."""
    from cli.simulate import run_simulation

    if history["start"] is not None:
        from cli.common import ready_store
        from cli.simulate.history_options import plan_of
        from cli.simulate.history_run import run_history
        from config import Settings

        # It makes the store as it needs, but not over a file or through a server it
        # cannot use: refused before the plan reads the club's zone from it.
        ready_store(Settings.from_env(), migrated=False)

        raise SystemExit(run_history(Console(), plan_of({**history, "seed": seed})))
    if not token:
        raise click.UsageError("a treasurer token is needed: --token or PONTOON_TREASURER_TOKEN")
    code = run_simulation(output_console(), url=url, token=token, players=players, deals=deals,
                          shoot=shoot, seed=seed, table_id=table_id)
    if code:
        raise SystemExit(code)


# The subcommands live in modules named for what they do; importing them registers them.
from cli import backup, days, readside, reports, service, tokens, witness  # noqa: E402, F401

if __name__ == "__main__":
    main()
