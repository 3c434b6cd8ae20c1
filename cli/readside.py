"""The read side from the shell: `pontoon projections run|rebuild|status`, `verify` and
`checkpoint`."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console

from cli.common import SIGNING, STORE, open_projections, opened_ledger
from cli.main import main
from cli.output import emit_json, output_console, progress_bar, shape_option


@main.group()
def projections() -> None:
    """The read models: run, rebuild, status."""


@projections.command("run", environment=(*STORE, *SIGNING, "PONTOON_LOG_LEVEL",
                                          "PONTOON_WEBHOOK_RETRY_BASE",
                                          "PONTOON_WEBHOOK_RETRY_FOR",
                                          "PONTOON_WEBHOOK_TIMEOUT"))
def projections_run() -> None:
    """Run the read models and webhook deliveries in a process of their own (until Ctrl-C).

    It stands in the same election as the service's processes: while another holds the
    lock it says so and stands by, ready to take over."""
    import signal
    import threading

    from api.observability import configure_logging
    from projections.election import election_for, lead
    from projections.service import checkpointer_for, duties, sender_for

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
        lead(chosen, duties(runner, sender_for(runner, settings),
                            checkpointer_for(runner, settings)), stop,
             standing_by=lambda: console.print(
                 "projections: another runner holds the lock; standing by to take over"))
    finally:
        ledger.close()


@projections.command("rebuild")
def projections_rebuild() -> None:
    """Drop every read model's rows and apply the whole event log again."""
    import dataclasses
    import functools

    from application.store import build_ledger
    from projections.rebuild import rebuild

    settings, ledger, runner = open_projections()
    console = output_console()
    # A long log is shared with a helper process that opens the store again.
    reopen = functools.partial(build_ledger, dataclasses.replace(
        settings, pool_size=1, pool_overflow=0))
    try:
        with progress_bar(console, "rebuild") as bar:
            task = bar.add_task("rebuilding", total=max(runner.head(), 1))
            done = rebuild(runner, reopen, settings, lambda position, head: bar.update(
                task, completed=position, total=max(head, 1)))
        console.print(f"rebuilt {len(runner.models)} read models from {done} events")
    finally:
        ledger.close()


@projections.command("status")
@shape_option()
def projections_status(shape: str) -> None:
    """Each read model's position in the event log and how far behind it is. As JSON:
    {"read_models": {NAME: {"position": N, "lag": N}}}."""
    from rich.table import Table as RichTable

    _, ledger, runner = open_projections()
    try:
        status = runner.status()
    finally:
        ledger.close()
    if shape == "json":
        emit_json({"read_models": status})
        return
    grid = RichTable("read model", "position", "lag (events)")
    for name, state in status.items():
        grid.add_row(name, str(state["position"]), str(state["lag"]))
    output_console().print(grid)


@main.command(environment=(*STORE, "PONTOON_SIGNING_KEY_FILE"))
@click.option("--checkpoint", "sealed", default=None, metavar='"POSITION HASH" | NOTE',
              help="A checkpoint kept outside the database, that the log must still extend: "
                   "`POSITION HASH`, or a signed note (its text, a file, or - to read it).")
@click.option("--vkey", default=None, help="The key a signed checkpoint must be signed by "
              "(default: the service's own, PONTOON_SIGNING_KEY_FILE).")
@shape_option()
def verify(sealed: str | None, vkey: str | None, shape: str) -> None:
    """Re-check every deal, chip conservation, every shuffle commitment and that nothing
    recorded was changed, inserted or deleted (the hash chains, snapshots, Merkle log).
    Exits 1 when anything fails. As JSON: {"ok", "events", "deals", "accounts", "seeds",
    "snapshots", "chained", "extends", "checkpoint": {"position", "hash"} or null,
    "failures": [...]}."""
    import dataclasses
    import functools

    from application.store import build_ledger
    from cli.signing import read_checkpoint
    from config import Settings
    from projections.runner import Projections
    from projections.store import read_store
    from verification.verify import verify as run_verify

    checkpoint, signed = read_checkpoint(sealed, vkey, Settings.from_env())
    console = output_console()
    with opened_ledger() as (settings, ledger):
        store = read_store(ledger, settings)
        if store is not None:  # verify holds the read models to the log's end: bring them
            Projections(ledger, store).catch_up()  # there (only events not yet applied)
        with progress_bar(console, "verify") as bar:
            task = bar.add_task("verifying", total=max(ledger.recorder.max_notification_id()
                                                       or 0, 1))
            report = run_verify(ledger, lambda position, head: bar.update(
                task, completed=position, total=max(head, 1)), checkpoint=checkpoint,
                store=store,
                # A long log is shared with a helper process that opens the store again
                # (one connection is all it uses).
                reopen=functools.partial(build_ledger, dataclasses.replace(
                    settings, pool_size=1, pool_overflow=0))
                if settings.store != "memory" else None, signed=signed)
    extends = str(checkpoint) if checkpoint else \
        f"{signed.size} of {signed.origin}, signed" if signed else None
    if shape == "json":
        _emit_report(report, extends)
        return
    _print_report(console, report, extends)


def _emit_report(report: Any, extends: str | None) -> None:
    sealed = report.checkpoint
    emit_json({"ok": report.ok, "events": report.events, "deals": report.deals,
               "accounts": report.accounts, "seeds": report.seeds,
               "snapshots": report.snapshots, "chained": report.chained, "extends": extends,
               "checkpoint": None if sealed is None else
               {"position": sealed.position, "hash": sealed.hash},
               "failures": report.failures})
    if not report.ok:
        raise SystemExit(1)


def _print_report(console: Console, report: Any, checkpoint: str | None) -> None:
    from rich.markup import escape

    console.print(f"checked {report.events} events: {report.deals} deals, "
                  f"{report.accounts} accounts, {report.seeds} shuffles, "
                  f"{report.snapshots} snapshots")
    if not report.ok:
        console.print(f"[bold red]{len(report.failures)} problem(s):[/]")
        for failure in report.failures:
            # A failure quotes what the log holds (names, reasons): never rich markup.
            console.print(f"  - {failure}", markup=False, highlight=False, soft_wrap=True)
        raise SystemExit(1)
    console.print("[bold green]all deals replay, chips are conserved, every seed matches "
                  "its commitment[/]")
    if report.chained:
        console.print("[bold green]both hash chains and every snapshot match the recorded "
                      "events[/]" + (f"; the log extends checkpoint {escape(checkpoint)}"
                                     if checkpoint else ""), highlight=False)
    if report.checkpoint is not None:
        console.print(f"checkpoint: {report.checkpoint}", highlight=False, soft_wrap=True)


@main.command()
@shape_option()
def checkpoint(shape: str) -> None:
    """Print `POSITION HASH`, sealing the log up to its head: keep it outside the database
    (after each club night), and check it later with `pontoon verify --checkpoint`. As
    JSON: {"position": N, "hash": "HEX"}."""
    from application.eventstore import checkpoint as latest

    with opened_ledger() as (_, ledger):
        sealed = latest(ledger)
    if sealed is None:
        raise click.ClickException("the log is empty (or kept in memory): nothing to seal")
    if shape == "json":
        emit_json({"position": sealed.position, "hash": sealed.hash})
        return
    click.echo(str(sealed))
