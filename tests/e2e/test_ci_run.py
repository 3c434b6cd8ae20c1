"""`.ci/run` fails, never skips, when it cannot get PostgreSQL or chromium (issue 22).

A green CI run must mean every test ran: the script checks for both before testing anything
and exits 1 naming what is missing. Here it is pointed at places that hold neither (its
PG_ROOT and CHROMIUM), with installing turned off (CI_INSTALL=no), so each case fails at
once, before a server starts or a test runs.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ci_run(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(ROOT / ".ci" / "run")], cwd=ROOT, text=True,
                          capture_output=True, timeout=60, check=False,
                          env={**os.environ, "CI_INSTALL": "no", **env})


def test_ci_fails_without_postgresql(tmp_path: Path) -> None:
    run = ci_run(PG_ROOT=str(tmp_path / "no-postgresql"))

    assert run.returncode == 1
    assert "CI cannot run every test: no PostgreSQL binaries" in run.stderr
    assert "make test" not in run.stdout


def test_ci_fails_without_chromium(tmp_path: Path) -> None:
    binaries = tmp_path / "postgresql" / "16" / "bin"
    binaries.mkdir(parents=True)
    for name in ("initdb", "pg_ctl"):  # found, never run: chromium is checked first
        (binaries / name).write_text("#!/bin/sh\nexit 1\n")
        (binaries / name).chmod(0o755)

    run = ci_run(PG_ROOT=str(tmp_path / "postgresql"), CHROMIUM=str(tmp_path / "chromium"))

    assert run.returncode == 1
    assert f"CI cannot run every test: {tmp_path / 'chromium'} is missing" in run.stderr
    assert "Starting a throwaway PostgreSQL" not in run.stdout
