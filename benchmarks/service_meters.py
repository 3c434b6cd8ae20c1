"""What `benchmarks/service.py` reads while a window is open, besides the clients' own counts.

- `CpuMeter`: the cores each party used (the server's processes, PostgreSQL's, the clients'
  process, and the rest of the machine: other people's work), from /proc; and the keep-alive
  connections each worker holds when the window closes.
- `DbMeter`: PostgreSQL's own counters for the database (`pg_stat_database`): transactions
  and rows written and read, to divide by the POSTs of the window.
- `StatementsMeter` (with `--profile`, whose cluster loads `pg_stat_statements`): the
  statements the database ran, by text, most called first.
"""

from __future__ import annotations

from typing import Any

from benchmarks.service_processes import (
    Cluster,
    Server,
    children,
    connections,
    cpu_seconds,
    machine_busy_seconds,
    own_cpu_seconds,
)


class CpuMeter:
    """The cores each party used during the window, from /proc."""

    def __init__(self, server: Server, cluster: Cluster, duration: float) -> None:
        self.server, self.cluster, self.duration = server, cluster, duration
        self.before: dict[str, float] = {}
        self.cores: dict[str, float] = {}
        self.connections: list[int] = []  # keep-alive connections each worker holds

    def read(self) -> dict[str, float]:
        postmaster = self.cluster.postmaster()
        postgres = [postmaster, *children(postmaster)] if postmaster else []
        return {"server": cpu_seconds([self.server.pid, *self.server.workers()]),
                "postgres": cpu_seconds(postgres), "clients": own_cpu_seconds(),
                "machine": machine_busy_seconds()}

    def opened(self) -> None:
        self.before = self.read()

    def closed(self) -> None:
        after = self.read()
        self.connections = connections(self.server.workers(), self.server.port)
        self.cores = {k: (after[k] - self.before[k]) / self.duration for k in after}
        self.cores["others"] = max(0.0, self.cores["machine"] - self.cores["server"]
                                   - self.cores["postgres"] - self.cores["clients"])

    def text(self, server: str) -> str:
        c = self.cores
        return (f"{server} {c['server']:.2f}, PostgreSQL {c['postgres']:.2f}, clients "
                f"{c['clients']:.2f}, other processes {c['others']:.2f}") if c else "?"

    def per_request_ms(self, requests: int) -> str:
        """CPU milliseconds a request cost the server and PostgreSQL."""
        if not self.cores or not requests:
            return "?"
        rate = requests / self.duration
        return (f"{1000 * self.cores['server'] / rate:.2f} ms server + "
                f"{1000 * self.cores['postgres'] / rate:.2f} ms PostgreSQL")


STAT = ("xact_commit", "xact_rollback", "tup_inserted", "tup_updated", "tup_fetched",
        "tup_returned")


class DbMeter:
    """pg_stat_database's counters for one database over the window."""

    def __init__(self, cluster: Cluster, database: str) -> None:
        self.cluster, self.database = cluster, database
        self.before: dict[str, int] = {}
        self.delta: dict[str, int] = {}

    def read(self) -> dict[str, int]:
        import psycopg

        with psycopg.connect(self.cluster.url(self.database), autocommit=True) as conn:
            conn.execute("SELECT pg_stat_force_next_flush()")
            row = conn.execute(f"SELECT {', '.join(STAT)} FROM pg_stat_database "
                               "WHERE datname = %s", (self.database,)).fetchone()
        return dict(zip(STAT, row or (0,) * len(STAT), strict=True))

    def opened(self) -> None:
        self.before = self.read()

    def closed(self) -> None:
        after = self.read()
        self.delta = {k: after[k] - self.before[k] for k in STAT}

    def per(self, requests: int) -> str:
        if not self.delta or not requests:
            return "?"
        d = self.delta
        return (f"{(d['xact_commit'] + d['xact_rollback']) / requests:.1f} transactions "
                f"({d['xact_rollback'] / requests:.2f} rolled back), "
                f"{d['tup_inserted'] / requests:.1f} rows inserted, "
                f"{d['tup_updated'] / requests:.1f} updated, "
                f"{d['tup_fetched'] / requests:.1f} fetched")


class StatementsMeter:
    """pg_stat_statements for one database over the window (the cluster must load it)."""

    def __init__(self, cluster: Cluster, database: str) -> None:
        self.cluster, self.database = cluster, database
        self.rows: list[tuple[Any, ...]] = []

    def _connect(self) -> Any:
        import psycopg

        return psycopg.connect(self.cluster.url(self.database), autocommit=True)

    def opened(self) -> None:
        with self._connect() as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            conn.execute("SELECT pg_stat_statements_reset()")

    def closed(self) -> None:
        with self._connect() as conn:
            self.rows = conn.execute(
                "SELECT calls, total_exec_time, query FROM pg_stat_statements s "
                "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = %s "
                "ORDER BY calls DESC", (self.database,)).fetchall()

    def lines(self, requests: int, top: int = 12) -> list[str]:
        """Statements a POST, most called first, with the time each took in the server.

        Top-level statements only: what the insert function does inside (its lock, the
        insert, the chain's trigger: migrations/0009, 0011) is in the time of its call."""
        if not self.rows or not requests:
            return ["statements: none recorded"]
        calls = sum(int(r[0]) for r in self.rows)
        time_ms = sum(float(r[1]) for r in self.rows)
        out = [f"statements: {calls / requests:.1f} a POST (top level: the insert function's "
               f"own statements are in its time), {time_ms / requests:.2f} ms a POST in "
               "the server; by statement: calls a POST, ms a call, ms a POST:"]
        for count, spent, query in self.rows[:top]:
            text = " ".join(str(query).split())
            out.append(f"  {count / requests:5.2f} {float(spent) / max(count, 1):7.3f} "
                       f"{float(spent) / requests:7.3f}  {text[:100]}")
        return out
