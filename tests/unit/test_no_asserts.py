"""Invariants are checks that stay under `python -O`, never `assert` (STYLE.md 6).

`python -O` removes every `assert`, so the production packages narrow types with
`present` and `of_kind` from domain/errors.py, which raise `InvariantBroken` instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from domain.errors import InvariantBroken, of_kind, present

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "application", "api", "projections", "verification", "cli", "config")


def asserts_in(source: str, name: str) -> list[str]:
    """Where `source` (the file `name`) holds an `assert` statement, as name:line."""
    return [f"{name}:{node.lineno}" for node in ast.walk(ast.parse(source, name))
            if isinstance(node, ast.Assert)]


def production_files() -> list[Path]:
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


def test_the_search_finds_an_assert_and_names_its_line() -> None:
    source = "def f(x):\n    y = x  # assert in a comment is fine\n    assert y is not None\n"

    assert asserts_in(source, "somewhere.py") == ["somewhere.py:3"]
    assert asserts_in("x = 'assert x'\n", "quoted.py") == []


def test_no_production_module_holds_an_assert() -> None:
    files = production_files()

    found = [line for path in files for line in
             asserts_in(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]

    assert len(files) > 100, "the packages to search were not found"
    assert found == [], "use present()/of_kind() from domain/errors.py: " + ", ".join(found)


def test_present_returns_a_value_that_exists() -> None:
    assert present(0, "a turn") == 0
    assert present([], "an auction in progress") == []


def test_present_raises_an_invariant_naming_what_is_missing() -> None:
    with pytest.raises(InvariantBroken) as raised:
        present(None, "an auction in progress")

    assert raised.value.status == 500
    assert raised.value.invariant == "an auction in progress exists"
    assert "an auction in progress" in raised.value.message


def test_of_kind_returns_a_value_of_its_kind() -> None:
    assert of_kind(3, int, "an amount") == 3


def test_of_kind_raises_an_invariant_naming_what_and_both_kinds() -> None:
    with pytest.raises(InvariantBroken) as raised:
        of_kind("3", int, "a checked amount")

    assert raised.value.status == 500
    assert raised.value.invariant == "a checked amount is of type int"
    assert "a checked amount" in raised.value.message and "str" in raised.value.message
