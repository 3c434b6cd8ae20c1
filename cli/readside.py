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
    console = Console()
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
@click.option("--checkpoint", "sealed", default=None, metavar='"POSITION HASH" | NOTE',
              help="A checkpoint kept outside the database, that the log must still extend: "
                   "`POSITION HASH`, or a signed note (its text, a file, or - to read it).")
@click.option("--vkey", default=None, help="The key a signed checkpoint must be signed by "
              "(default: the service's own, PONTOON_SIGNING_KEY_FILE).")
def verify(sealed: str | None, vkey: str | None) -> None:
    """Re-check every deal, chip conservation, every shuffle commitment and that nothing
    recorded was changed, inserted or deleted (the hash chains, snapshots, Merkle log)."""
    import dataclasses
    import functools

    from application.store import build_ledger
    from cli.signing import read_checkpoint
    from config import Settings
    from projections.runner import Projections
    from projections.store import read_store
    from projections.verify import verify as run_verify

    settings = Settings.from_env()
    checkpoint, signed = read_checkpoint(sealed, vkey, settings)
    ledger = build_ledger(settings)
    console = Console()
    try:
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
    finally:
        ledger.close()
    _print_report(console, report, str(checkpoint) if checkpoint else
                  f"{signed.size} of {signed.origin}, signed" if signed else None)


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
def checkpoint() -> None:
    """Print `POSITION HASH`, sealing the log up to its head: keep it outside the database
    (after each club night), and check it later with `pontoon verify --checkpoint`."""
    from application.eventstore import checkpoint as latest
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


def _bound(text: str | None, calendar: Any, *, end: bool = False) -> str | None:
    """`--from`/`--to`: a date (a club day: its start; as `--to`, its end) or a time (the
    club's own time when it has no offset), as the API reads `from` and `to`."""
    from api.calendar import bound_text, parse_bound

    if text is None:
        return None
    try:
        return bound_text(parse_bound(text, local=calendar), calendar, end=end)
    except ValueError:
        raise click.BadParameter(f"{text!r}: give a date (2026-12-05, a club day) or a time "
                                 "(2026-12-05T20:00, the club's time)") from None


def _player(store: object, given: str | None) -> str | None:
    """`--player`: an id, or a name that exactly one player has."""
    from cli.common import player_named

    return None if given is None else player_named(store, given)


PERIOD = [
    click.option("--from", "start", metavar="TIME|DATE",
                 help="Start of the period, inclusive: a time, or a club day."),
    click.option("--to", "end", metavar="TIME|DATE",
                 help="End of the period, exclusive: a time, or a club day to its end."),
    click.option("--output", type=click.Path(dir_okay=False), default="-",
                 help="File to write (default: standard output)."),
]


def _period(command):  # type: ignore[no-untyped-def]
    for option in reversed(PERIOD):
        command = option(command)
    return command


@main.command()
@click.option("--kind", type=click.Choice(["statements", "balances", "kitty"]), required=True)
@_period
@click.option("--player", help="Only this player (an id, or a name only one player has).")
@click.option("--table", type=click.UUID, help="Only this table's postings (or kitty).")
def export(kind: str, start: str | None, end: str | None, output: str, player: str | None,
           table: object) -> None:
    """CSV for treasurers: statements, balances (as of --to, else now) or kitty history."""
    from datetime import UTC, datetime

    from application.eventstore import checkpoint
    from projections.export import Selection, write_csv

    settings, ledger, runner = open_projections()
    try:
        runner.catch_up()
        sealed = checkpoint(ledger)
        calendar = ledger.calendar()
        selection = Selection(_bound(start, calendar), _bound(end, calendar, end=True),
                              _player(runner.store, player), table and str(table))
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        with _opened(output) as handle:
            rows = write_csv(runner.store, kind, selection, handle, now=now,
                             checkpoint=str(sealed) if sealed is not None else None)
    finally:
        ledger.close()
    if output != "-":
        Console().print(f"wrote {rows} rows to {output}")


@main.command()
@_period
@click.option("--format", "shape", type=click.Choice(["table", "csv", "json"]),
              default="table", help="A table to read, CSV or JSON (as the API answers).")
def report(start: str | None, end: str | None, output: str, shape: str) -> None:
    """A club night or a month: each player's result and the checks that it balances."""
    from projections.report import period_report

    _, ledger, runner = open_projections()
    try:
        runner.catch_up()
        calendar = ledger.calendar()
        found = period_report(runner.store, _bound(start, calendar),
                              _bound(end, calendar, end=True))
    finally:
        ledger.close()
    with _opened(output) as handle:
        _write_report(found, shape, handle)


def _write_report(found: dict, shape: str, handle) -> None:  # type: ignore[no-untyped-def, type-arg]
    import json

    from api.reads import told_apart
    from api.reports.resources import CSV_COLUMNS
    from projections.spreadsheet import SafeWriter

    shown = told_apart({row["player_id"]: row["name"] for row in found["items"]})
    if shape == "json":
        handle.write(json.dumps(found, indent=2) + "\n")
        return
    if shape == "csv":
        writer = SafeWriter(handle)  # a name is never a formula (CSV injection)
        writer.writerow(CSV_COLUMNS)
        for row in found["items"]:
            writer.writerow([shown[row["player_id"]] if c == "name" else row[c]
                             for c in CSV_COLUMNS])
        return
    from rich.markup import escape
    from rich.table import Table as RichTable

    grid = RichTable("player", "net", "deals", "buy-ins", "cash-outs", "kitty put up",
                     "kitty won", "disputes raised", "disputes on their deals",
                     "corrections", title=escape(f"{found['from'] or 'the start'} "
                                                          f"to {found['to'] or 'now'}"))
    for row in found["items"]:  # names are the clients' text: never rich markup
        grid.add_row(escape(shown[row["player_id"]]), *(str(row[c]) for c in CSV_COLUMNS[2:]))
    console = Console(file=handle)
    console.print(grid)
    checks = found["checks"]
    counts = found["dispute_counts"]
    console.print(f"{found['deals']} deals; disputes raised {counts['raised']}, "
                  f"resolved {counts['resolved']}")
    console.print(f"chips held before {checks['chips_held_before']} + issued "
                  f"{checks['chips_issued']} - redeemed {checks['chips_redeemed']} = held "
                  f"{checks['chips_held']}: "
                  + ("balanced" if checks["balanced"] else "NOT BALANCED"))
    if not checks["balanced"]:
        raise SystemExit(1)


def _opened(output: str):  # type: ignore[no-untyped-def]
    import contextlib

    if output == "-":
        return contextlib.nullcontext(sys.stdout)
    return open(output, "w", encoding="utf-8", newline="")
