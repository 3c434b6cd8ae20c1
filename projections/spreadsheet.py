"""CSV as a spreadsheet will read it, for every CSV the ledger writes: the API's downloads
and the shell's exports and reports.

A cell a spreadsheet would run as a formula (CSV injection: a player named
`=HYPERLINK(...)`) is written as text, behind an apostrophe: one whose first character
after any leading white space is `=`, `+`, `-`, `@`, a tab or a carriage return, or a
full-width (or small) form of the four signs, which some spreadsheets read as the sign
(API.md Additions, "Service under hostile clients").
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import IO, Any

_CONTROLS = ("\t", "\r")
# = + - @, their full-width forms (U+FF1D, U+FF0B, U+FF0D, U+FF20) and small forms.
_SIGNS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20", "\ufe66", "\ufe62",
          "\ufe63", "\ufe6b")


def cell(value: Any) -> Any:
    """Text a spreadsheet would run is kept as text; None is an empty cell. Numbers are
    left alone: a negative amount is a number, not a formula."""
    if isinstance(value, str) and (value.startswith(_CONTROLS)
                                   or value.lstrip().startswith(_SIGNS)):
        return "'" + value
    return "" if value is None else value


class SafeWriter:
    """A csv.writer whose every cell goes through `cell`."""

    def __init__(self, handle: IO[str]) -> None:
        self._writer = csv.writer(handle)

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([cell(value) for value in row])
