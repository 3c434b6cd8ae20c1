"""The read side from the shell: `pontoon projections run|rebuild|status`, `verify`, `export`."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.console import Console

from cli.common import open_projections, progress_bar
from cli.main import main


@main.group()
def projections() -> None:
    """The read models: run, rebuild, status."""




@projections.command("run")
def projections_run() -> None:
    """Follow the event log and keep the read models current (until Ctrl-C)."""
    import signal
    import threading

    settings, ledger, runner = open_projections()
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
    _, ledger, runner = open_projections()
    console = Console()
    try:
        with progress_bar(console, "rebuild") as bar:
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

    _, ledger, runner = open_projections()
    try:
        grid = RichTable("read model", "position", "lag (events)")
        for name, state in runner.status().items():
            grid.add_row(name, str(state["position"]), str(state["lag"]))
        Console().print(grid)
    finally:
        ledger.close()


@main.command()
@click.option("--checkpoint", "sealed", default=None, metavar='"POSITION HASH"',
              help="A checkpoint kept outside the database: the log must still extend it.")
def verify(sealed: str | None) -> None:
    """Re-check every deal, chip conservation, every shuffle commitment and that nothing
    recorded was changed, inserted or deleted (the hash chains and snapshots)."""
    from application.store import build_ledger
    from config import Settings
    from domain.integrity import Checkpoint
    from projections.store import read_store
    from projections.verify import verify as run_verify

    try:
        checkpoint = Checkpoint.parse(sealed) if sealed is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--checkpoint") from None
    settings = Settings.from_env()
    ledger = build_ledger(settings)
    console = Console()
    try:
        with progress_bar(console, "verify") as bar:
            task = bar.add_task("verifying", total=max(ledger.recorder.max_notification_id()
                                                       or 0, 1))
            report = run_verify(ledger, lambda position, head: bar.update(
                task, completed=position, total=max(head, 1)), checkpoint=checkpoint,
                store=read_store(ledger, settings))
    finally:
        ledger.close()
    _print_report(console, report, checkpoint)


def _print_report(console: Console, report: Any, checkpoint: Any) -> None:
    console.print(f"checked {report.events} events: {report.deals} deals, "
                  f"{report.accounts} accounts, {report.seeds} shuffles, "
                  f"{report.snapshots} snapshots")
    if not report.ok:
        console.print(f"[bold red]{len(report.failures)} problem(s):[/]")
        for failure in report.failures:
            console.print(f"  - {failure}", highlight=False, soft_wrap=True)
        raise SystemExit(1)
    console.print("[bold green]all deals replay, chips are conserved, every seed matches "
                  "its commitment[/]")
    if report.chained:
        console.print("[bold green]both hash chains and every snapshot match the recorded "
                      "events[/]" + (f"; the log extends checkpoint {checkpoint}"
                                     if checkpoint else ""), highlight=False)
    if report.checkpoint is not None:
        console.print(f"checkpoint: {report.checkpoint}", highlight=False, soft_wrap=True)


@main.command()
def checkpoint() -> None:
    """Print `POSITION HASH`, sealing the log up to its head: keep it outside the database
    (after each club night), and check it later with `pontoon verify --checkpoint`."""
    from application.chain import checkpoint as latest
    from application.store import build_ledger
    from config import Settings

    ledger = build_ledger(Settings.from_env())
    try:
        sealed = latest(ledger)
    finally:
        ledger.close()
    if sealed is None:
        raise click.ClickException("the log is empty (or kept in memory): nothing to seal")
    click.echo(str(sealed))


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
    from application.chain import checkpoint
    from projections.export import write_csv

    settings, ledger, runner = open_projections()
    try:
        runner.catch_up()
        sealed = checkpoint(ledger)
        seal = str(sealed) if sealed is not None else None
        if output == "-":
            rows = write_csv(runner.store, kind, start, end, sys.stdout,  # type: ignore[arg-type]
                             seal)
        else:
            with open(output, "w", encoding="utf-8", newline="") as handle:
                rows = write_csv(runner.store, kind, start, end, handle,  # type: ignore[arg-type]
                                 seal)
    finally:
        ledger.close()
    if output != "-":
        Console().print(f"wrote {rows} rows to {output}")


