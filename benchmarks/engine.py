"""Complete random six-player deals per second through the pure rules engine, on one core.

Bots choose uniformly among the legal actions (and amounts). The loop calls the engine's
`Table` and `Deal` directly and records nothing: no store, no chips (every player is taken
to hold plenty), so the figure is the engine's deciding alone; the Ledger's commands are
measured by benchmarks/history.py and benchmarks/service.py. A baseline measured in the
same run — Python sorting a pack of cards — gives a machine-independent ratio alongside the
raw figure.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

from domain.engine.legal import legal_actions
from domain.engine.shuffle import derived_seed
from domain.engine.table import Table

RULES = {"min_stake": 1, "max_stake": 10, "shoot": True, "kitty_min": 20, "kitty_max": 200,
         "split": "pairs", "burn": "13", "banker_may_double": True, "royal_pontoon": True}


def play(deals: int, seed: int) -> tuple[int, int]:
    """Play `deals` deals at one six-player table; returns (deals, actions)."""
    rng = random.Random(seed)
    seeds = (derived_seed("engine-bench", seed, n) for n in range(10**9))
    players = [f"P{i}" for i in range(6)]
    table, _ = Table.open(table_id="bench", name="bench", seats=players, banker=None,
                          rules=RULES, pack=None, seed=next(seeds))
    actions = 0
    for number in range(deals):
        if table.kitty_needed:
            table.put_up_kitty(table.banker, 100)
        deal, _, _ = table.start_deal(deal_id=f"d{number}", seed=next(seeds))
        while not deal.is_over:
            options = legal_actions(deal)
            choice = options[rng.randrange(len(options))]
            amount = None
            if choice.amount_min is not None and (choice.action != "split" or rng.random() < .5):
                amount = rng.randint(choice.amount_min, choice.amount_max or choice.amount_min)
            deal.act(choice.player, choice.action, hand=choice.hand, amount=amount)
            actions += 1
        table.end_deal(deal)
    return deals, actions


def baseline(seconds: float) -> float:
    """Sorts of a shuffled 52-card list per second: how fast this Python is right now."""
    rng = random.Random(1)
    cards = [f"{r}{s}" for s in "SHDC" for r in range(13)]
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            rng.shuffle(cards)
            sorted(cards)
        done += 1000
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as promised
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
          f"{platform.release()}, Python {platform.python_version()} "
          f"({platform.python_implementation()})")
    rates = []
    for run in range(args.repeat):
        start = time.perf_counter()
        deals, actions = play(args.deals, seed=run)
        elapsed = time.perf_counter() - start
        rates.append(deals / elapsed)
        print(f"run {run + 1}: {deals} six-player deals, {actions} actions in {elapsed:.2f} s: "
              f"{deals / elapsed:,.0f} deals/s, {actions / elapsed:,.0f} actions/s")
    best = max(rates)
    base = baseline(1.0)
    print(f"best: {best:,.0f} six-player deals/s on one core")
    print(f"baseline: {base:,.0f} shuffle+sorts of a pack/s; ratio deals/baseline = "
          f"{best / base:.3f}")


if __name__ == "__main__":
    main()
