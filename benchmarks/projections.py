"""How fast do the read models catch up with the event log, and how fast does `verify` run?

On SQLite (a temporary file) and on PostgreSQL when PONTOON_TEST_POSTGRES_URL is set (a fresh
schema, dropped afterwards), in the same run:

1. Fill. `--deals` deals of realistic play, every one through the real `Ledger` commands
   (`start_deal`, then `act` for each action: the same decide-and-save path the API uses),
   nothing written around it. Six players per table, `--tables` tables played in turn, with
   Shoot Pontoon, splits, burning on 13, banker doubling and royal pontoons on. Bots choose
   uniformly among `domain.engine.legal.legal_actions` (and amounts) with a fixed random seed;
   bankers put up kitties when needed (R9.1), players are bought in again when short (R11.1),
   and every 100th deal is disputed and the dispute resolved with a correction (R11.4).
2. Raw read of the log, the baseline, in pages of the runner's size: the rows alone as the
   runner reads them (`projections.log.Log`, plain tuples: the quickest read of the log
   pages there is here, so the baseline the aim is judged against), the library's
   `select_notifications` (Notification objects, the baseline of earlier runs), and that
   again decoding each event with `ledger.mapper.to_domain_event`; events/s, best of three.
3. Catch-up from zero: `Projections.rebuild` (drop every read-model row and position, then
   apply the whole log to every read model); log events/s, best of two, with the ratio to
   both baselines (aim ≥ 0.3), then one more rebuild model by model for the breakdown.
4. `verification.verify.verify` over the whole log: deals/s, events/s, and the time it would
   take for 100,000 deals of the same play, extrapolated linearly (verify reads the log
   once, in order; it keeps every posting's id and entries in memory, so at 100,000 deals,
   about 1.5 million postings, memory rather than time may be what limits it). Filling
   100,000 deals through Ledger commands would take hours here, so it is not measured.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as `python benchmarks/projections.py`, this file would shadow the `projections`
# package: look in the repository, not in this folder.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from application import Ledger  # noqa: E402
from application.store import build_ledger  # noqa: E402
from benchmarks.stores import machine, postgres_store, postgres_url, sqlite_store  # noqa: E402
from config import Settings  # noqa: E402
from domain.engine.legal import legal_actions  # noqa: E402
from domain.errors import PontoonError  # noqa: E402
from projections.log import Log  # noqa: E402
from projections.runner import Projections  # noqa: E402
from projections.store import TABLES, read_store  # noqa: E402
from verification.verify import verify  # noqa: E402

RULES = {"min_stake": 1, "max_stake": 10, "shoot": True, "kitty_min": 20, "kitty_max": 200,
         "split": "pairs", "burn": "13", "banker_may_double": True, "royal_pontoon": True}
PLAYERS = 6
TOP_UP_BELOW, TOP_UP = 300, 2_000
KITTY = 100
TARGET_DEALS = 100_000


# --- filling the log with play -----------------------------------------------------------

class Club:
    """Players and tables on the ledger, and bots that play deals through its commands."""

    def __init__(self, ledger: Ledger, tables: int, seed: int) -> None:
        self.ledger = ledger
        self.rng = random.Random(seed)
        self.players: list[str] = []
        self.tables: list[str] = []
        for t in range(tables):
            seats = []
            for p in range(PLAYERS):
                player = str(ledger.register_player(f"T{t} P{p}").result["id"])
                ledger.buy_in(player, TOP_UP)
                seats.append(player)
            self.players += seats
            self.tables.append(str(ledger.open_table(
                name=f"bench {t}", seats=seats, banker=seats[0], rules=RULES,
                pack={"mode": "shuffled"}).result["table_id"]))
        self.deals = 0
        self.actions = 0
        self.disputes = 0

    @classmethod
    def at(cls, ledger: Ledger, tables: list[str], seed: int) -> Club:
        """Bots for tables already open, whose players are registered and bought in."""
        club = cls(ledger, 0, seed)
        club.tables = list(tables)
        club.players = [p for table in tables for p in ledger.table(table).engine.seats]
        return club

    def chips(self, player: str) -> int:
        return self.ledger.player_account(player).balance

    def top_up(self, player: str) -> None:
        held = self.chips(player)
        if held < TOP_UP_BELOW:
            self.ledger.buy_in(player, TOP_UP - held)

    def play_deal(self, table_id: str) -> str:
        ledger = self.ledger
        table = ledger.table(table_id).engine
        for player in table.seats:
            self.top_up(player)
        if table.kitty_needed:
            ledger.put_up_kitty(table_id, table.banker, KITTY)
        deal_id = str(ledger.start_deal(table_id).result["deal_id"])
        while True:
            deal = ledger.deal(deal_id).engine
            if deal.is_over:
                break
            try:
                self.act(deal_id, deal, None)
            except PontoonError:
                # Rarely a player cannot afford the amount drawn: draw within their chips.
                turn = deal.turn
                assert turn is not None
                self.act(deal_id, deal, {turn[0]: self.chips(turn[0])})
            self.actions += 1
        self.deals += 1
        if self.deals % 100 == 0:
            self.dispute(deal_id, deal.banker, deal.order[0])
        return deal_id

    def act(self, deal_id: str, deal: Any, chips: dict[str, int] | None) -> None:
        """One action drawn uniformly from the legal ones (and its amount), sent as a
        command. Players hold at least TOP_UP_BELOW chips when a deal starts, so the
        chips are looked up only when an amount drawn without them is refused (R11.2)."""
        options = legal_actions(deal, chips)
        choice = options[self.rng.randrange(len(options))]
        amount = None
        if choice.amount_min is not None and (choice.action != "split"
                                              or self.rng.random() < .5):
            amount = self.rng.randint(choice.amount_min, choice.amount_max or choice.amount_min)
        self.ledger.act(deal_id, choice.player, choice.action, hand=choice.hand, amount=amount)

    def dispute(self, deal_id: str, banker: str, player: str) -> None:
        raised = self.ledger.raise_dispute(deal_id, "the banker's total was misread",
                                           raised_by=f"player:{player}")
        self.ledger.resolve_dispute(
            str(raised.result["id"]), decision="upheld", note="one chip back",
            corrections=[{"from_account": f"player:{banker}", "to_account": f"player:{player}",
                          "amount": 1}], resolved_by="treasurer:bench",
            allow_debt=True)  # the banker may hold nothing after settling (R11.3)
        self.disputes += 1


def fill(ledger: Ledger, deals: int, tables: int, label: str, seed: int = 20261129
         ) -> tuple[int, float]:
    club = Club(ledger, tables, seed=seed)
    start = time.perf_counter()
    report_every = max(deals // 5, 1)
    for number in range(deals):
        club.play_deal(club.tables[number % tables])
        if (number + 1) % report_every == 0 and number + 1 < deals:
            print(f"[{label}]   {number + 1:,} deals ...", flush=True)
    seconds = time.perf_counter() - start
    events = ledger.recorder.max_notification_id() or 0
    print(f"[{label}] fill: {club.deals:,} deals at {tables} six-player tables, "
          f"{club.actions:,} actions, {club.disputes} disputes resolved, through Ledger "
          f"commands in {seconds:.1f} s ({club.deals / seconds:,.1f} deals/s); "
          f"the log holds {events:,} events ({events / club.deals:.1f} a deal)")
    return events, seconds


# --- measuring ---------------------------------------------------------------------------

def read_log(ledger: Ledger, page: int, decode: bool, rows: bool = False) -> int:
    """Every event of the log in pages: as plain rows, or as the library's notifications
    (decoded by its mapper if asked)."""
    recorder, mapper = ledger.recorder, ledger.mapper
    log = Log(recorder)
    start, count = 1, 0
    while True:
        notes = log.page(start, page) if rows else \
            recorder.select_notifications(start=start, limit=page)
        if not notes:
            return count
        if decode:
            for note in notes:
                mapper.to_domain_event(note)
        count += len(notes)
        start = notes[-1].id + 1


def best_of(runs: int, call: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def run(settings: Settings, label: str, deals: int, tables: int) -> dict[str, float]:
    ledger = build_ledger(settings)
    try:
        events, _ = fill(ledger, deals, tables, label)
        store = read_store(ledger, settings)
        assert store is not None
        projections = Projections(ledger, store)
        page = projections.page

        rows_s, count = best_of(3, lambda: read_log(ledger, page, decode=False, rows=True))
        assert count == events, (count, events)
        raw_s, count = best_of(3, lambda: read_log(ledger, page, decode=False))
        assert count == events, (count, events)
        decoded_s, _ = best_of(3, lambda: read_log(ledger, page, decode=True))
        rows, raw, decoded = events / rows_s, events / raw_s, events / decoded_s
        print(f"[{label}] raw log read, pages of {page}: plain rows {rows:,.0f} events/s "
              f"({rows_s:.2f} s); select_notifications {raw:,.0f} events/s ({raw_s:.2f} s); "
              f"with to_domain_event: {decoded:,.0f} events/s ({decoded_s:.2f} s)")

        rebuild_s, applied = best_of(2, projections.rebuild)
        models = len(projections.read_models)
        assert applied == events, (applied, events)  # the log is read once for all models
        assert set(projections.lags().values()) == {0}
        catch_up = events / rebuild_s
        print(f"[{label}] catch-up from zero (Projections.rebuild, {models} read models: "
              f"{', '.join(m.name for m in projections.read_models)}): {catch_up:,.0f} log "
              f"events/s ({rebuild_s:.2f} s)")
        print(f"[{label}] ratio catch-up / raw read of plain rows = {catch_up / rows:.3f} "
              f"(aim >= 0.3); / select_notifications = {catch_up / raw:.3f}; "
              f"/ select_notifications with decoding = {catch_up / decoded:.3f}")
        store.clear(TABLES, [m.tracking_name for m in projections.read_models])
        parts = []
        fresh = Projections(ledger, store)  # remembers no positions: reads them cleared
        for model in fresh.read_models:
            start = time.perf_counter()
            while fresh.step(model) > 0:
                pass
            seconds = time.perf_counter() - start
            parts.append(f"{model.name} {seconds:.2f} s ({events / seconds:,.0f}/s)")
        print(f"[{label}] the same, model by model: {'; '.join(parts)}")

        start = time.perf_counter()
        report = verify(ledger, reopen=functools.partial(build_ledger, settings))
        verify_s = time.perf_counter() - start
        if not report.ok:
            print(f"[{label}] verify FAILED: {report.failures[:3]}")
        per_deal = events / report.deals
        rate = report.deals / verify_s
        projected = TARGET_DEALS / rate
        print(f"[{label}] verify: {report.deals:,} deals, {report.events:,} events, "
              f"{report.accounts:,} accounts, {report.seeds:,} seeds in {verify_s:.2f} s: "
              f"{rate:,.1f} deals/s, {report.events / verify_s:,.0f} events/s, "
              f"ok={report.ok}")
        print(f"[{label}] verify of {TARGET_DEALS:,} deals ({TARGET_DEALS * per_deal:,.0f} "
              f"events at {per_deal:.1f} a deal), extrapolated: {projected:,.0f} s "
              f"({projected / 60:.1f} min)")
        return {"rows": rows, "raw": raw, "decoded": decoded, "catch_up": catch_up,
                "verify": rate}
    finally:
        ledger.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=500,
                        help="deals to play into each store (default 500)")
    parser.add_argument("--tables", type=int, default=4, help="six-player tables")
    args = parser.parse_args()
    print(machine())
    print(f"{args.deals:,} deals per store, {args.tables} tables; rules {RULES}")
    results = {}
    with sqlite_store() as settings:
        print("SQLite: a temporary file")
        results["sqlite"] = run(settings, "sqlite", args.deals, args.tables)
    if url := postgres_url():
        with postgres_store(url) as settings:
            results["postgres"] = run(settings, "postgres", args.deals, args.tables)
    print("summary (events/s unless said):")
    for label, r in results.items():
        print(f"  {label:8} rows {r['rows']:>9,.0f}  notifications {r['raw']:>9,.0f}  "
              f"decoded {r['decoded']:>8,.0f}  catch-up {r['catch_up']:>7,.0f}  ratio "
              f"{r['catch_up'] / r['rows']:.3f} (aim >= 0.3) / {r['catch_up'] / r['raw']:.3f} / "
              f"{r['catch_up'] / r['decoded']:.3f}  verify {r['verify']:,.1f} deals/s")


if __name__ == "__main__":
    main()
