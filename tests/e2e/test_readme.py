"""The README's sessions work as written: its marked shell blocks run, in order and in one
bash, against a real `pontoon serve` on a fresh store, and each command prints exactly what
the `# →` lines after it say, line for line, so the README cannot drift from what the
service answers. The session writes its files into a temporary folder, never the folder it
is pasted in.

Needs curl and jq (`.ci/run` installs jq when it is missing).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.test_serve import TOKEN, Server, _serve, _wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- README session"
BLOCK = re.compile(r"```bash\n(.*?)```", re.S)
SHOWN = "# → "
STEP = "@@README step {}@@"


@dataclass(frozen=True)
class Step:
    """Commands and the lines they print (their `# →` lines); `shown` is None for the
    commands after a block's last `# →` line, whose output the README does not show."""

    code: str
    shown: tuple[str, ...] | None


def sessions(readme: str) -> list[str]:
    """The bash blocks that follow a session marker, in order."""
    blocks = []
    for part in readme.split(MARKER)[1:]:
        found = BLOCK.search(part)
        assert found and part.index("```bash") < part.find("\n\n", part.index("-->")) + 2, \
            "a session marker stands right before its bash block"
        blocks.append(found.group(1))
    return blocks


def steps(block: str) -> list[Step]:
    """A block cut after each run of `# →` lines: the commands before the run print it."""
    found: list[Step] = []
    code: list[str] = []
    shown: list[str] = []
    for line in block.splitlines():
        if line.lstrip().startswith(SHOWN):
            shown.append(line.split(SHOWN, 1)[1])
            continue
        if shown:
            found.append(Step("\n".join(code), tuple(shown)))
            code, shown = [], []
        code.append(line)
    if shown:
        found.append(Step("\n".join(code), tuple(shown)))
    elif any(line.strip() for line in code):
        found.append(Step("\n".join(code), None))
    return found


def script(all_steps: list[Step]) -> str:
    """The steps in one bash, each followed by a line that marks where its output ends."""
    return "set -eo pipefail\n" + "".join(f"{step.code}\necho '{STEP.format(n)}'\n"
                                          for n, step in enumerate(all_steps))


def printed(stdout: str, count: int) -> list[list[str]]:
    """What each step printed, by the marks `script` puts after each."""
    outputs, lines = [], stdout.splitlines()
    for n in range(count):
        mark = lines.index(STEP.format(n))
        outputs.append(lines[:mark])
        lines = lines[mark + 1:]
    return outputs


def test_a_step_is_the_commands_before_a_run_of_shown_lines() -> None:
    block = "A=1\necho a\n# → a\necho b\necho c\n# → b\n# → c\necho done\n"

    found = steps(block)

    assert found == [Step("A=1\necho a", ("a",)), Step("echo b\necho c", ("b", "c")),
                     Step("echo done", None)]
    ran = subprocess.run(["bash", "-c", script(found)], capture_output=True, text=True,
                         check=True)
    assert printed(ran.stdout, 3) == [["a"], ["b", "c"], ["done"]]


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
    all_steps = [step for block in sessions((ROOT / "README.md").read_text(encoding="utf-8"))
                 for step in steps(block)]
    work, scratch = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    scratch.mkdir()
    (work / ".venv").symlink_to(ROOT / ".venv")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PONTOON_")}
    env.update(T=TOKEN, BASE=server.base, TMPDIR=str(scratch),
               PONTOON_DATABASE_URL=f"sqlite:///{tmp_path}/readme.sqlite3")

    ran = subprocess.run(["bash", "-c", script(all_steps)], cwd=work, env=env,
                         capture_output=True, text=True, timeout=180)

    assert ran.returncode == 0, ran.stdout + ran.stderr + server.log_tail()
    drifted = [f"the README says\n{step.code.strip()}\nprints {list(step.shown)}; it printed "
               f"{output}" for step, output in zip(all_steps, printed(ran.stdout,
                                                                   len(all_steps)), strict=True)
               if step.shown is not None and output != list(step.shown)]
    assert not drifted, "\n\n".join(drifted)
    statuses = re.findall(r"^HTTP (\d+)$", ran.stderr, re.M)
    assert statuses and set(statuses) <= {"200", "201", "204", "400", "409"}, ran.stderr
    assert statuses.count("409") == 1 and statuses.count("400") == 1, ran.stderr
    assert sorted(path.name for path in work.iterdir()) == [".venv"], \
        "the session writes its files into a temporary folder, never the one it runs in"
    written = {path.name for path in scratch.rglob("*") if path.is_file()}
    assert {"month.csv", "bob.csv"} <= written, written
