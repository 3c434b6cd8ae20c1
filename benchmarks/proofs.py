"""How fast are Merkle proofs on a log of millions of events? Aim: under 50 ms each.

A store is filled with `--leaves` synthetic events (a few bytes of state each, 100 events
an aggregate) through the ledger's own recorder, in batches, so each is hashed into
`event_hashes` as a command's save hashes it (in Python on SQLite, by the trigger on
PostgreSQL). The Merkle log then follows the log alone, through the read-model runner, as
`pontoon projections rebuild` would (its rate is reported), and its root is checked against
the tree of the recorded hashes made again here.

Then, through the Flask app in this process (the HTTP stack without the network), random
inclusion proofs (index and size drawn over the whole tree) and consistency proofs (from
and to drawn likewise) are asked for, alternated with the same proofs of trees of at most
1,000 leaves (the baseline: the same code and store, a path a third as long) and with
`GET /v1/checkpoints/key` (no store read); p50 and p99 of each.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from eventsourcing.persistence import StoredEvent  # noqa: E402

from application.store import build_ledger  # noqa: E402
from benchmarks.stores import machine, postgres_store, postgres_url, sqlite_store  # noqa: E402
from config import Settings  # noqa: E402
from domain.merkle import CompactRange, event_leaf  # noqa: E402
from projections import proofs  # noqa: E402
from projections.merkle import MerkleLog  # noqa: E402
from projections.runner import Projections  # noqa: E402
from projections.signing_key import ensure_key  # noqa: E402
from projections.store import read_store  # noqa: E402

BATCH = 5000
TOPIC = "benchmarks.proofs:Synthetic"
TOKEN = "pt_benchmark_treasurer"


def fill(settings: Settings, leaves: int) -> None:
    """`leaves` synthetic events, hashed as they are recorded; their Merkle log built."""
    ledger = build_ledger(settings)
    try:
        start = time.perf_counter()
        for first in range(0, leaves, BATCH):
            events = []
            for n in range(first, min(first + BATCH, leaves)):
                if n % 100 == 0:
                    aggregate = uuid.uuid4()
                events.append(StoredEvent(aggregate, n % 100 + 1, TOPIC, b'{"n":%d}' % n))
            ledger.recorder.insert_events(events)
        recorded = time.perf_counter() - start
        store = read_store(ledger, settings)
        assert store is not None
        runner = Projections(ledger, store)
        merkle = next(m for m in runner.models if isinstance(m, MerkleLog))
        start = time.perf_counter()
        while runner.step(merkle):
            pass
        built = time.perf_counter() - start
        tree = CompactRange()
        for after in range(0, leaves, 50_000):
            for row in ledger.recorder.select_hashes(after, after + 50_000):
                tree.append(event_leaf(row.position, row.event_hash))
        assert proofs.head(store).size == leaves
        assert proofs.root(store, leaves) == tree.root(), "the Merkle log's root is wrong"
        print(f"  {leaves:,} events recorded in {recorded:.0f} s; the Merkle log built in "
              f"{built:.0f} s ({leaves / built:,.0f} events/s), its root checked")
    finally:
        ledger.close()


def measure(settings: Settings, leaves: int, requests: int, folder: Path) -> None:
    from api import create_app

    settings = replace(settings, projections="off", treasurer_token=TOKEN,
                       signing_key_file=str(folder / "signing-key"))
    ensure_key(settings)
    app = create_app(settings)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    chance = random.Random(26)

    def inclusion(most: int) -> str:
        size = chance.randint(1, most)
        return f"/v1/proofs/inclusion?index={chance.randrange(size)}&size={size}"

    def consistency(most: int) -> str:
        second = chance.randint(1, most)
        return f"/v1/proofs/consistency?from={chance.randint(1, second)}&to={second}"

    kinds: dict[str, Callable[[], str]] = {
        f"inclusion, sizes to {leaves:,}": lambda: inclusion(leaves),
        "inclusion, sizes to 1,000 (baseline)": lambda: inclusion(1000),
        f"consistency, sizes to {leaves:,}": lambda: consistency(leaves),
        "consistency, sizes to 1,000 (baseline)": lambda: consistency(1000),
        "GET /v1/checkpoints/key (no store read)": lambda: "/v1/checkpoints/key",
    }
    took: dict[str, list[float]] = {kind: [] for kind in kinds}
    try:
        for _ in range(requests):
            for kind, path in kinds.items():  # alternated: all share the machine's noise
                asked = path()
                start = time.perf_counter()
                answer = client.get(asked, headers=headers)
                took[kind].append((time.perf_counter() - start) * 1000)
                assert answer.status_code == 200, answer.get_data(as_text=True)
    finally:
        app.extensions["pontoon"].close()
    for kind, times in took.items():
        cuts = statistics.quantiles(times, n=100)
        print(f"  {kind}: p50 {cuts[49]:.2f} ms, p99 {cuts[98]:.2f} ms, "
              f"max {max(times):.2f} ms ({len(times)} requests)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=2_000_000)
    parser.add_argument("--requests", type=int, default=1000, help="of each kind")
    parser.add_argument("--stores", default="sqlite,postgres")
    args = parser.parse_args()
    print(machine())
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pontoon-proofs-") as folder:
        if "sqlite" in args.stores:
            with sqlite_store() as settings:
                print(f"SQLite, {settings.sqlite_path}")
                fill(settings, args.leaves)
                measure(settings, args.leaves, args.requests, Path(folder))
        url = postgres_url() if "postgres" in args.stores else None
        if url:
            with postgres_store(url) as settings:
                fill(settings, args.leaves)
                measure(settings, args.leaves, args.requests, Path(folder))


if __name__ == "__main__":
    main()
