"""Every rule id of the rule book (docs/RULES.md, a copy of the normative text) is named by a
test that exercises it: in a test's name (`test_r4_3_...`) or docstring ("R4.3")."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULE_LINE = re.compile(r"^- (R\d+\.\d+)\b", re.MULTILINE)


def rule_ids() -> list[str]:
    return RULE_LINE.findall((ROOT / "docs" / "RULES.md").read_text())


def rules_named_by_tests() -> set[str]:
    named: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                text = " ".join([node.name.replace("_", "."), ast.get_docstring(node) or ""])
                named.update(re.findall(r"R\d+\.\d+", text))
                named.update(f"R{a}.{b}" for a, b in re.findall(r"\br(\d+)\.(\d+)\b", text))
    return named


def test_the_rule_book_lists_every_rule_id():
    ids = rule_ids()

    assert len(ids) == 73 and len(set(ids)) == len(ids)


def test_every_rule_of_the_rule_book_is_named_by_a_test():
    named = rules_named_by_tests()  # once: it parses every test file

    missing = [rule for rule in rule_ids() if rule not in named]

    assert not missing, f"rules no test names: {missing}"
