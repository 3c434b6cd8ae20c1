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


if __name__ == "__main__":
    main()
