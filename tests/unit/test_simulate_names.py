"""Decision 146: a simulation's bots and table take one number, the smallest that frees
every one of their names among the names players and tables already have (any case)."""

from __future__ import annotations

from cli.simulate.names import pick_names

BASES = ["Alice", "Bob"]
SCHOOL = "Simulated Pontoon school"


def test_an_empty_store_gives_the_plain_names() -> None:
    assert pick_names(BASES, SCHOOL, []) == (["Alice", "Bob"], SCHOOL)


def test_one_name_taken_in_any_case_moves_every_name_to_the_next_number() -> None:
    assert pick_names(BASES, SCHOOL, ["bob"]) == (["Alice 2", "Bob 2"], f"{SCHOOL} 2")


def test_a_table_name_taken_moves_the_bots_too() -> None:
    taken = ["Alice", "Bob", f"{SCHOOL} 2", "ALICE 3"]

    assert pick_names(BASES, SCHOOL, taken) == (["Alice 4", "Bob 4"], f"{SCHOOL} 4")


def test_a_table_alone_takes_the_first_free_number() -> None:
    assert pick_names([], SCHOOL, [SCHOOL, f"{SCHOOL} 2"]) == ([], f"{SCHOOL} 3")
