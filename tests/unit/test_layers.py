"""The layers import only inward (STYLE.md 1, docs/architecture.md):

    cli, tests  →  api  →  application  →  domain.aggregates  →  domain.engine
                    ↘ projections ↗ (domain events and the engine, never the application)
    cli  →  verification  →  projections, domain (it checks the log and the read models)

and `config` (the one module that reads the environment) imports none of them. Imports are
read from the source, never executed, including those inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("domain", "application", "projections", "verification", "api", "cli", "config")

# The project's packages each layer may import (its own included).
ALLOWED = {
    "domain.engine": {"domain.engine", "domain.errors"},
    "domain.errors": set(),
    "domain.integrity": set(),
    "domain.merkle": set(),
    "domain.aggregates": {"domain.aggregates", "domain.engine", "domain.errors"},
    "application": {"application", "domain", "config"},
    "projections": {"projections", "domain", "config"},
    "verification": {"verification", "projections", "domain", "config"},
    "config": {"config"},
    "api": {"api", "application", "projections", "domain", "config"},
    "cli": {"cli", "api", "application", "projections", "verification", "domain", "config"},
}


def _layer(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[0] == "domain" and len(parts) > 1:
        return f"domain.{parts[1]}" if parts[1] != "__init__" else "domain.engine"
    return parts[0]


def _project_imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and \
            node.module else []
        found += [(name, node.lineno) for name in names if name.split(".")[0] in PROJECT]
    return found


def _allowed(module: str, layer: str) -> bool:
    return any(module == prefix or module.startswith(prefix + ".")
               for prefix in ALLOWED[layer])


@pytest.mark.parametrize("top", PROJECT)
def test_each_layer_imports_only_inward(top: str) -> None:
    offences = []
    for path in sorted((ROOT / top).rglob("*.py")) if (ROOT / top).is_dir() else []:
        layer = _layer(path)
        for module, line in _project_imports(path):
            if not _allowed(module, layer):
                offences.append(f"{path.relative_to(ROOT)}:{line} ({layer}) imports {module}")

    assert not offences, "an import runs against the layers:\n" + "\n".join(offences)


def test_nothing_imports_the_http_layer_but_the_entry_points() -> None:
    offences = [f"{path.relative_to(ROOT)}:{line} imports {module}"
                for top in ("domain", "application", "projections", "config")
                for path in sorted((ROOT / top).rglob("*.py"))
                for module, line in _project_imports(path) if module.split(".")[0] == "api"]

    assert not offences, "only cli/ (and tests) may import api/:\n" + "\n".join(offences)


def test_every_project_module_belongs_to_a_known_layer() -> None:
    layers = {_layer(path) for top in PROJECT for path in (ROOT / top).rglob("*.py")}

    assert layers <= set(ALLOWED), sorted(layers - set(ALLOWED))
