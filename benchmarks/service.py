"""Commands a second through the whole stack, against a baseline measured in the same run.

`pontoon serve` (its defaults: 2 worker processes × 4 threads) on a throwaway
PostgreSQL cluster, driven over HTTP by N concurrent clients (1, 8 and 32 by default), each a
thread with its own keep-alive connection playing complete Shoot Pontoon deals at a table of
its own with no think time (`benchmarks/service_workloads.py` says exactly what they send).
In the same run, against the same cluster, with the same client code, concurrency, warm-up
and duration, the baseline: a minimal Flask app under gunicorn with as many sync workers as
the service has worker processes, whose `POST /events` does one autocommitted INSERT
(`benchmarks/baseline_app.py`). The two are measured one after the other at each
concurrency, so they share the machine's noise as far as possible.

Reported for each concurrency: successful POSTs a second (every POST, and game actions
alone: deal starts and deal actions), p50 and p99 of every successful POST's latency, the
baseline's requests a second and p99, and the ratio of the service's POSTs a second to the
baseline's; refused commands (409/422) and errors, which a correct run has none of; and the
cores each party used during the window (the server's processes, PostgreSQL's, the clients'
and the rest of the machine's), read from /proc. Then a verdict on issue 11's P1 aim (at 8
clients every POST at least 0.5 × the baseline, and never below 0.3, with p99 under 50 ms;
flat with scale across 1, 8 and 32 tables), and `pontoon verify` of the service's store.

`--profile` adds one more window of the service at 8 clients with py-spy sampling its workers
(`benchmarks/service_profile.py`). Processes and the cluster are removed at exit, Ctrl-C too.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

# Run as `python benchmarks/service.py`, this folder would come first on the path and its
# projections.py would shadow the `projections` package: look in the repository instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from benchmarks.service_client import Http, Run, Watcher, Workload, run_clients  # noqa: E402
from benchmarks.service_meters import CpuMeter, DbMeter, StatementsMeter  # noqa: E402
from benchmarks.service_processes import Cluster, Server, free_port, postgres_bin  # noqa: E402
from benchmarks.service_workloads import EventStream, PontoonTable  # noqa: E402
from benchmarks.stores import machine  # noqa: E402

ROOT = _HERE.parent
AIM_RATIO, FLOOR_RATIO, AIM_P99_MS, AIM_CLIENTS = 0.5, 0.3, 50.0, 8


def serve_defaults() -> tuple[int, int]:
    """`pontoon serve`'s default workers and threads, read from the command itself."""
    from cli.service import serve

    defaults = {param.name: param.default for param in serve.params}
    return int(str(defaults["workers"])), int(str(defaults["threads"]))


def executable(name: str) -> str:
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} is not installed (make install)")
    return found


@dataclass
class Measured:
    """One server's window: the clients' counts, the cores used, the database's counters."""

    run: Run
    cpu: CpuMeter
    db: DbMeter

    def details(self, name: str) -> str:
        run, posts = self.run, self.run.posts
        return (f"{name}: {run.refused} refused, {run.conflicts} lost races sent again, "
                f"{run.errors} errors, {run.gets} GETs; cores: {self.cpu.text(name)}; a POST "
                f"cost {self.cpu.per_request_ms(posts)} of CPU, {self.db.per(posts)}")


@dataclass
class Level:
    service: Measured
    baseline: Measured

    @property
    def ratio(self) -> float:
        base = self.baseline.run.posts_per_second
        return self.service.run.posts_per_second / base if base else float("nan")


class Bench:
    """The cluster, both servers and the runs: one instance per invocation."""

    def __init__(self, args: argparse.Namespace, stack: ExitStack,
                 stop: threading.Event) -> None:
        self.args, self.stop = args, stop
        self.mix: Counter[str] = Counter()  # the last service run's POSTs by kind
        self.workers, self.threads = serve_defaults()
        self.folder = Path(tempfile.mkdtemp(prefix="pontoon-bench."))
        stack.callback(shutil.rmtree, self.folder, ignore_errors=True)
        self.cluster = Cluster(args.postgres_bin)
        stack.callback(self.cluster.stop)
        self.cluster.start(statements=args.profile)
        for database in ("pontoon", "baseline"):
            self.cluster.create_database(database)
        self.treasurer = "pt_" + secrets.token_urlsafe(32)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
        self.service_env = {**env, "PONTOON_DATABASE_URL": self.cluster.url("pontoon"),
                            "PONTOON_TREASURER_TOKEN": self.treasurer}
        subprocess.run([executable("pontoon"), "migrate"], env=self.service_env, check=True,
                       stdout=subprocess.DEVNULL)
        port = free_port()
        self.service = Server("pontoon serve", [executable("pontoon"), "serve"],
                              env={**self.service_env, "PONTOON_PORT": str(port)},
                              port=port, log=self.folder / "serve.log", cwd=ROOT)
        stack.callback(self.service.stop)
        self._baseline_table()
        port = free_port()
        self.baseline = Server("baseline", [
            sys.executable, "-m", "gunicorn", "-k", "sync", "-w", str(self.workers),
            "-b", f"127.0.0.1:{port}", "benchmarks.baseline_app:app"],
            env={**env, "BASELINE_DSN": self.cluster.url("baseline")},
            port=port, log=self.folder / "baseline.log", cwd=ROOT)
        stack.callback(self.baseline.stop)
        self.service.wait_ready("/v1/health")
        self.baseline.wait_ready("/ping")

    def _baseline_table(self) -> None:
        import psycopg

        from benchmarks.baseline_app import TABLE

        with psycopg.connect(self.cluster.url("baseline"), autocommit=True) as conn:
            conn.execute(TABLE)

    def measure(self, server: Server, database: str, make: Callable[[Http, int], Workload],
                clients: int, *extra: Watcher) -> Measured:
        cpu = CpuMeter(server, self.cluster, self.args.duration)
        db = DbMeter(self.cluster, database)
        run = run_clients(make, clients, host="127.0.0.1", port=server.port,
                          warmup=self.args.warmup, duration=self.args.duration, stop=self.stop,
                          watchers=[cpu, db, *extra], keys=self.args.idempotency_keys)
        return Measured(run, cpu, db)

    def service_run(self, clients: int, *extra: Watcher) -> Measured:
        seed = self.args.seed * 1000 + clients
        tables: list[PontoonTable] = []

        def table(http: Http, index: int) -> PontoonTable:
            tables.append(PontoonTable(http, self.treasurer, index, seed + index))
            return tables[-1]

        measured = self.measure(self.service, "pontoon", table, clients, *extra)
        self.mix = sum((t.mix for t in tables), Counter[str]())
        return measured

    def baseline_run(self, clients: int) -> Measured:
        seed = self.args.seed * 1000 + clients
        return self.measure(self.baseline, "baseline",
                            lambda http, i: EventStream(http, i, seed + i), clients)

    def verify(self) -> int:
        done = subprocess.run([executable("pontoon"), "verify"], env=self.service_env,
                              capture_output=True, text=True)
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        print("pontoon verify of the service's store: " + " / ".join(lines[-2:]))
        return done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=20.0,
                        help="measured seconds at each concurrency, each server (default 20)")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds played before each window, not counted (default 3)")
    parser.add_argument("--clients", default="1,8,32",
                        help="concurrent clients, comma-separated (default 1,8,32)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' choices (default 1)")
    parser.add_argument("--idempotency-keys", action="store_true",
                        help="send an Idempotency-Key with every POST, to both servers "
                             "(the service then also reads and saves a receipt per command)")
    parser.add_argument("--profile", action="store_true",
                        help="one more service window at 8 clients under py-spy, with "
                             "pg_stat_statements loaded in the cluster for the whole run")
    parser.add_argument("--profile-dir", type=Path, default=ROOT / "var" / "bench-profile",
                        help="where py-spy's raw stacks go (default var/bench-profile)")
    args = parser.parse_args()
    levels = [int(n) for n in args.clients.split(",") if n.strip()]
    if not levels or min(levels) < 1:
        parser.error("--clients takes positive numbers, e.g. 1,8,32")
    args.postgres_bin = postgres_bin()
    if args.postgres_bin is None:
        print("service benchmark: SKIPPED (no PostgreSQL binaries under "
              "/usr/lib/postgresql/*/bin: apt-get install postgresql)")
        return

    def interrupted(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started in background
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    load_before = os.getloadavg()
    print(machine())
    stop = threading.Event()
    try:
        with ExitStack() as stack:
            code = run(Bench(args, stack, stop), args, levels, stack)
    except KeyboardInterrupt:
        stop.set()
        print("\ninterrupted: the servers and the cluster are stopped", file=sys.stderr)
        code = 130
    print("load average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(
        *load_before, *os.getloadavg()))
    raise SystemExit(code)


def run(bench: Bench, args: argparse.Namespace, levels: list[int], stack: ExitStack) -> int:
    print(f"PostgreSQL {bench.cluster.version()} (throwaway cluster, fsync=off as in CI"
          + (", pg_stat_statements loaded" if args.profile else "")
          + f"); pontoon serve: {bench.workers} workers × {bench.threads} threads; baseline: "
          f"gunicorn, {bench.workers} sync workers; {args.duration:g} s measured after "
          f"{args.warmup:g} s of warm-up at each concurrency; "
          + ("an Idempotency-Key on every POST" if args.idempotency_keys
             else "no Idempotency-Key"))
    head = (f"{'clients':>7}  {'POST/s':>8}  {'game/s':>8}  {'p50 ms':>7}  {'p99 ms':>7}  | "
            f"{'baseline/s':>10}  {'p99 ms':>7}  | {'ratio':>5}")
    print(f"{'':>7}  {'service (every POST; game actions alone)':<44}| {'baseline':<19}|\n"
          + head)
    results: dict[int, Level] = {}
    failed = False
    for clients in levels:
        level = results[clients] = Level(bench.service_run(clients),
                                         bench.baseline_run(clients))
        service, baseline = level.service.run, level.baseline.run
        print(f"{clients:>7}  {service.posts_per_second:>8.1f}  {service.game_per_second:>8.1f}"
              f"  {service.percentile_ms(50):>7.1f}  {service.percentile_ms(99):>7.1f}  | "
              f"{baseline.posts_per_second:>10.1f}  {baseline.percentile_ms(99):>7.1f}  | "
              f"{level.ratio:>5.3f}")
        print(f"{'':>9}{service.units} complete deals in the window; keep-alive connections "
              f"per service worker: {'+'.join(map(str, level.service.cpu.connections))}")
        print(f"{'':>9}{level.service.details('pontoon serve')}")
        print(f"{'':>9}{level.baseline.details('baseline')}")
        for problem in service.problems + baseline.problems:
            print(f"{'':>9}! {problem}")
        failed |= bool(service.errors or baseline.errors or service.refused)
    total = sum(bench.mix.values())
    print(f"the service's POSTs by kind ({levels[-1]} clients, warm-up included): " + ", ".join(
        f"{kind} {100 * n / total:.1f}%" for kind, n in bench.mix.most_common()))
    print(verdict(results))
    if args.profile:
        profile(bench, args, stack)
    if bench.verify():
        failed = True
    return 1 if failed else 0


def profile(bench: Bench, args: argparse.Namespace, stack: ExitStack) -> None:
    """One more service window at 8 clients, py-spy on the workers, statements counted."""
    from benchmarks.service_profile import Recording, summary

    recording = Recording(args.profile_dir)
    stack.callback(recording.stop)
    statements = StatementsMeter(bench.cluster, "pontoon")

    class Profiler:
        def opened(self) -> None:
            recording.start(bench.service.workers(), args.duration)

        def closed(self) -> None:
            recording.wait()

    profiled = bench.service_run(AIM_CLIENTS, statements, Profiler())
    run = profiled.run
    print(f"profile at {AIM_CLIENTS} clients, py-spy on {len(recording.pids)} workers for "
          f"{recording.seconds} s ({run.posts_per_second:.1f} POST/s, p99 "
          f"{run.percentile_ms(99):.1f} ms while sampled; connections per worker "
          f"{'+'.join(map(str, profiled.cpu.connections))}):")
    for line in statements.lines(run.posts) + summary(recording):
        print("  " + line)


def verdict(results: dict[int, Level]) -> str:
    """One line on issue 11's P1: the ratio and p99 at 8 clients, and flatness with scale."""
    at = AIM_CLIENTS if AIM_CLIENTS in results else min(results, key=lambda n: abs(n - 8))
    level = results[at]
    service, baseline = level.service.run, level.baseline.run
    p99 = service.percentile_ms(99)
    if level.ratio >= AIM_RATIO and p99 < AIM_P99_MS:
        word = "MET"
    elif level.ratio >= FLOOR_RATIO and p99 < AIM_P99_MS:
        word = "met at the floor only"
    else:
        word = "NOT MET"
    rates = {n: results[n].service.run.posts_per_second for n in sorted(results)}
    scale = ", ".join(f"{n}: {rate:.0f}" for n, rate in rates.items())
    low, high = min(results), max(results)
    flat = rates[high] / max(rates[low], 1e-9)
    return (f"P1 {word}: at {at} clients every POST {service.posts_per_second:.0f}/s = "
            f"{level.ratio:.3f} × the baseline's {baseline.posts_per_second:.0f}/s (aim "
            f"≥ {AIM_RATIO}, at least {FLOOR_RATIO}), p99 {p99:.0f} ms (aim < {AIM_P99_MS:.0f}"
            f"); flat with scale, POST/s by clients: {scale} ({high} vs {low}: {flat:.2f}×)")


if __name__ == "__main__":
    main()
