"""Does a stake cost more for a player with a long history? 100 postings against 100,000.

Snapshots every 100 events (`Ledger.snapshotting_intervals`) promise that reading an
account costs one snapshot and at most 99 events however long its history, so a stake
(`ledger.act(deal, player, "stake", ...)`: read the deal and the player's account, decide,
save both in one transaction) should cost the same for a player with 100 postings and one
with 100,000. This measures both in the same run, on SQLite (a temporary file) and on
PostgreSQL when PONTOON_TEST_POSTGRES_URL is set (a fresh schema, dropped afterwards).
The aim is a ratio of medians (100,000 / 100) of at most 1.3.

How the histories are built. One command per posting would take hours at 100,000, so the
history is written in batches, honestly, through the real aggregates and `Ledger.save`:
the player's `Account` is read from the store, moved 1,000 times in memory with
`Account.move` (each move a real R11.1 posting: alternately a buy-in of 10 chips, the first
one enough for every timed stake, and a cash-out of 5 that goes through the overdraw check
of R11.2; posting ids are derived as the ledger derives them), then saved with
`ledger.save(player)`: one atomic transaction of 1,000 events, as `Ledger.buy_in` saves
one (the treasury keeps no entries of its own: its side is the player's entry, decisions.md
67),
after which the application takes its automatic snapshots at every 100th version, exactly
as it does for commands. Repeat until the history has the requested number of postings.
Both players are built the same way and end at the same place in the snapshot cycle
(version 1 + postings), so neither is favoured by the distance to its last snapshot.

How the stakes are timed. Deals are started in advance, one table per stake pair: each
table seats a banker, both players and a fourth player, and its deal waits for stakes.
Half the tables seat the small-history player first, half the large one, and neither
player stakes last, so both stakes do the same work (no second cards dealt). The timed
loop sends the two players' stakes at each deal back to back, alternating which goes
first, so both share the machine's noise; it reports the median, mean and 90th percentile
of each, and the ratio of medians. The median time to read each account (the part that
depends on history) is reported alongside.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from uuid import NAMESPACE_URL, UUID, uuid5

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for benchmarks.stores

from application import Ledger
from application.store import build_ledger  # noqa: E402
from benchmarks.stores import machine, postgres_store, postgres_url, sqlite_store  # noqa: E402
from config import Settings  # noqa: E402
from domain.engine.cards import full_pack
from domain.engine.postings import TREASURY, player_account

# First round: three players then the banker; none of them is dealt anything remarkable.
TOP = ("2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H")


def ordered_pack() -> list[str]:
    rest = [card for card in full_pack(1) if card not in TOP]
    return [*TOP, *rest]


# --- building a history ------------------------------------------------------------------


def posting_id(source: UUID, version: int) -> str:
    """As the ledger derives it: the event that carries the posting (architecture.md)."""
    return str(uuid5(NAMESPACE_URL, f"/pontoon/postings/{source}:{version}:0"))


def build_history(ledger: Ledger, player_id: str, postings: int, batch: int,
                  opening: int) -> float:
    """Give the player `postings` R11.1 postings, `batch` per atomic save; returns seconds.

    The first posting issues `opening` chips (enough for every timed stake)."""
    start = time.perf_counter()
    done = 0
    while done < postings:
        player = ledger.player_account(player_id)
        for _ in range(min(batch, postings - done)):
            issue = done % 2 == 0
            amount = opening if done == 0 else 10 if issue else 5
            pid = posting_id(player.id, player.version + 1)
            source, target = (TREASURY, player_account(player_id)) if issue else \
                (player_account(player_id), TREASURY)
            reason = (f"the treasurer issues {amount} chips" if issue
                      else f"the treasurer redeems {amount} chips")
            player.move(credit=issue, posting_id=pid, amount=amount, from_account=source,
                        to_account=target, rule="R11.1", reason=reason, deal_id=None,
                        table_id=None, hand=None)
            done += 1
        ledger.save(player)
    return time.perf_counter() - start


def latest_snapshot(ledger: Ledger, aggregate_id: UUID) -> int | None:
    assert ledger.snapshots is not None
    found = list(ledger.snapshots.get(aggregate_id, desc=True, limit=1))
    return found[0].originator_version if found else None


# --- the measurement ---------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def run(settings: Settings, label: str, small: int, large: int, stakes: int,
        batch: int) -> float:
    ledger = build_ledger(settings)
    try:
        banker = str(ledger.register_player("Banker").result["id"])
        filler = str(ledger.register_player("Filler").result["id"])
        ledger.buy_in(banker, 1000)
        ledger.buy_in(filler, 1000)
        players = {"small": str(ledger.register_player(f"Small ({small})").result["id"]),
                   "large": str(ledger.register_player(f"Large ({large})").result["id"])}
        for name, count in (("small", small), ("large", large)):
            seconds = build_history(ledger, players[name], count, batch, opening=stakes + 10)
            account = ledger.player_account(players[name])
            print(f"[{label}] {name}: {count:,} postings in {seconds:.1f} s "
                  f"({count / seconds:,.0f}/s); account version {account.version:,}, "
                  f"balance {account.balance:,}, latest snapshot at version "
                  f"{latest_snapshot(ledger, account.id)}")
        start = time.perf_counter()
        deals = []
        for i in range(stakes):
            first, second = ("small", "large") if i % 2 == 0 else ("large", "small")
            seats = [banker, players[first], players[second], filler]
            table_id = ledger.open_table(name=f"bench {i}", seats=seats, banker=banker,
                                         pack={"mode": "ordered", "cards": ordered_pack()}
                                         ).result["table_id"]
            deals.append(str(ledger.start_deal(table_id).result["deal_id"]))
        print(f"[{label}] {stakes} tables and deals started in "
              f"{time.perf_counter() - start:.1f} s")

        times: dict[str, list[float]] = {"small": [], "large": []}
        reads: dict[str, list[float]] = {"small": [], "large": []}
        for i, deal_id in enumerate(deals):
            order = ("small", "large") if i % 2 == 0 else ("large", "small")
            for name in order:
                times[name].append(timed(
                    partial(ledger.act, deal_id, players[name], "stake", amount=1)))
            for name in reversed(order):
                reads[name].append(timed(partial(ledger.player_account, players[name])))
        for name in ("small", "large"):
            account = ledger.player_account(players[name])
            assert account.version == 1 + (small if name == "small" else large) + stakes
            print(f"[{label}] stake, {name:5} history "
                  f"({small if name == 'small' else large:>7,} postings): "
                  f"median {statistics.median(times[name]):6.2f} ms, "
                  f"mean {statistics.fmean(times[name]):6.2f} ms, "
                  f"p90 {percentile(times[name], 0.9):6.2f} ms; account read median "
                  f"{statistics.median(reads[name]):5.2f} ms")
        ratio = statistics.median(times["large"]) / statistics.median(times["small"])
        verdict = "within" if ratio <= 1.3 else "ABOVE"
        print(f"[{label}] ratio of medians, {large:,} / {small:,} postings: {ratio:.2f} "
              f"({verdict} the aim of 1.3); {stakes} stakes each")
        return ratio
    finally:
        ledger.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postings", type=int, default=100_000,
                        help="postings on the long-history account (default 100,000)")
    parser.add_argument("--small", type=int, default=100,
                        help="postings on the short-history account (default 100)")
    parser.add_argument("--stakes", type=int, default=500,
                        help="stakes timed for each account (default 500)")
    parser.add_argument("--batch", type=int, default=1000,
                        help="postings per atomic save while building (default 1,000)")
    parser.add_argument("--store", choices=("both", "sqlite", "postgres"), default="both")
    args = parser.parse_args()
    print(machine())
    ratios = {}
    if args.store in ("both", "sqlite"):
        with sqlite_store() as settings:
            ratios["SQLite"] = run(settings, "SQLite", args.small, args.postings, args.stakes,
                                   args.batch)
    if args.store in ("both", "postgres") and (url := postgres_url()):
        with postgres_store(url) as settings:
            ratios["PostgreSQL"] = run(settings, "PostgreSQL", args.small, args.postings,
                                       args.stakes, args.batch)
    print("summary: " + ", ".join(f"{store} {ratio:.2f}" for store, ratio in ratios.items()))


if __name__ == "__main__":
    main()
