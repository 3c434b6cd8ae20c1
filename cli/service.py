"""`pontoon migrate` and `pontoon serve`: setting up the store and running the API."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from cli.common import SERVICE, SIGNING, STORE, ready_store, where
from cli.main import main


@main.command(environment=(*STORE, *SIGNING))
def migrate() -> None:
    """Create the store's tables (a deploy step; workers never create tables), and the
    checkpoints' signing key (PONTOON_SIGNING_KEY_FILE) if there is none."""
    from application.store import migrate as run_migrations
    from cli.signing import ensure_signing_key
    from config import Settings

    settings = Settings.from_env()
    ready_store(settings, migrated=False)  # a file that is no database, a server away
    run_migrations(settings)
    console = Console()
    console.print(f"migrated the {settings.store} store at {where(settings)}")
    ensure_signing_key(settings, console)


@main.command(environment=SERVICE)
@click.option("--host", default=None, help="Default: PONTOON_HOST or 127.0.0.1.")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="Default: PONTOON_PORT or 8000.")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
@click.option("--threads", type=click.IntRange(1, 256), default=4, show_default=True)
@click.option("--migrate/--no-migrate", "run_migrations", default=False,
              help="Create the store's tables first (the embedded SQLite default does).")
@click.option("--projections/--no-projections", "in_process", default=None,
              help="Stand in the election to run the read models and webhook deliveries "
                   "(default: yes, unless PONTOON_PROJECTIONS=off).")
@click.option("--print-treasurer-token", is_flag=True,
              help="Without PONTOON_TREASURER_TOKEN, use (or make) the local treasurer "
                   "token kept in --token-file, and print it.")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("var/treasurer-token"), show_default=True,
              help="Where --print-treasurer-token keeps the local token (mode 0600).")
def serve(host: str | None, port: int | None, workers: int, threads: int,
          run_migrations: bool, in_process: bool | None, print_treasurer_token: bool,
          token_file: Path) -> None:
    """Run the REST API under gunicorn."""
    from dataclasses import replace

    from api.server import PortTaken, refuse_taken_port
    from api.server import serve as run
    from application.store import migrate as run_migrations_now
    from config import Settings

    settings = Settings.from_env()
    if in_process is not None:
        settings = replace(settings, projections="in-process" if in_process else "off")
    try:
        refuse_taken_port(host or settings.host, port or settings.port)
    except PortTaken as taken:
        raise click.ClickException(str(taken)) from None
    console = Console()
    if run_migrations:
        from cli.signing import ensure_signing_key

        ready_store(settings, migrated=False)
        run_migrations_now(settings)
        ensure_signing_key(settings, console)
    # Refused at once, with the reason, rather than each worker failing to boot in turn
    # (a pool waits 30 s for a connection before it gives up).
    ready_store(settings)
    if print_treasurer_token:
        if settings.treasurer_token is None:
            token, made = local_treasurer_token(settings, token_file)
            settings = replace(settings, treasurer_token=token)
            console.print(f"treasurer token (local use, {'new, ' if made else ''}kept in "
                          f"{token_file}): [bold]{token}[/]", soft_wrap=True)
        else:
            console.print("treasurer token: the one in PONTOON_TREASURER_TOKEN")
    base = f"http://{host or settings.host}:{port or settings.port}"
    # One line each, never wrapped mid-phrase by the terminal's width.
    console.print(f"serving the {settings.store} store at {where(settings)} on {base}",
                  soft_wrap=True)
    console.print(f"API docs: {base}/docs", soft_wrap=True)
    console.print(f"treasurer's pages: {base}/web/ (sign in with a token)", soft_wrap=True)
    run(settings, host=host, port=port, workers=workers, threads=threads)


def local_treasurer_token(settings: Any, path: Path) -> tuple[str, bool]:
    """The local treasurer token `make run` reuses across starts: read from `path`, or made
    and written there (mode 0600) when there is none or the store refuses it (revoked or
    expired). Returns the token and whether it is new. The service adopts it at start."""
    import secrets
    from datetime import UTC, datetime

    from application.store import build_ledger

    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        ledger = build_ledger(settings)
        try:
            known = ledger.principal(token) if token else None
        finally:
            ledger.close()
        usable = bool(token) and (known is None or (
            known.role == "treasurer" and known.valid_at(datetime.now(UTC))))
        if usable:
            os.chmod(path, 0o600)
            return token, False
        path.unlink()
    token = "pt_" + secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token, True

