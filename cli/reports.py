"""Exports and reports from the shell: `pontoon export` (CSV for treasurers) and `pontoon
report` (a night or a month), and the period, player and output options they share with
the other commands that read a period (cli/days.py)."""

from __future__ import annotations

import sys
from typing import Any

import click

from cli.common import open_projections
from cli.main import main
from cli.output import output_console, output_option


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


def written_period(start: str | None, end: str | None) -> None:
    """`--from` and `--to` checked before the store is opened: each a date or a time, and
    two dates in order (the club's calendar, read from the store, places them later)."""
    from api.calendar import DATE, parse_bound
    from domain.engine.calendar import Calendar, DayRule

    for option, text in (("--from", start), ("--to", end)):
        try:
            if text is not None:
                parse_bound(text, local=Calendar(DayRule()))
        except ValueError:
            raise click.BadParameter(f"{text!r}: give a date (2026-12-05, a club day) or a "
                                     "time (2026-12-05T20:00, the club's time)",
                                     param_hint=option) from None
    if start and end and DATE.fullmatch(start) and DATE.fullmatch(end) and start > end:
        _reversed(start, end)


def _period_bounds(start: str | None, end: str | None, calendar: Any
                   ) -> tuple[str | None, str | None]:
    """`--from` and `--to` on the club's calendar, as the API reads them, and refused as it
    refuses them when the period is reversed or empty (`from` must come before `to`)."""
    first, last = _bound(start, calendar), _bound(end, calendar, end=True)
    if first is not None and last is not None and first >= last:
        _reversed(start, end)
    return first, last


def _reversed(start: str | None, end: str | None) -> None:
    raise click.UsageError(f"--from {start} is not before --to {end}: the period would be "
                           "empty or reversed; give the earlier one first")


def _player(store: object, given: str | None) -> str | None:
    """`--player`: an id, or a name that exactly one player has."""
    from cli.common import player_named

    return None if given is None else player_named(store, given)


PERIOD = [
    click.option("--from", "start", metavar="TIME|DATE",
                 help="Start of the period, inclusive: a time, or a club day."),
    click.option("--to", "end", metavar="TIME|DATE",
                 help="End of the period, exclusive: a time, or a club day to its end."),
    output_option(),
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
    """CSV for treasurers: statements, balances (as of --to, else now) or kitty history.
    The checkpoint of the log as exported, `POSITION HASH`, is never a row of the CSV: it
    is written beside --output as FILE.checkpoint, or on stderr with standard output (check
    it later with `pontoon verify --checkpoint`)."""
    from datetime import UTC, datetime

    from application.eventstore import checkpoint
    from projections.export import Selection, write_csv

    if kind == "balances" and start is not None:
        raise click.UsageError("--from has no meaning for balances: they are as of --to "
                               "(or now); export statements for a period's postings")
    if kind == "kitty" and player is not None:
        raise click.UsageError("--player has no meaning for a kitty's history; use --table")
    written_period(start, end)
    settings, ledger, runner = open_projections()
    try:
        runner.catch_up()
        sealed = checkpoint(ledger)
        first, last = _period_bounds(start, end, ledger.calendar())
        selection = Selection(first, last, _player(runner.store, player), table and str(table))
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        with _opened(output) as handle:
            rows = write_csv(runner.store, kind, selection, handle, now=now)
    finally:
        ledger.close()
    _keep_checkpoint(output, sealed, rows)


def _keep_checkpoint(output: str, sealed: Any, rows: int) -> None:
    """The export's checkpoint in a sidecar file beside it (decision 147), or on stderr."""
    from pathlib import Path

    if output == "-":
        if sealed is not None:
            click.echo(f"checkpoint: {sealed}", err=True)
        return
    said = f"wrote {rows} rows to {output}"
    if sealed is not None:
        sidecar = Path(output + ".checkpoint")
        sidecar.write_text(f"{sealed}\n", encoding="utf-8")
        said += f", and its checkpoint to {sidecar}"
    click.echo(said)


@main.command()
@_period
@click.option("--format", "shape", type=click.Choice(["table", "csv", "json"]),
              default="table", help="A table to read, CSV or JSON (as the API answers).")
def report(start: str | None, end: str | None, output: str, shape: str) -> None:
    """A club night or a month: each player's result and the checks that it balances
    (exits 1 when they do not). As JSON: the answer of GET /v1/reports/period."""
    from projections.report import period_report

    written_period(start, end)
    _, ledger, runner = open_projections()
    try:
        runner.catch_up()
        found = period_report(runner.store, *_period_bounds(start, end, ledger.calendar()))
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
    console = output_console(handle)
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
