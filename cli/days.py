"""Club nights from the shell: `pontoon days` (the days with play), `pontoon night DATE`
(a night's sheet, and `--close` to close it) and `pontoon balances --as-of` (every account
as it stood then). Dates are club days, as on the API and the pages; a time without an
offset is the club's own time (docs/decisions.md 110)."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import click
from rich.markup import escape
from rich.table import Table as RichTable

from cli.common import open_projections
from cli.main import main
from cli.output import output_console, output_option
from cli.reports import _opened, _period_bounds, written_period

FORMATS = click.Choice(["table", "json", "csv"])
DAY_COLUMNS = ("date", "deals", "chips_issued", "chips_redeemed", "kitty_change",
               "disputes_raised", "closed")


@main.command()
@click.option("--from", "start", metavar="DATE|TIME", help="From this club day (or time).")
@click.option("--to", "end", metavar="DATE|TIME", help="To this club day, included.")
@click.option("--format", "shape", type=FORMATS, default="table", show_default=True)
@output_option()
def days(start: str | None, end: str | None, shape: str, output: str) -> None:
    """The club days with play, newest first: deals, chips issued and redeemed, the
    kitties' change, disputes raised, and whether the night is closed."""
    from projections.days import days_between

    written_period(start, end)
    _, ledger, runner = open_projections()
    try:
        runner.catch_up()
        club = ledger.club()
        calendar = club.calendar
        found = days_between(runner.store, calendar, *_period_bounds(start, end, calendar),
                             limit=100_000)
        for day in found:
            day["closed"] = day["date"] in club.closes
    finally:
        ledger.close()
    with _opened(output) as handle:
        _write_rows(handle, shape, found, DAY_COLUMNS,
                    f"Club days with play ({calendar.rule.time_zone}, from "
                    f"{calendar.rule.day_starts_at})")


@main.command()
@click.argument("day", metavar="DATE", type=click.DateTime(formats=["%Y-%m-%d"]))
@click.option("--close", "closing", is_flag=True,
              help="Close the night (once its club day is over): nothing is posted.")
@click.option("--count", "counts", multiple=True, metavar="PLAYER=CHIPS",
              help="With --close: chips counted for a player (a name or an id); repeat it.")
@click.option("--format", "shape", type=FORMATS, default="table", show_default=True)
@output_option()
def night(day: Any, closing: bool, counts: tuple[str, ...], shape: str, output: str) -> None:
    """A club night's sheet: each player's result and what to cash out or collect, the
    tables, the disputes and the checks; with --close, close it first."""
    from domain.errors import PontoonError
    from projections.asof import holdings
    from projections.days import night_of

    if counts and not closing:
        raise click.UsageError("--count goes with --close")
    chosen: date = day.date()
    _, ledger, runner = open_projections()
    try:
        runner.catch_up()
        if closing:
            counted = _counted(runner.store, counts)
            try:
                ledger.close_day(chosen, counted=counted, holdings=holdings(runner.store),
                                 closed_by="treasurer:shell")
            except PontoonError as refused:
                raise click.ClickException(refused.message) from None
        club = ledger.club()
        try:
            sheet = night_of(runner.store, club.calendar, club.closes, chosen)
        except OverflowError:
            raise click.BadParameter("outside the years the ledger can record",
                                     param_hint="DATE") from None
    finally:
        ledger.close()
    with _opened(output) as handle:
        _write_sheet(handle, shape, sheet)


@main.command()
@click.option("--as-of", "as_of", metavar="DATE|TIME",
              help="As they stood then: a club day's end, or a time (default: now).")
@click.option("--kind", default="player,kitty,treasury", show_default=True,
              help="player, kitty, treasury and/or escrow, separated by commas.")
@click.option("--format", "shape", type=FORMATS, default="table", show_default=True)
@output_option()
def balances(as_of: str | None, kind: str, shape: str, output: str) -> None:
    """Every account's balance, now or as it stood at the end of a club day or at a time;
    the total of every account is 0 (R11.1)."""
    from projections.balances import KINDS

    kinds = [k.strip() for k in kind.split(",")]
    if not kinds or not set(kinds) <= set(KINDS):
        raise click.BadParameter(f"kinds are {', '.join(KINDS)}", param_hint="--kind")
    _, ledger, runner = open_projections()
    try:
        runner.catch_up()
        rows, total, cutoff = _balances(runner.store, ledger.calendar(), as_of, kinds)
    finally:
        ledger.close()
    with _opened(output) as handle:
        if shape == "json":
            handle.write(json.dumps({"as_of": cutoff, "total": total, "items": rows},
                                    indent=2) + "\n")
            return
        _write_rows(handle, shape, rows, ("account", "kind", "name", "balance"),
                    f"Balances {'now' if cutoff is None else 'just before ' + cutoff}")
        if shape == "table":
            output_console(handle).print(f"total of every account: {total} (R11.1)")


def _balances(store: Any, calendar: Any, as_of: str | None, kinds: list[str]
              ) -> tuple[list[dict[str, Any]], int, str | None]:
    from api.calendar import as_of_cutoff, parse_bound
    from api.downloads import AccountNames
    from projections.asof import standing
    from projections.balances import balance_page, balance_totals

    words = AccountNames(store)
    rows = [{k: row[k] for k in ("account", "kind", "balance")} | {
        "name": words(row["account"])} for row in balance_page(store, kinds, limit=10**9)]
    if as_of is None:
        return rows, int(balance_totals(store)["total"] or 0), None
    try:
        cutoff = as_of_cutoff(parse_bound(as_of, local=calendar), calendar)
    except ValueError:
        raise click.BadParameter(f"{as_of!r}: give a date (a club day) or a time",
                                 param_hint="--as-of") from None
    then = standing(store, cutoff)
    return [dict(row, balance=then.get(row["account"], 0)) for row in rows], \
        sum(then.values()), cutoff


def _counted(store: Any, counts: tuple[str, ...]) -> dict[str, int]:
    from cli.reports import _player

    counted = {}
    for given in counts:
        who, _, chips = given.rpartition("=")
        if not who or not chips.isdigit():
            raise click.BadParameter(f"{given!r}: give PLAYER=CHIPS, such as Ann=42",
                                     param_hint="--count")
        counted[f"player:{_player(store, who)}"] = int(chips)
    return counted


def _write_rows(handle: Any, shape: str, rows: list[dict[str, Any]],
                columns: tuple[str, ...], title: str) -> None:
    if shape == "json":
        handle.write(json.dumps(rows, indent=2) + "\n")
    elif shape == "csv":
        from projections.spreadsheet import SafeWriter

        writer = SafeWriter(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([row.get(c) for c in columns])
    else:
        grid = RichTable(title=escape(title))
        for index, column in enumerate(columns):
            grid.add_column(column.replace("_", " "), no_wrap=index == 0)
        for row in rows:
            grid.add_row(*(escape(_cell(row.get(c))) for c in columns))
        output_console(handle).print(grid)


def _cell(value: Any) -> str:
    return {True: "yes", False: "no", None: ""}.get(value, str(value)) \
        if isinstance(value, bool | None) else str(value)


def _write_sheet(handle: Any, shape: str, sheet: dict[str, Any]) -> None:
    from projections.days import SHEET_COLUMNS

    if shape != "table":
        if shape == "json":
            handle.write(json.dumps(sheet, indent=2, default=str) + "\n")
        else:
            _write_rows(handle, "csv", sheet["players"], SHEET_COLUMNS, "")
        return
    console = output_console(handle)
    _write_rows(handle, "table", sheet["players"], SHEET_COLUMNS[1:],
                f"The night of {sheet['date']} ({sheet['time_zone']}, from "
                f"{sheet['day_starts_at']}): {sheet['from']} to {sheet['to']}")
    _write_rows(handle, "table", sheet["tables"], ("name", "deals", "kitty_change"), "Tables")
    checks = sheet["checks"]
    console.print(f"{sheet['deals']} deals; {len(sheet['disputes'])} disputes raised; "
                  f"held before {checks['chips_held_before']} + issued "
                  f"{checks['chips_issued']} - redeemed {checks['chips_redeemed']} = held "
                  f"{checks['chips_held']}: "
                  + ("balanced" if checks["balanced"] else "NOT BALANCED"), highlight=False)
    closed = sheet["closed"]
    if closed is not None:
        console.print(f"closed {closed['at']}, checkpoint {closed['checkpoint']}; "
                      f"differences {closed['differences'] or 'none'}", highlight=False)
