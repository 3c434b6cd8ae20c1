"""`pontoon tokens`: bearer tokens for the REST API, from the shell."""

from __future__ import annotations

import click

from cli.main import main


@main.group()
def tokens() -> None:
    """Bearer tokens for the REST API."""


@tokens.command("create")
@click.option("--role", type=click.Choice(["treasurer", "operator"]), required=True)
def create_token(role: str) -> None:
    """Issue a token and print it once; only its SHA-256 is stored."""
    from application.store import build_ledger
    from config import Settings

    ledger = build_ledger(Settings.from_env())
    try:
        click.echo(ledger.create_token(role).result["token"])
    finally:
        ledger.close()


