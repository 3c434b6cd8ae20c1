"""A year at a busy club, measured (issue 23): is every read and every tool fast enough?

1. Build. 150 club nights (Tuesdays, Fridays and Saturdays, 19:00 Europe/London, the last
   one over before today) at 8 tables for 60 members, about 44 deals a table a night: at
   least 50,000 deals, with disputes and their corrections, played in this process through
   the real `Ledger` on a simulated clock (`pontoon simulate --start`'s own code,
   cli/simulate/history.py), into a SQLite file kept at `--path` (outside the repository)
   and reused by `--reuse` when it already holds such a year.
2. Copy it into PostgreSQL (PONTOON_TEST_POSTGRES_URL's server, a database of its own,
   dropped afterwards unless `--keep`), through the ledger's own recorder (which hashes
   every event, as a save does), then the snapshots.
3. On each store, the aims of the issue (a 2-core machine): `pontoon projections rebuild`
   ≤ 60 s, `pontoon verify` ≤ 60 s, a backup ≤ 30 s (`pontoon backup`; pg_dump for
   PostgreSQL), each run as the command it is, timed with its peak memory; then every read
   of `benchmarks/year_reads.py` (pages and API lists p95 < 300 ms, the year's and a
   month's period report < 1 s, a night sheet < 300 ms, the busiest player's whole-year
   statement CSV < 2 s), and the store's size.

The SQLite measures run on the kept file itself (a treasurer token is added to it, once,
on the real clock: a simulated store takes real-clock commands, decision 114).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from application.store import build_ledger, migrate  # noqa: E402
from benchmarks.engine import baseline  # noqa: E402
from benchmarks.stores import machine  # noqa: E402
from benchmarks.table_depth import copied  # noqa: E402
from benchmarks.year_reads import measure, places  # noqa: E402
from cli.simulate.history import Plan, play_history  # noqa: E402
from cli.simulate.history_run import unsynced  # noqa: E402
from cli.simulate.moments import CommandClock, simulated_ledger  # noqa: E402
from config import Settings  # noqa: E402
from projections.store import read_store  # noqa: E402

TOKEN = "pt_year_benchmark_treasurer_token_0000000000000"
PONTOON = str(Path(sys.executable).with_name("pontoon"))
QUIET = 81_800  # benchmarks/engine.py's baseline on 2026-11-29, quiet (docs/benchmarks.md)
PG_DUMPS = {"backup": ["--format=custom"],
            "backup, uncompressed": ["--format=custom", "--compress=0"],
            "backup, 2 jobs": ["--format=directory", "--jobs=2", "--compress=1"]}


def year_plan(today: date, nights: int = 150) -> Plan:
    """150 nights, three a week, the last over before `today`."""
    return Plan(start=today - timedelta(weeks=51), nights=nights, time_zone="Europe/London",
                evening=day_time(19, 0), members=60, tables=8, deals_per_table=44,
                weekdays=frozenset({1, 4, 5}), seed="a year at the club")


def played(path: Path, reuse: bool, nights: int) -> Settings:
    """The year's SQLite store: reused when asked and whole, else played afresh."""
    settings = Settings(database_url=f"sqlite:///{path}")
    if path.exists() and reuse:
        ledger = build_ledger(settings)
        try:
            simulation = ledger.simulation()
            runs = simulation.runs if simulation is not None else []
            whole = simulation is not None and not simulation.running
            if runs and whole and runs[-1]["nights"] == nights:
                print(f"the year: reused from {path}: {runs[-1]['deals']:,} deals, "
                      f"{ledger.recorder.max_notification_id():,} events")
                return settings
        finally:
            ledger.close()
    for old in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        old.unlink(missing_ok=True)
    migrate(settings)
    plan = year_plan(datetime.now(UTC).date(), nights)
    clock = CommandClock(plan.evenings()[0])
    ledger = simulated_ledger(settings, clock)
    unsynced(ledger)
    start = time.perf_counter()
    cpu = time.process_time()

    def night(number: int) -> None:
        if number % 10 == 0:
            seconds = time.perf_counter() - start
            print(f"  night {number}: {ledger.recorder.max_notification_id():,} events in "
                  f"{seconds:.0f} s", flush=True)

    try:
        tally = play_history(ledger, clock, plan, on_night=night)
    finally:
        ledger.close()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"the year: {tally.deals:,} deals ({tally.actions:,} actions, {tally.disputes} "
          f"disputes: {tally.upheld} upheld) over {tally.nights} nights in {seconds:.0f} s, "
          f"{tally.deals / seconds:.1f} deals/s ({tally.deals / cpu:.1f} deals per CPU "
          f"second, load average {os.getloadavg()[0]:.1f})")
    return settings


def command(label: str, args: list[str], settings: Settings) -> dict[str, Any]:
    """A command run as a process of its own: seconds, peak memory (the largest process
    of its tree, helpers included), and its last line."""
    env = {**os.environ, "PONTOON_DATABASE_URL": settings.database_url}
    start = time.perf_counter()
    process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime  # the command's and its helper's
    last = (out.strip().splitlines() or [""])[-1]
    print(f"[{label}] {' '.join(Path(a).name if i == 0 else a for i, a in enumerate(args))}:"
          f" {seconds:.1f} s (CPU {cpu:.1f} s, load average {os.getloadavg()[0]:.1f}), peak "
          f"{usage.ru_maxrss / 1024:,.0f} MiB, exit {process.returncode}: {last}", flush=True)
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_mib": usage.ru_maxrss / 1024,
            "exit": process.returncode, "said": last}


def tools(label: str, settings: Settings, backup_to: Path, reads_only: bool = False
          ) -> dict[str, Any]:
    """rebuild, verify and the backups, each timed; with `reads_only`, only what the reads
    need: a rebuild of a PostgreSQL copy (the copy holds events and snapshots, no rows)."""
    if reads_only:
        return {} if settings.store == "sqlite" else {
            "rebuild": command(label, [PONTOON, "projections", "rebuild"], settings)}
    found = {"rebuild": command(label, [PONTOON, "projections", "rebuild"], settings),
             "verify": command(label, [PONTOON, "verify"], settings)}
    if settings.store == "sqlite":
        backup_to.unlink(missing_ok=True)
        found["backup"] = command(label, [PONTOON, "backup", str(backup_to)], settings)
        backup_to.unlink(missing_ok=True)
    else:  # pg_dump as the README has it, then without compression, then in parallel
        url = settings.database_url.split("?")[0]
        for name, options in PG_DUMPS.items():
            shutil.rmtree(backup_to, ignore_errors=True)
            backup_to.unlink(missing_ok=True)
            found[name] = command(label, ["pg_dump", *options, "--no-owner",
                                          f"--file={backup_to}", url], settings)
            found[name]["bytes"] = sum(p.stat().st_size for p in backup_to.rglob("*")) \
                if backup_to.is_dir() else backup_to.stat().st_size
        shutil.rmtree(backup_to, ignore_errors=True)
        backup_to.unlink(missing_ok=True)
    return found


def reads(label: str, settings: Settings) -> list[dict[str, Any]]:
    from api import create_app

    app = create_app(replace(settings, treasurer_token=TOKEN, projections="off"))
    try:
        services = app.extensions["pontoon"]
        where = places(services.store)
        print(f"[{label}] reading: busiest player {where['player']}, table {where['table']}, "
              f"night {where['night']}, month from {where['month_from']}")
        rows = measure(app, TOKEN, where)
    finally:
        app.extensions["pontoon"].close()
    for row in rows:
        if row["verdict"] == "not built yet":
            print(f"[{label}] {row['read']:34} not built yet ({row['path']})")
        else:
            print(f"[{label}] {row['read']:34} p50 {row['p50_ms']:7.1f} ms, p95 "
                  f"{row['p95_ms']:7.1f} ms (aim < {row['aim_ms']}): {row['verdict']}; CPU "
                  f"p50 {row['cpu_p50_ms']:.1f}, p95 {row['cpu_p95_ms']:.1f} ms")
    return rows


def size(settings: Settings) -> int:
    if settings.store == "sqlite":
        path = settings.sqlite_path
        return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal"))
                   if p.exists())
    ledger = build_ledger(settings)
    try:
        store = read_store(ledger, settings)
        assert store is not None
        [row] = store.rows("SELECT pg_database_size(current_database()) AS bytes")
        return int(row["bytes"])
    finally:
        ledger.close()


def postgres_copy(source: Settings, url: str, database: str) -> Settings:
    """A database of its own on the server at `url`, migrated, holding a copy of the year."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}"')
        conn.execute(f'CREATE DATABASE "{database}"')
    base = url.rsplit("/", 1)[0]
    settings = Settings(database_url=f"{base}/{database}")
    migrate(settings)
    copied(source, settings)
    return settings


def dropped(url: str, database: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    print(f"database {database} dropped")


def speed(label: str) -> float:
    """How fast one core runs Python now, against the quiet machine of 2026-11-29
    (benchmarks/engine.py's baseline: 81,800 shuffle+sorts of a pack a second), so that
    figures of a loaded machine can be read (the house rule: ratios to a baseline)."""
    measured = baseline(1.0)
    print(f"[{label}] baseline {measured:,.0f} shuffle+sorts/s: {measured / QUIET:.2f} x the "
          f"quiet machine's; load average {os.getloadavg()[0]:.1f}", flush=True)
    return measured / QUIET


def run(label: str, settings: Settings, backup_to: Path, reads_only: bool = False
        ) -> dict[str, Any]:
    found: dict[str, Any] = {"speed_before": speed(label)}
    found["tools"] = tools(label, settings, backup_to, reads_only)
    found["speed_after"] = speed(label)
    found["reads"] = reads(label, settings)
    found["bytes"] = size(settings)
    # This process's peak so far: the year built (on the first run), then every read.
    found["reads_peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"[{label}] the store: {found['bytes'] / 2**20:,.0f} MiB; this process's peak "
          f"memory {found['reads_peak_mib']:,.0f} MiB")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, default=Path("/tmp/pontoon-year.sqlite3"),
                        help="where the year's SQLite store is kept (outside the repository)")
    parser.add_argument("--reuse", action="store_true",
                        help="measure the year already kept at --path, if it is whole")
    parser.add_argument("--nights", type=int, default=150,
                        help="nights to play (150; fewer to try the harness)")
    parser.add_argument("--store", choices=("both", "sqlite", "postgres"), default="both")
    parser.add_argument("--database", default="pontoon_year",
                        help="the PostgreSQL database made for the copy")
    parser.add_argument("--keep", action="store_true",
                        help="keep the PostgreSQL copy (it is dropped by default)")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--reads-only", action="store_true",
                        help="measure the reads alone (no verify, no backup): to measure "
                             "them again on a quieter machine")
    args = parser.parse_args()
    print(machine())
    kept = played(args.path, args.reuse, args.nights)
    results: dict[str, Any] = {"machine": machine()}
    if args.store in ("both", "sqlite"):
        results["sqlite"] = run("SQLite", kept, args.path.with_suffix(".backup"),
                                args.reads_only)
    url = os.environ.get("PONTOON_TEST_POSTGRES_URL")
    if args.store in ("both", "postgres") and url:
        start = time.perf_counter()
        settings = postgres_copy(kept, url, args.database)
        print(f"[PostgreSQL] copied in {time.perf_counter() - start:.0f} s")
        try:
            results["postgres"] = run("PostgreSQL", settings,
                                      args.path.with_suffix(".pg_dump"), args.reads_only)
        finally:
            if not args.keep:
                dropped(url, args.database)
    elif args.store != "sqlite":
        print("PostgreSQL: SKIPPED (set PONTOON_TEST_POSTGRES_URL=postgresql://user@host:"
              "port/db to measure it)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
