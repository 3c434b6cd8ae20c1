"""The options of `pontoon simulate --start` (a history on a simulated clock), kept apart
from what plays it so that `pontoon --help` imports nothing heavy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from cli.simulate.history import Plan


def _weekdays(text: str | None) -> frozenset[int] | None:
    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    if not text:
        return None
    days = [part.strip()[:3].casefold() for part in text.split(",") if part.strip()]
    if not days or any(day not in names for day in days):
        raise click.BadParameter("days of the week, e.g. tue,fri,sat", param_hint="--weekdays")
    return frozenset(names.index(day) for day in days)


def _zone(text: str) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise click.BadParameter(f"{text!r} is not an IANA time zone (e.g. Europe/London)",
                                 param_hint="--time-zone") from None
    return text


def plan_of(options: dict[str, Any]) -> Plan:
    """The plan the command line asks for (`--start` given)."""
    from datetime import time

    from cli.simulate.history import Plan, club_time_zone

    evening = options["evening"]
    try:
        hour, minute = (int(part) for part in evening.split(":"))
        starts = time(hour, minute)
    except ValueError:
        raise click.BadParameter(f"{evening!r}: a local time HH:MM, e.g. 19:00",
                                 param_hint="--evening") from None
    seed = options.get("seed")
    return Plan(start=options["start"].date(), nights=options["nights"],
                time_zone=_zone(options["time_zone"] or club_time_zone()), evening=starts,
                members=options["members"], tables=options["tables"],
                deals_per_table=options["deals_per_table"],
                weekdays=_weekdays(options["weekdays"]),
                **({"seed": seed} if seed else {}))


OPTIONS = [
    click.option("--start", type=click.DateTime(["%Y-%m-%d"]), default=None,
                 help="Play a history on a simulated clock into the store "
                      "(PONTOON_DATABASE_URL), its first night on this date (no --url)."),
    click.option("--nights", type=click.IntRange(1, 3660), default=1, show_default=True,
                 help="With --start: evenings to play."),
    click.option("--time-zone", default=None,
                 help="With --start: the club's time zone (default: the club's, "
                      "GET /v1/club; UTC for a new store), which the club then keeps."),
    click.option("--evening", default="19:00", show_default=True,
                 help="With --start: when a night's play starts, club time."),
    click.option("--members", type=click.IntRange(2, 5000), default=24, show_default=True,
                 help="With --start: the club's players."),
    click.option("--tables", type=click.IntRange(1, 100), default=3, show_default=True,
                 help="With --start: tables a night."),
    click.option("--deals-per-table", type=click.IntRange(1, 1000), default=30,
                 show_default=True, help="With --start: deals a table plays a night, about."),
    click.option("--weekdays", default=None,
                 help="With --start: the club's nights, e.g. tue,fri,sat (default: every day)."),
]


def history_options(command: Any) -> Any:
    for option in reversed(OPTIONS):
        command = option(command)
    return command
