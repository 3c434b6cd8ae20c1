"""Where the service's workers spend their time: py-spy samples of every worker under load.

`benchmarks/service.py --profile` runs one more measured window with py-spy (PyPI `py-spy`)
recording each gunicorn worker, every thread whether running or waiting (`--idle`), for the
whole window. Only the samples of threads serving a request count (a stack through
waitress's `HTTPChannel.service`, api/front.py); they are split into:

- waiting in psycopg's C wait for PostgreSQL to answer (the innermost frame is
  `Connection.wait`; a thread that has its answer but waits for the GIL to go on is still
  there, so this is an upper bound on the database's share);
- Python work: every other sample, running or waiting for the GIL at the point where the
  interpreter made it let go, so these are spread like the CPU time itself.

Why not py-spy's own "running" test, or `--gil`: the first was seen to count threads blocked
in psycopg's wait as running (more running threads than the cores the workers used), the
second gave fewer samples than the CPU the workers used; and `--nonblocking` dropped far more
samples of busy threads than of idle ones. So py-spy pauses a worker for each sample (its
default), at a modest rate. The raw collapsed stacks are kept (`var/bench-profile/` by
default; `flamegraph.pl` draws them).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

RATE = 50  # samples a second per thread
SERVING = "HTTPChannel.service (waitress/channel.py"  # the frame of a served request
DB_WAIT = "Connection.wait (psycopg/connection.py"  # innermost: in the C wait for the server
PLUMBING = ("gunicorn", "waitress", "threading", "concurrent", "flask", "werkzeug", "webargs",
            "flask_smorest")  # left out of the by-function lists: every request passes there

Stack = tuple[list[str], int]


def py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(found).exists():
        raise SystemExit("py-spy is not installed: make install (the `bench` extra)")
    return found


class Recording:
    """py-spy recording each worker, `start` to `wait`; `stop` ends it early."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pids: list[int] = []
        self.seconds = 0
        self.processes: list[subprocess.Popen[str]] = []
        self.notes: list[str] = []  # py-spy's own count of samples and errors

    def start(self, pids: list[int], seconds: float) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.pids, self.seconds = pids, max(1, round(seconds))
        for pid in pids:
            self.file(pid).unlink(missing_ok=True)
            self.processes.append(subprocess.Popen(
                [py_spy(), "record", "--pid", str(pid), "--duration", str(self.seconds),
                 "--rate", str(RATE), "--idle", "--format", "raw",
                 "--output", str(self.file(pid))],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))

    def wait(self) -> None:
        for process in self.processes:
            out, _ = process.communicate(timeout=self.seconds + 60)
            self.notes += [line.split(". ", 1)[-1] for line in out.splitlines()
                           if "Samples:" in line]

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=5)

    def file(self, pid: int) -> Path:
        return self.folder / f"worker-{pid}.txt"

    def stacks(self) -> list[Stack]:
        out: list[Stack] = []
        for pid in self.pids:
            if self.file(pid).exists():
                out += read_raw(self.file(pid).read_text().splitlines())
        return out


def read_raw(lines: Iterable[str]) -> list[Stack]:
    """py-spy's raw format: `frame;frame;... count`, the root first, a frame `f (file:line)`."""
    out = []
    for line in lines:
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            out.append((stack.split(";"), int(count)))
    return out


def _file(frame: str) -> str:
    return frame[frame.rfind("(") + 1:].rstrip(")").rsplit(":", 1)[0]


def function(frame: str) -> str:
    """A frame without its line number: `Ledger.act (application/ledger.py)`."""
    return f"{frame.rpartition(' (')[0]} ({_file(frame)})"


def package(frame: str) -> str:
    """The top-level package or module of a frame's file: `eventsourcing`, `json`, `api`."""
    path = _file(frame).split("site-packages/")[-1]
    head = path.split("/", 1)[0]
    return head.removesuffix(".py")


def summary(recording: Recording, top: int = 12) -> list[str]:
    serving = [(s, n) for s, n in recording.stacks() if any(f.startswith(SERVING) for f in s)]
    total = sum(n for _, n in serving)
    if not total:
        return ["profile: no samples (is py-spy allowed to read the workers?)"]
    waiting = sum(n for s, n in serving if s[-1].startswith(DB_WAIT))
    work = [(s, n) for s, n in serving if not s[-1].startswith(DB_WAIT)]
    busy = total / (RATE * recording.seconds * len(recording.pids))
    lines = [f"py-spy: {'; '.join(recording.notes)}; raw stacks in {recording.folder}",
             f"threads serving a request: {busy:.1f} per worker on average; of their time, "
             f"{100 * waiting / total:.0f}% waiting in psycopg for PostgreSQL (or for the GIL "
             f"after its answer), {100 * (total - waiting) / total:.0f}% Python work "
             "(running, or waiting for the GIL)"]
    innermost: Counter[str] = Counter()
    for stack, n in work:
        innermost[package(stack[-1])] += n
    lines.append("Python work by package of the innermost frame: " + ", ".join(
        f"{name} {100 * n / total:.0f}%" for name, n in innermost.most_common(10)))
    lines.append("Python work by function, inclusive (% of all serving time):")
    lines += [f"  {100 * n / total:5.1f}%  {name}" for name, n in inclusive(work, top)]
    lines.append("all serving time by function, inclusive (waits included):")
    lines += [f"  {100 * n / total:5.1f}%  {name}" for name, n in inclusive(serving, top)]
    return lines


def inclusive(stacks: list[Stack], top: int) -> list[tuple[str, int]]:
    """Functions by the samples they appear in (once a sample), the plumbing left out."""
    counts: Counter[str] = Counter()
    for stack, n in stacks:
        for name in {function(f) for f in stack if package(f) not in PLUMBING}:
            counts[name] += n
    return counts.most_common(top)
