"""The ledger's checks stay under `python -O`, which removes every `assert` (STYLE.md 6).

The invariants' own tests and the ledger's tests on SQLite run again in a child Python
started with -O (`make test-optimised` runs the same), and pass: every check they break is
a named error, not an assert. The child is first shown to drop asserts, so a pass means
something. pytest rewrites the tests' own asserts whatever -O says; its warning that the
project's asserts are not executed is expected there, and is why it is ignored.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The ledger's tests that break invariants on purpose, and the ledger's commands end to end.
OPTIMISED = ("tests/unit/test_invariants.py", "tests/integration/test_shared_state.py",
             "tests/integration/test_ledger_guards.py",
             "tests/integration/test_atomic_saves.py")
PYTEST_UNDER_O = (sys.executable, "-O", "-m", "pytest", "-p", "no:cacheprovider",
                  "-W", "ignore::pytest.PytestConfigWarning", "-k", "not postgres")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_ledgers_checks_fire_and_its_tests_pass_under_python_O() -> None:
    dropped = subprocess.run([sys.executable, "-O", "-c", "assert False, 'kept'"],
                             capture_output=True, text=True, check=False)
    env = {k: v for k, v in os.environ.items() if k != "PONTOON_REQUIRE_POSTGRES"}

    run = subprocess.run([*PYTEST_UNDER_O, *OPTIMISED], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=False)

    assert dropped.returncode == 0, "python -O should have dropped the assert"
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = re.search(r"(\d+) passed", run.stdout)
    assert passed is not None and int(passed[1]) >= 40 and " failed" not in run.stdout
