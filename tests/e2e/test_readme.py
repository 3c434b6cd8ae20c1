"""The README's sessions work as written: its marked shell blocks run, in order and in one
bash, against a real `pontoon serve` on a fresh store, and print what their `# →` lines say.

Needs curl and jq (`.ci/run` installs jq when it is missing).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_serve import TOKEN, Server, _serve, _wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- README session"
BLOCK = re.compile(r"```bash\n(.*?)```", re.S)


def sessions(readme: str) -> list[str]:
    """The bash blocks that follow a session marker, in order."""
    blocks = []
    for part in readme.split(MARKER)[1:]:
        found = BLOCK.search(part)
        assert found and part.index("```bash") < part.find("\n\n", part.index("-->")) + 2, \
            "a session marker stands right before its bash block"
        blocks.append(found.group(1))
    return blocks


def expected(blocks: list[str]) -> list[str]:
    return [line.split("# → ", 1)[1] for block in blocks for line in block.splitlines()
            if line.lstrip().startswith("# → ")]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    for tool in ("curl", "jq", "bash"):
        if shutil.which(tool) is None:
            if os.environ.get("CI"):
                pytest.fail(f"{tool} is missing (.ci/run installs it)")
            pytest.skip(f"the README sessions need {tool}")
    for running in _serve(f"sqlite:///{tmp_path}/readme.sqlite3", tmp_path, migrate=True):
        _wait_until_healthy(running)
        yield running


@pytest.mark.slow
def test_the_readme_sessions_run_as_written_and_print_what_they_say(
        server: Server, tmp_path: Path) -> None:
    blocks = sessions((ROOT / "README.md").read_text(encoding="utf-8"))
    work = tmp_path / "work"
    work.mkdir()
    (work / ".venv").symlink_to(ROOT / ".venv")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PONTOON_")}
    env.update(T=TOKEN, BASE=server.base,
               PONTOON_DATABASE_URL=f"sqlite:///{tmp_path}/readme.sqlite3")

    ran = subprocess.run(["bash", "-c", "set -eo pipefail\n" + "\n".join(blocks)], cwd=work,
                         env=env, capture_output=True, text=True, timeout=120)

    assert ran.returncode == 0, ran.stdout + ran.stderr + server.log_tail()
    lines = ran.stdout.splitlines()
    position = 0
    for line in expected(blocks):
        assert line in lines[position:], f"{line!r} not printed after line {position}:\n" + \
            ran.stdout
        position = lines.index(line, position) + 1
    statuses = re.findall(r"^HTTP (\d+)$", ran.stderr, re.M)
    assert statuses and set(statuses) <= {"200", "201", "400", "409"}, ran.stderr
    assert statuses.count("409") == 1 and statuses.count("400") == 1, ran.stderr
    assert "balanced" in ran.stdout and (work / "bob.csv").exists()
