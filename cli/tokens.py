"""`pontoon tokens`: bearer tokens for the REST API, from the shell: create, list, revoke."""

from __future__ import annotations

from datetime import datetime

import click
from rich.console import Console

from cli.common import open_projections
from cli.main import main
from cli.output import emit_json, output_console, shape_option


@main.group()
def tokens() -> None:
    """Bearer tokens for the REST API."""


@tokens.command("create")
@click.option("--role", type=click.Choice(["treasurer", "operator", "player", "witness"]),
              required=True,
              help="witness: may only post cosignatures of checkpoints (pontoon witness).")
@click.option("--player", "player", default=None, metavar="ID|NAME",
              help="With --role player: the player, by id or by a name only one player has.")
@click.option("--label", default=None, help="What the token is for (shown in the list).")
@click.option("--expires-at", type=click.DateTime(["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%z"]),
              default=None, help="When it stops working, with a zone: 2027-01-31T23:00:00+00:00.")
def create_token(role: str, player: str | None, label: str | None,
                 expires_at: datetime | None) -> None:
    """Issue a token and print it once; only its SHA-256 is stored. A player may hold
    several tokens: a new one leaves the others working."""
    from cli.common import player_named
    from domain.errors import PontoonError

    if (role == "player") != (player is not None):
        raise click.UsageError("--player names the player of a player token, and only of one")
    _, ledger, runner = open_projections()
    try:
        player_id = None
        if player is not None:
            runner.catch_up()
            player_id = player_named(runner.store, player)
        click.echo(ledger.create_token(role, player_id=player_id, label=label,
                                       expires_at=expires_at).result["token"])
    except PontoonError as error:
        raise click.ClickException(error.message) from None
    finally:
        ledger.close()


@tokens.command("list")
@shape_option()
def list_tokens(shape: str) -> None:
    """Every token issued (never the token itself): id, role, label, expiry, revoked. As
    JSON: {"items": [...]}, each item as GET /v1/tokens answers it."""
    from rich.markup import escape
    from rich.table import Table as RichTable

    from projections.tokens import tokens as listed

    _, ledger, runner = open_projections()
    try:
        runner.catch_up()
        items, after = [], 0
        while rows := listed(runner.store, after=after, limit=500):
            items += [{key: row[key] for key in ("id", "role", "label", "player_id",
                                                 "created_at", "expires_at")}
                      | {"revoked": row["revoked_at"] is not None} for row in rows]
            after = rows[-1]["position"]
    finally:
        ledger.close()
    if shape == "json":
        emit_json({"items": items})
        return
    grid = RichTable("id", "role", "label", "player", "created", "expires", "revoked")
    for item in items:  # a label is the client's text: printed as written, never as markup
        grid.add_row(item["id"], item["role"], escape(item["label"] or ""),
                     item["player_id"] or "", item["created_at"][:19],
                     (item["expires_at"] or "never")[:19], "yes" if item["revoked"] else "no")
    output_console().print(grid)


@tokens.command("revoke")
@click.argument("token_id")
def revoke_token(token_id: str) -> None:
    """Revoke the token TOKEN_ID (its id in `pontoon tokens list`): refused from now on."""
    from uuid import UUID

    from domain.errors import PontoonError
    from projections.tokens import token_key

    _, ledger, runner = open_projections()
    try:
        runner.catch_up()
        key = token_key(runner.store, token_id)
        if key is None:
            raise click.ClickException(f"there is no token {token_id}")
        ledger.revoke_token(UUID(key), token_id, by="treasurer:shell")
    except PontoonError as error:
        raise click.ClickException(error.message) from None
    finally:
        ledger.close()
    Console().print(f"revoked token {token_id}")
