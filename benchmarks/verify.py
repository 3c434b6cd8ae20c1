"""How fast is `pontoon verify` (deals/s) on a big store? Aim: 2,000 deals/s at 20,000 deals.

The store is a SQLite file kept at `--path`, so it is filled once. The play is
`benchmarks/projections.py`'s club (realistic six-player Shoot Pontoon, every deal through
the real `Ledger` commands, a dispute every 100th deal). Played into SQLite that is 3 to 7
deals/s here, hours for 20,000 deals, so `--deals` are played by `--workers` processes
(8–14 deals/s each on a quiet machine, 2 under load: 20,000 deals take 15 minutes to over
an hour), each on its own in-memory store (the same commands, aggregates and mapper),
and each worker's log, in its order, then its snapshots, are inserted into the SQLite
store through the ledger's own recorder, which hashes every event as a command's save does.
The workers' clubs share no aggregate (every id is drawn at random; the treasury has no
aggregate of its own), so the joined log is one a single club could have written; only the
events' positions differ from a store filled live.

Then `verification.verify.verify` runs over the whole log, as `pontoon verify` does (the
read models as witnesses included, once they have caught up, and the work shared with a
helper process on a log of 60,000 events or more), alternated with the same check in one
process; best of `--runs` each.
"""

from __future__ import annotations

import argparse
import functools
import pickle
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from eventsourcing.persistence import StoredEvent  # noqa: E402

from application.store import build_ledger, migrate  # noqa: E402
from benchmarks.projections import fill  # noqa: E402
from benchmarks.stores import machine  # noqa: E402
from config import Settings  # noqa: E402
from projections.runner import Projections  # noqa: E402
from projections.store import read_store  # noqa: E402
from verification.verify import verify  # noqa: E402

BATCH = 5000  # events inserted in one transaction


def play(deals: int, tables: int, seed: int, folder: str) -> str:
    """In a worker: `deals` deals on an in-memory store; its log and snapshots, pickled."""
    ledger = build_ledger(Settings(database_url="memory://"))
    fill(ledger, deals, tables, f"worker {seed}", seed=seed)
    events = [StoredEvent(n.originator_id, n.originator_version, n.topic, n.state)
              for n in ledger.recorder.select_notifications(start=1, limit=10**9)]
    assert ledger.snapshots is not None
    snapshots = [s for aggregate_id in {e.originator_id for e in events}
                 for s in ledger.snapshots.recorder.select_events(aggregate_id)]
    path = f"{folder}/worker-{seed}.pickle"
    with open(path, "wb") as out:
        pickle.dump((events, snapshots), out)
    return path


def grow(settings: Settings, deals: int, tables: int, workers: int) -> None:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pontoon-verify-") as folder, \
            ProcessPoolExecutor(workers) as pool:
        share = -(-deals // workers)
        seed = int(time.time())
        paths = list(pool.map(play, [share] * workers, [tables] * workers,
                              [seed + k for k in range(workers)], [folder] * workers))
        played = time.perf_counter() - start
        ledger = build_ledger(settings)
        try:
            for path in paths:
                with open(path, "rb") as source:
                    events, snapshots = pickle.load(source)
                for first in range(0, len(events), BATCH):
                    ledger.recorder.insert_events(events[first:first + BATCH])
                assert ledger.snapshots is not None
                ledger.snapshots.recorder.insert_events(snapshots)
        finally:
            ledger.close()
    print(f"grown by {share * workers:,} deals: played by {workers} workers in {played:.0f} s, "
          f"copied in {time.perf_counter() - start - played:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=Path("/tmp/pontoon-verify.sqlite3"))
    parser.add_argument("--deals", type=int, default=0, help="deals to add first")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tables", type=int, default=4, help="six-player tables a worker")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    print(machine())
    settings = Settings(database_url=f"sqlite:///{args.path}")
    if not args.path.exists():
        migrate(settings)
    if args.deals:
        grow(settings, args.deals, args.tables, args.workers)
    ledger = build_ledger(settings)
    try:
        store = read_store(ledger, settings)
        assert store is not None
        start = time.perf_counter()
        Projections(ledger, store).catch_up()
        print(f"read models caught up in {time.perf_counter() - start:.1f} s")
        ways = {"as pontoon verify": functools.partial(build_ledger, settings),
                "in one process": None}
        best = dict.fromkeys(ways, float("inf"))
        for _ in range(args.runs):
            for way, reopen in ways.items():
                start = time.perf_counter()
                report = verify(ledger, store=store, reopen=reopen)
                best[way] = min(best[way], time.perf_counter() - start)
                if not report.ok:
                    print(f"verify {way} FAILED:", *report.failures[:5], sep="\n")
        for way, seconds in best.items():
            print(f"verify {way}: {report.deals:,} deals, {report.events:,} events, "
                  f"{report.accounts:,} accounts, {report.snapshots:,} snapshots in "
                  f"{seconds:.1f} s (best of {args.runs}): {report.deals / seconds:,.0f} "
                  f"deals/s, {report.events / seconds:,.0f} events/s")
    finally:
        ledger.close()


if __name__ == "__main__":
    main()
