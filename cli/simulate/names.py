"""Names for a simulation's bots and table that no player or table has already.

`pick_names` is pure: whoever simulates (over HTTP here, or in process) gives it the names
taken in the store, and gets the bots' names and the table's with one number, the smallest
that frees them all: "Alice", "Bob" and "Simulated Pontoon school" in an empty store, then
"Alice 2", "Bob 2" and "Simulated Pontoon school 2", and so on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def numbered(name: str, number: int) -> str:
    return name if number == 1 else f"{name} {number}"


def pick_names(bases: Sequence[str], table: str, taken: Iterable[str]
               ) -> tuple[list[str], str]:
    """The bots' names (one for each of `bases`) and the table's (`table`), all with the
    smallest number that none of `taken` (player and table names, compared in any case)
    already holds."""
    held = {name.casefold() for name in taken}
    number = 1
    while any(numbered(name, number).casefold() in held for name in (*bases, table)):
        number += 1
    return [numbered(name, number) for name in bases], numbered(table, number)
