"""The rules engine stays pure: its imports are read from the source, never executed."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "domain"

# Standard-library modules that do I/O or hide inputs: randomness and time are passed in.
FORBIDDEN_STDLIB = frozenset(
    {"os", "sqlite3", "socket", "random", "time", "subprocess", "io", "pathlib", "urllib", "http"}
)

# Aggregates and application services sit on the eventsourcing library; the engine may not.
EVENTSOURCING_ALLOWED_PREFIXES = ("aggregates", "application")

# Calls that read the clock, whatever module they were imported from.
CLOCK_READS = frozenset({"now", "utcnow", "today"})


def _domain_files() -> list[Path]:
    files = sorted(DOMAIN.rglob("*.py"))
    assert files, f"no Python files found under {DOMAIN}"
    return files


def _imported_modules(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Yield (top-level module name, line) for every absolute import."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno


def _may_use_eventsourcing(path: Path) -> bool:
    first_part = path.relative_to(DOMAIN).parts[0]
    return first_part.startswith(EVENTSOURCING_ALLOWED_PREFIXES)


# The application service is where the engine's inputs come from: it may draw fresh seeds
# and wait before retrying a command that lost a race.
APPLICATION_ONLY_STDLIB = frozenset({"random", "time"})


def _is_allowed(module: str, path: Path) -> bool:
    if module == "domain":
        return True
    if module == "eventsourcing":
        return _may_use_eventsourcing(path)
    if module in APPLICATION_ONLY_STDLIB and path.name.startswith("application"):
        return True
    return module in sys.stdlib_module_names and module not in FORBIDDEN_STDLIB


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(DOMAIN.parent)}:{line}"


def test_the_rules_engine_imports_only_the_standard_library() -> None:
    offences = []
    for path in _domain_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for module, line in _imported_modules(tree):
            if not _is_allowed(module, path):
                offences.append(f"{_where(path, line)} imports {module}")

    assert not offences, "domain/ must not do I/O or import these:\n" + "\n".join(offences)


def test_the_rules_engine_never_reads_the_clock() -> None:
    offences = []
    for path in _domain_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in CLOCK_READS
            ):
                offences.append(f"{_where(path, node.lineno)} calls .{node.func.attr}()")

    assert not offences, "time is an input to domain/, not read there:\n" + "\n".join(offences)
