"""Entry point of the `pontoon` console command."""

from __future__ import annotations

import sys
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
    # Imported here so that `pontoon --help` stays fast.
    from cli.demo import play_demo

    play_demo(Console(), seed=seed, players=players)


@main.command()
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
def simulate(players: int, deals: int, shoot: bool, url: str, token: str | None,
             seed: str | None, table_id: str | None) -> None:
    """Bots play complete deals through the REST API, each with its own player token."""
    from cli.simulate import run_simulation

    if not token:
        raise click.UsageError("a treasurer token is needed: --token or PONTOON_TREASURER_TOKEN")
    code = run_simulation(Console(), url=url, token=token, players=players, deals=deals,
                          shoot=shoot, seed=seed, table_id=table_id)
    if code:
        raise SystemExit(code)


@main.command()
def migrate() -> None:
    """Create the store's tables (a deploy step; workers never create tables)."""
    from application.store import migrate as run_migrations
    from config import Settings

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
@click.option("--projections/--no-projections", "in_process", default=None,
              help="Run the read models in the service (default: with SQLite only).")
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
    console.print(f"serving the {settings.store} store at {_where(settings)} on "
                  f"http://{host or settings.host}:{port or settings.port} "
                  f"(API docs at /docs)")
    run(settings, host=host, port=port, workers=workers, threads=threads)


@main.group()
def projections() -> None:
    """The read models: run, rebuild, status."""


def _projections():  # type: ignore[no-untyped-def]
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


def _progress_bar(console: Console, label: str):  # type: ignore[no-untyped-def]
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeRemainingColumn(), console=console)


@projections.command("run")
def projections_run() -> None:
    """Follow the event log and keep the read models current (until Ctrl-C)."""
    import signal
    import threading

    settings, ledger, runner = _projections()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    console = Console()
    console.print(f"projections: following the {settings.store} store; Ctrl-C stops")
    try:
        runner.follow(stop)
    except KeyboardInterrupt:
        pass
    finally:
        ledger.close()


@projections.command("rebuild")
def projections_rebuild() -> None:
    """Drop every read model's rows and apply the whole event log again."""
    _, ledger, runner = _projections()
    console = Console()
    try:
        with _progress_bar(console, "rebuild") as bar:
            task = bar.add_task("rebuilding", total=max(runner.head(), 1))
            done = runner.rebuild(lambda position, head: bar.update(
                task, completed=position, total=max(head, 1)))
        console.print(f"rebuilt {len(runner.models)} read models from {done} events")
    finally:
        ledger.close()


@projections.command("status")
def projections_status() -> None:
    """Each read model's position in the event log and how far behind it is."""
    from rich.table import Table as RichTable

    _, ledger, runner = _projections()
    try:
        grid = RichTable("read model", "position", "lag (events)")
        for name, state in runner.status().items():
            grid.add_row(name, str(state["position"]), str(state["lag"]))
        Console().print(grid)
    finally:
        ledger.close()


@main.command()
def verify() -> None:
    """Re-check every deal, chip conservation and every shuffle commitment."""
    from application.store import build_ledger
    from config import Settings
    from projections.verify import verify as run_verify

    ledger = build_ledger(Settings.from_env())
    console = Console()
    try:
        with _progress_bar(console, "verify") as bar:
            task = bar.add_task("verifying", total=max(ledger.recorder.max_notification_id()
                                                       or 0, 1))
            report = run_verify(ledger, lambda position, head: bar.update(
                task, completed=position, total=max(head, 1)))
    finally:
        ledger.close()
    console.print(f"checked {report.events} events: {report.deals} deals, "
                  f"{report.accounts} accounts, {report.seeds} shuffles")
    if not report.ok:
        console.print(f"[bold red]{len(report.failures)} problem(s):[/]")
        for failure in report.failures:
            console.print(f"  - {failure}", highlight=False)
        raise SystemExit(1)
    console.print("[bold green]all deals replay, chips are conserved, every seed matches "
                  "its commitment[/]")


@main.command()
@click.option("--kind", type=click.Choice(["statements", "balances", "kitty"]), required=True)
@click.option("--from", "start", type=click.DateTime(), default="1970-01-01",
              help="Start of the period (UTC), inclusive.")
@click.option("--to", "end", type=click.DateTime(), default="9999-12-31",
              help="End of the period (UTC), exclusive; balances are as of this time.")
@click.option("--output", type=click.Path(dir_okay=False), default="-",
              help="CSV file to write (default: standard output).")
def export(kind: str, start: object, end: object, output: str) -> None:
    """CSV for treasurers: statements, balances or kitty history for a period."""
    from projections.export import write_csv

    settings, ledger, runner = _projections()
    try:
        runner.catch_up()
        if output == "-":
            rows = write_csv(runner.store, kind, start, end, sys.stdout)  # type: ignore[arg-type]
        else:
            with open(output, "w", encoding="utf-8", newline="") as handle:
                rows = write_csv(runner.store, kind, start, end, handle)  # type: ignore[arg-type]
    finally:
        ledger.close()
    if output != "-":
        Console().print(f"wrote {rows} rows to {output}")


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


def _where(settings: object) -> str:
    from config import Settings

    assert isinstance(settings, Settings)
    if settings.store == "sqlite":
        return str(settings.sqlite_path)
    return settings.database_url.split("@")[-1]


if __name__ == "__main__":
    main()
