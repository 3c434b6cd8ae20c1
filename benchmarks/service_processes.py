"""The processes of `benchmarks/service.py`: a throwaway PostgreSQL cluster, servers, CPU use.

The cluster is started as `.ci/run` starts its own: the newest `/usr/lib/postgresql/*/bin`,
`initdb` and `pg_ctl` run as the `postgres` user when we are root (the server refuses root),
trust authentication, a free port on 127.0.0.1, and `fsync=off` as in CI (commits are not
flushed to disk: the figures are of the stack, not of this machine's disk).

Every process started here runs in a session of its own and is stopped by its process group
(SIGTERM, then SIGKILL after a grace period); the cluster is stopped and its folder removed.
"""

from __future__ import annotations

import glob
import http.client
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def postgres_bin() -> Path | None:
    """The newest /usr/lib/postgresql/*/bin with initdb and pg_ctl, as .ci/run picks it."""
    found = [Path(d) for d in glob.glob("/usr/lib/postgresql/*/bin")
             if (Path(d) / "initdb").exists() and (Path(d) / "pg_ctl").exists()]
    if not found:
        return None
    return max(found, key=lambda d: [int(p) for p in d.parent.name.split(".") if p.isdigit()])


class Cluster:
    """A throwaway PostgreSQL cluster in a temporary folder (`start`, then `stop`)."""

    def __init__(self, binaries: Path) -> None:
        self.bin = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="pontoon-bench-pg."))
        self.data = self.folder / "data"
        self.port = free_port()
        self.root = os.getuid() == 0
        if self.root:
            shutil.chown(self.folder, "postgres")

    def _run(self, *argv: str) -> None:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if self.root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, cwd=self.folder, capture_output=True, text=True)
        if done.returncode:
            log = self.folder / "server.log"
            raise SystemExit(f"{' '.join(argv[:2])} failed:\n{done.stdout}{done.stderr}"
                             + (log.read_text() if log.exists() else ""))

    def start(self, *, statements: bool = False) -> None:
        """`statements`: load pg_stat_statements (counts every statement, for --profile)."""
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres")
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c max_connections=300")
        if statements:
            options += " -c shared_preload_libraries=pg_stat_statements"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"),
                  "-w", "-o", options, "start")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def version(self) -> str:
        import psycopg

        with psycopg.connect(self.url("postgres")) as conn:
            row = conn.execute("SHOW server_version").fetchone()
        return str(row[0]) if row else "?"

    def postmaster(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            try:
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
            except SystemExit:
                pid = self.postmaster()
                if pid is not None:
                    os.kill(pid, signal.SIGQUIT)  # only the postmaster this run started
                    time.sleep(1)
        shutil.rmtree(self.folder, ignore_errors=True)


class Server:
    """A server process started in a session of its own, its output in a log file."""

    def __init__(self, name: str, argv: list[str], *, env: dict[str, str], port: int,
                 log: Path, cwd: Path) -> None:
        self.name, self.port, self.log = name, port, log
        self._out: IO[bytes] = open(log, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=self._out,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_ready(self, path: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"{self.name} exited with {self.process.returncode}:\n"
                                 + self.log.read_text(errors="replace")[-3000:])
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", path)
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit(f"{self.name} did not answer GET {path} within {timeout:.0f} s")

    def workers(self) -> list[int]:
        """The worker processes of a gunicorn arbiter: this process's children."""
        return children(self.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
            except ProcessLookupError:
                pass
        self._out.close()


def children(pid: int) -> list[int]:
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            found.append(int(stat.split("/")[2]))
    return sorted(found)


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds used so far by these processes (those still running)."""
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (every core, every process)."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / TICKS


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def connections(pids: list[int], port: int) -> list[int]:
    """Established TCP connections to `port` that each process holds open (keep-alive)."""
    established = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                established.add(fields[9])  # the socket's inode
    counts = []
    for pid in pids:
        inodes = set()
        for fd in glob.glob(f"/proc/{pid}/fd/*"):
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        counts.append(len(inodes & established))
    return counts
