"""Does a command cost more at a table with 10,000 deals played than at a fresh one?

Issue 11 asks that a stake at a table with 10,000 deals behind it cost at most 1.3 times
what it costs at a fresh table (the ratio of medians), as `benchmarks/history.py` asks of
an account with 100,000 postings.

1. Play. `--deals` deals at one six-player Shoot Pontoon table, every one through the real
   `Ledger` commands (`benchmarks/projections.py`'s club and bots), into a SQLite store
   kept at `--cache` and reused when it holds as many deals. (Not on the in-memory store
   `benchmarks/verify.py` plays on: it reads an aggregate's new events by scanning its
   whole history, so a long-lived account slows the play down by the deal.)
2. Measure on a copy of that file (SQLite), and on PostgreSQL, when
   PONTOON_TEST_POSTGRES_URL is set, in a fresh schema: the log, then the snapshots,
   copied through the ledger's own recorder (which hashes every event as a save does).
3. Open a fresh table for the same six players with the same rules. Then `--rounds`
   rounds: at each, one deal at each table (which table goes first alternates), played to
   the end by the same bots, every command timed: the deal's start (which reads the table),
   each stake (which reads the deal and the player's account), and every action. Each
   table is also read cold by a second ledger on the same store, its cache cleared (the
   latest snapshot and the events since, as a worker that has not served the table reads
   it), and its view (`GET /v1/tables/{id}`) and latest snapshot measured in bytes.

Prints the median, mean and 90th percentile of each, and the ratios deep / fresh.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from eventsourcing.persistence import StoredEvent  # noqa: E402

from api.tables.presenter import table_view  # noqa: E402
from application import Ledger  # noqa: E402
from application.store import build_ledger, migrate  # noqa: E402
from benchmarks.history import percentile  # noqa: E402
from benchmarks.projections import PLAYERS, RULES, Club, fill  # noqa: E402
from benchmarks.stores import machine, postgres_store, postgres_url  # noqa: E402
from config import Settings  # noqa: E402

SEED = 20261202
Times = dict[str, list[float]]


def opened(ledger: Ledger) -> list[str]:
    """The tables opened at the start of the log (the played table's is among its first
    events)."""
    return [str(e.originator_id) for e in ledger.recorder.select_notifications(
        start=1, limit=1000) if e.topic.endswith("TableAggregate.TableOpened")]


def played(deals: int, cache: Path) -> Settings:
    """A SQLite store of `deals` deals at one table, played once and kept at `cache`."""
    settings = Settings(database_url=f"sqlite:///{cache}")
    if cache.exists():
        ledger = build_ledger(settings)
        try:
            tables = opened(ledger)
            if len(tables) == 1 and ledger.table(tables[0]).engine.deals_played == deals:
                print(f"{deals:,} deals at one table: reused from {cache}")
                return settings
        finally:
            ledger.close()
        cache.unlink()
    migrate(settings)
    ledger = build_ledger(settings)
    try:
        fill(ledger, deals, 1, "play", seed=SEED)
    finally:
        ledger.close()
    return settings


def copied(source: Settings, target: Settings) -> None:
    """The log, then every aggregate's snapshots, from one store into another."""
    start = time.perf_counter()
    reading, writing = build_ledger(source), build_ledger(target)
    try:
        assert reading.snapshots is not None and writing.snapshots is not None
        position, ids = 1, set[UUID]()
        while page := reading.recorder.select_notifications(start=position, limit=5000):
            writing.recorder.insert_events([StoredEvent(n.originator_id, n.originator_version,
                                                        n.topic, n.state) for n in page])
            ids.update(n.originator_id for n in page)
            position = page[-1].id + 1
        snapshots = [s for i in ids for s in reading.snapshots.recorder.select_events(i)]
        writing.snapshots.recorder.insert_events(snapshots)
        print(f"copied {position - 1:,} events and {len(snapshots):,} snapshots in "
              f"{time.perf_counter() - start:.0f} s")
    finally:
        reading.close()
        writing.close()


class Timed:
    """The ledger, its deal starts and actions timed into `times` under `label`."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.label = ""
        self.times: dict[str, Times] = defaultdict(lambda: defaultdict(list))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ledger, name)

    def _timed(self, kinds: tuple[str, ...], call: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        try:
            return call()
        finally:
            took = (time.perf_counter() - start) * 1000
            for kind in kinds:
                self.times[self.label][kind].append(took)

    def start_deal(self, table_id: str) -> Any:
        return self._timed(("start",), lambda: self.ledger.start_deal(table_id))

    def act(self, deal_id: str, player: str, action: str, **kwargs: Any) -> Any:
        kinds = ("stake", "action") if action == "stake" else ("action",)
        return self._timed(kinds, lambda: self.ledger.act(deal_id, player, action, **kwargs))


def run(settings: Settings, label: str, rounds: int) -> dict[str, float]:
    ledger = build_ledger(settings)
    try:
        [deep] = opened(ledger)
        table = ledger.table(deep).engine
        assert len(table.seats) == PLAYERS
        fresh = str(ledger.open_table(name="fresh", seats=list(table.seats),
                                      banker=table.banker, rules=RULES,
                                      pack={"mode": "shuffled"}).result["table_id"])
        timed = Timed(ledger)
        club = Club.at(timed, [deep, fresh], seed=SEED)  # type: ignore[arg-type]
        reads: Times = defaultdict(list)
        reader = build_ledger(settings)  # another worker, as it were, reading cold
        tables = (("deep", deep), ("fresh", fresh))
        for number in range(rounds):
            for name, table_id in tables if number % 2 == 0 else tables[::-1]:
                timed.label = name
                club.play_deal(table_id)
                reader.cache.clear()
                start = time.perf_counter()
                reader.table(table_id)
                reads[name].append((time.perf_counter() - start) * 1000)
        reader.close()
        ended = {name: ledger.table(table_id) for name, table_id in tables}
        sizes = {name: len(json.dumps(table_view(table, None))) for name, table in ended.items()}
        deals = {name: table.engine.deals_played for name, table in ended.items()}
        assert ledger.snapshots is not None
        snapshots = {name: max((len(s.state) for s in ledger.snapshots.recorder.select_events(
            UUID(table_id), desc=True, limit=1)), default=0) for name, table_id in tables}
        ratios = {}
        for kind in ("start", "stake", "action"):
            for name in ("deep", "fresh"):
                print(f"[{label}] {kind:6}, {name:5} table ({deals[name]:>6,} deals): "
                      f"{summary(timed.times[name][kind])}")
            ratios[kind] = median_ratio(timed.times["deep"][kind], timed.times["fresh"][kind])
        for name in ("deep", "fresh"):
            print(f"[{label}] cold read, {name:5} table: {summary(reads[name])}; its view "
                  f"{sizes[name]:,} bytes, its latest snapshot {snapshots[name]:,} bytes")
        ratios["cold read"] = median_ratio(reads["deep"], reads["fresh"])
        verdict = "within" if ratios["stake"] <= 1.3 else "ABOVE"
        print(f"[{label}] ratios of medians, deep / fresh: "
              + ", ".join(f"{kind} {ratio:.2f}" for kind, ratio in ratios.items())
              + f"; the stake's is {verdict} the aim of 1.3")
        return ratios
    finally:
        ledger.close()


def summary(values: list[float]) -> str:
    return (f"median {statistics.median(values):6.2f} ms, mean {statistics.fmean(values):6.2f}"
            f" ms, p90 {percentile(values, 0.9):6.2f} ms ({len(values)})")


def median_ratio(deep: list[float], fresh: list[float]) -> float:
    return statistics.median(deep) / statistics.median(fresh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10_000,
                        help="deals played at the deep table (default 10,000)")
    parser.add_argument("--rounds", type=int, default=100,
                        help="deals timed at each table (default 100)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/pontoon-deep-table.sqlite3"))
    parser.add_argument("--store", choices=("both", "sqlite", "postgres"), default="both")
    args = parser.parse_args()
    print(machine())
    kept = played(args.deals, args.cache)
    if args.store in ("both", "sqlite"):
        with tempfile.TemporaryDirectory(prefix="pontoon-table-") as folder:
            shutil.copy(args.cache, f"{folder}/ledger.sqlite3")
            run(Settings(database_url=f"sqlite:///{folder}/ledger.sqlite3"), "SQLite",
                args.rounds)
    if args.store in ("both", "postgres") and (url := postgres_url()):
        with postgres_store(url) as settings:
            copied(kept, settings)
            run(settings, "PostgreSQL", args.rounds)


if __name__ == "__main__":
    main()
