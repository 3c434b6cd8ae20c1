"""Output a script can read, for every `pontoon` command: tables at their full width when
not on a terminal, progress bars on a terminal's stderr only, `--format json`, and an
`--output` file checked before any work (README, The pontoon command)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console

WIDE = 10_000  # the width of output that is not a terminal: a table is never cut

def output_console(file: Any = None) -> Console:
    """Where a command's output goes: a terminal at its own width, anything else (a pipe,
    a file) so wide that no table is cut."""
    console = Console(file=file)
    return console if console.is_terminal else Console(file=file, width=WIDE)


def progress_bar(_console: Console | None, label: str):  # type: ignore[no-untyped-def]
    """A bar for long commands, done of total and the time left, on stderr and only on a
    terminal, whatever console the command prints to: piped output never holds its
    frames."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    console = Console(stderr=True)
    return Progress(f"[progress.description]{label}", BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=console, disable=not console.is_terminal)


def shape_option(*shapes: str):  # type: ignore[no-untyped-def]
    """`--format`: text for people (the default) or JSON for scripts."""
    return click.option("--format", "shape", type=click.Choice(shapes or ("text", "json")),
                        default=(shapes or ("text",))[0], show_default=True,
                        help="text to read, or json for a script (README, The pontoon "
                             "command).")


def emit_json(data: Any) -> None:
    import json

    click.echo(json.dumps(data, indent=2))


def output_option():  # type: ignore[no-untyped-def]
    """`--output FILE`: where a command writes what it prints, checked before any work."""
    return click.option("--output", default="-", metavar="FILE",
                        callback=lambda _, __, value: writable_file("--output", value),
                        help="File to write, in a folder that exists (default: standard "
                             "output).")


def writable_file(option: str, value: str) -> str:
    """An output file's folder must exist (`-`: standard output): checked before any
    work, so a mistyped path costs nothing."""
    if value != "-":
        folder = Path(value).parent
        if not folder.is_dir():
            raise click.BadParameter(f"the folder {folder} does not exist", param_hint=option)
        if Path(value).is_dir():
            raise click.BadParameter(f"{value} is a folder; name a file", param_hint=option)
    return value
