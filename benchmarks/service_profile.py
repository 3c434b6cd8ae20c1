"""Where the service's workers spend their time: py-spy samples of every worker under load.

`benchmarks/service.py --profile` runs one more measured window with py-spy (PyPI `py-spy`)
attached to each gunicorn worker, twice over: once sampling only the threads that are running
(`cpu`: where the CPU goes) and once every thread whether running or waiting (`--idle`,
`wall`: where a request's time goes, waits on PostgreSQL, the GIL and locks included). Both
are `--nonblocking` (the workers are not paused to be sampled; a few stacks may come out
torn) and at a modest rate, so the profiler costs the machine little. The raw collapsed
stacks are kept (`var/bench-profile/` by default, for flame graphs) and summed up here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

RATE = 50  # samples a second per thread
REQUEST_FRAME = "gunicorn/workers/gthread.py"  # a thread with this frame is serving a request
HANDLE = "handle ("


def py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(found).exists():
        raise SystemExit("py-spy is not installed: make install (the `bench` extra)")
    return found


class Recording:
    """py-spy recording the given processes for `seconds`, two ways each (cpu and wall)."""

    def __init__(self, pids: list[int], folder: Path) -> None:
        self.pids, self.folder = pids, folder
        folder.mkdir(parents=True, exist_ok=True)
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, seconds: float) -> None:
        for pid in self.pids:
            for kind in ("cpu", "wall"):
                argv = [py_spy(), "record", "--pid", str(pid), "--duration",
                        str(max(1, round(seconds))), "--rate", str(RATE), "--format", "raw",
                        "--nonblocking", "--output", str(self.file(pid, kind))]
                if kind == "wall":
                    argv.append("--idle")
                self.processes.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                                       stderr=subprocess.DEVNULL))

    def wait(self, timeout: float) -> None:
        for process in self.processes:
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.terminate()
                process.wait(timeout=5)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=5)

    def file(self, pid: int, kind: str) -> Path:
        return self.folder / f"worker-{pid}-{kind}.txt"

    def stacks(self, kind: str) -> list[tuple[list[str], int]]:
        out = []
        for pid in self.pids:
            path = self.file(pid, kind)
            if path.exists():
                out += read_raw(path.read_text().splitlines())
        return out


def read_raw(lines: Iterable[str]) -> list[tuple[list[str], int]]:
    """py-spy's raw format: `frame;frame;... count`, the root first, a frame `f (file:line)`."""
    out = []
    for line in lines:
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            out.append((stack.split(";"), int(count)))
    return out


def _file(frame: str) -> str:
    inside = frame[frame.rfind("(") + 1:].rstrip(")")
    return inside.rsplit(":", 1)[0]


def _function(frame: str) -> str:
    """A frame without its line number: `Ledger.act (application/ledger.py)`."""
    name, _, _ = frame.rpartition(" (")
    return f"{name} ({_file(frame)})"


def package(frame: str) -> str:
    """The top-level package or module of a frame's file: `eventsourcing`, `json`, `api`."""
    path = _file(frame)
    if "site-packages/" in path:
        path = path.split("site-packages/", 1)[1]
    head = path.split("/", 1)[0]
    return head[:-3] if head.endswith(".py") else head


def serving(stack: list[str]) -> bool:
    return any(frame.startswith(HANDLE) and REQUEST_FRAME in frame for frame in stack)


def summary(recording: Recording, top: int = 15) -> list[str]:
    """The lines to print: wall shares, then CPU by package (self) and by function."""
    cpu = [(s, n) for s, n in recording.stacks("cpu") if serving(s)]
    wall = [(s, n) for s, n in recording.stacks("wall") if serving(s)]
    cpu_total = sum(n for _, n in cpu)
    wall_total = sum(n for _, n in wall)
    if not cpu_total or not wall_total:
        return ["profile: no samples (is py-spy allowed to read the workers?)"]
    lines = [f"raw stacks in {recording.folder}"]
    in_psycopg = sum(n for s, n in wall if any(package(f) == "psycopg" for f in s))
    lines.append(
        f"request threads: {wall_total} samples serving requests, {cpu_total} of them running "
        f"({100 * cpu_total / wall_total:.0f}%; the rest waiting: PostgreSQL, the GIL, locks); "
        f"inside psycopg (a query, its wait included) {100 * in_psycopg / wall_total:.0f}%")
    selfish: Counter[str] = Counter()
    for stack, n in cpu:
        selfish[package(stack[-1])] += n
    lines.append("CPU by package of the running frame: " + ", ".join(
        f"{name} {100 * n / cpu_total:.0f}%" for name, n in selfish.most_common(12)))
    lines.append(f"CPU by function, inclusive (% of {cpu_total} running samples):")
    lines += [f"  {100 * n / cpu_total:5.1f}%  {name}" for name, n in inclusive(cpu, top)]
    lines.append("wall time of request threads by function, inclusive:")
    lines += [f"  {100 * n / wall_total:5.1f}%  {name}" for name, n in inclusive(wall, top)]
    return lines


SKIP = ("gunicorn", "threading", "concurrent", "flask", "werkzeug", "socketserver")


def inclusive(stacks: list[tuple[list[str], int]], top: int) -> list[tuple[str, int]]:
    """Functions by the samples they appear in (once a sample), the server's plumbing left out."""
    counts: Counter[str] = Counter()
    for stack, n in stacks:
        for name in {_function(f) for f in stack if package(f) not in SKIP}:
            counts[name] += n
    return counts.most_common(top)
