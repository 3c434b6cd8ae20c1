"""The read side from the shell: `pontoon projections run|rebuild|status`, `verify`, `export`."""

from __future__ import annotations

import sys

import click
from rich.console import Console

from cli.common import open_projections, progress_bar
from cli.main import main


@main.group()
def projections() -> None:
    """The read models: run, rebuild, status."""




@projections.command("run")
def projections_run() -> None:
    """Run the read models and webhook deliveries in a process of their own (until Ctrl-C).

    It stands in the same election as the service's processes: while another holds the
    lock it says so and stands by, ready to take over."""
    import signal
    import threading

    from api.observability import configure_logging
    from projections.election import election_for, lead
    from projections.service import duties, sender_for

    settings, ledger, runner = open_projections()
    configure_logging(settings.log_level)
    stop = threading.Event()
    for stopping in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stopping, lambda *_: stop.set())
    console = Console()
    chosen = election_for(settings)
    console.print(f"projections: following the {settings.store} store when elected "
                  f"({chosen.description}); Ctrl-C stops")
    try:
        lead(chosen, duties(runner, sender_for(runner, settings)), stop,
             standing_by=lambda: console.print(
                 "projections: another runner holds the lock; standing by to take over"))
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
def verify() -> None:
    """Re-check every deal, chip conservation and every shuffle commitment."""
    from application.store import build_ledger
    from config import Settings
    from projections.verify import verify as run_verify

    ledger = build_ledger(Settings.from_env())
    console = Console()
    try:
        with progress_bar(console, "verify") as bar:
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

    settings, ledger, runner = open_projections()
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


