"""The domain stays pure: its imports are read from the source, never executed.

The rules engine (domain/engine/) imports the standard library and itself only; the
aggregates (domain/aggregates/) add the eventsourcing library; neither does I/O nor reads
the clock. The layers around them are checked in test_layers.py."""

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

# Aggregates sit on the eventsourcing library; the engine may not import it at all.
EVENTSOURCING_ALLOWED_PREFIXES = ("aggregates",)

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


def _is_allowed(module: str, path: Path) -> bool:
    if module == "domain":
        return True
    if module == "eventsourcing":
        return _may_use_eventsourcing(path)
    return module in sys.stdlib_module_names and module not in FORBIDDEN_STDLIB


def test_the_engine_imports_nothing_of_the_aggregates_or_the_library() -> None:
    offences = []
    for path in sorted((DOMAIN / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                    node.module.startswith("domain.aggregates"):
                offences.append(f"{_where(path, node.lineno)} imports {node.module}")
            if isinstance(node, ast.Import | ast.ImportFrom) and any(
                    (alias.name if isinstance(node, ast.Import) else node.module or "")
                    .startswith("eventsourcing") for alias in node.names):
                offences.append(f"{_where(path, node.lineno)} imports eventsourcing")

    assert not offences, "domain/engine/ is the pure rules engine:\n" + "\n".join(offences)


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
