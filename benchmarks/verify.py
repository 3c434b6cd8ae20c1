"""How fast is `pontoon verify` (deals/s) on a big store? Aim: 2,000 deals/s at 20,000 deals.

The store is a SQLite file filled by `benchmarks/projections.py`'s club (realistic play,
every deal through the real `Ledger` commands, a dispute every 100th deal) and kept at
`--path`, so it is filled once (about 7 deals/s here: 20,000 deals take most of an hour)
and grown by `--deals` more on later runs. Then `projections.verify.verify` runs over the
whole log, as `pontoon verify` does (read models as witnesses included), best of `--runs`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from application.store import build_ledger, migrate  # noqa: E402
from benchmarks.projections import fill  # noqa: E402
from benchmarks.stores import machine  # noqa: E402
from config import Settings  # noqa: E402
from projections.store import read_store  # noqa: E402
from projections.verify import verify  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=Path("/tmp/pontoon-verify.sqlite3"))
    parser.add_argument("--deals", type=int, default=0, help="deals to add first")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    print(machine())
    settings = Settings(database_url=f"sqlite:///{args.path}")
    if not args.path.exists():
        migrate(settings)
    ledger = build_ledger(settings)
    try:
        if args.deals:
            fill(ledger, args.deals, args.tables, "fill", seed=int(time.time()))
        store = read_store(ledger, settings)
        best = float("inf")
        for _ in range(args.runs):
            start = time.perf_counter()
            report = verify(ledger, store=store)
            best = min(best, time.perf_counter() - start)
        print(f"verify: {report.deals:,} deals, {report.events:,} events, "
              f"{report.accounts:,} accounts, {report.snapshots:,} snapshots in {best:.2f} s "
              f"(best of {args.runs}): {report.deals / best:,.0f} deals/s, "
              f"{report.events / best:,.0f} events/s, ok={report.ok}")
        if not report.ok:
            print("\n".join(report.failures[:5]))
    finally:
        ledger.close()


if __name__ == "__main__":
    main()
