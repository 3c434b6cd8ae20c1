"""`pontoon simulate --start`: the history played into the configured store, with a progress
bar on the terminal (standard error), then the read models brought up to date and a summary.
"""

from __future__ import annotations

import time as clock_time
from datetime import UTC, datetime
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from application import Ledger
from application.clock import SimulatedClock
from application.store import migrate, pending_migrations
from cli.common import where
from cli.simulate.books import Tally
from cli.simulate.history import Plan, play_history, refused
from cli.simulate.moments import CommandClock, simulated_ledger
from cli.simulate.report import RateColumn
from config import Settings
from projections.runner import Projections
from projections.store import read_store


def run_history(console: Console, plan: Plan) -> int:
    """Play `plan` into the store PONTOON_DATABASE_URL names; the exit status (0: the books
    balance). A refusal is one line and exit status 1, with nothing recorded."""
    settings = Settings.from_env()
    if pending_migrations(settings):
        migrate(settings)
    clock = CommandClock(plan.evenings()[0])
    ledger = simulated_ledger(settings, clock)
    try:
        why = refused(ledger, plan, datetime.now(UTC))
        if why is not None:
            raise click.ClickException(why)
        unsynced(ledger)
        projections = _projections(ledger, settings)
        known, taken = _players(projections)
        started = clock_time.monotonic()
        tally = _play(ledger, clock, plan, known, taken)
        seconds = clock_time.monotonic() - started
        total = _caught_up(projections)
    finally:
        ledger.close()
    _summary(console, plan, tally, seconds, total, where(settings))
    return 0 if total in (0, None) else 1


def unsynced(ledger: Ledger) -> None:
    """SQLite: the simulation's commits do not wait for the disk (`synchronous=OFF`), about
    a third of a command's time. A simulated store cut short by a crash is played again
    from scratch; a process killed loses nothing SQLite was given (docs/decisions.md 115).
    The library opens its connections itself: each is told as it is opened."""
    from eventsourcing.sqlite import SQLiteConnection, SQLiteConnectionPool

    pool: Any = getattr(getattr(ledger.recorder, "datastore", None), "pool", None)
    if not isinstance(pool, SQLiteConnectionPool):
        return
    opened = pool._create_connection  # noqa: SLF001 (the library's one way to make them)

    def unsynced_connection() -> SQLiteConnection:
        connection = opened()
        connection._sqlite_conn.execute("PRAGMA synchronous=OFF")  # noqa: SLF001
        return connection

    pool._create_connection = unsynced_connection  # noqa: SLF001
    for connection in list(pool._pool):  # noqa: SLF001 (those opened already)
        connection._sqlite_conn.execute("PRAGMA synchronous=OFF")  # noqa: SLF001


def _projections(ledger: Ledger, settings: Settings) -> Projections | None:
    store = read_store(ledger, settings)
    return Projections(ledger, store) if store is not None else None


def _players(projections: Projections | None) -> tuple[dict[str, Any], set[str]]:
    """The players an earlier simulated run left (they stay the club's members), and every
    name a player or table has (a new member takes none of them)."""
    if projections is None or projections.head() == 0:
        return {}, set()
    projections.catch_up()
    store = projections.store
    players = store.rows("SELECT owner, name, balance FROM accounts WHERE kind = 'player' "
                         "ORDER BY position")
    known = {str(row["name"]): {"id": row["owner"], "balance": row["balance"]}
             for row in players}
    taken = {str(row["name"]).casefold() for row in [
        *players, *store.rows("SELECT name FROM tables")]}
    return known, taken


def _play(ledger: Ledger, clock: SimulatedClock, plan: Plan, known: dict[str, Any],
          taken: set[str]) -> Tally:
    expected = plan.nights * plan.tables * plan.deals_per_table
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               MofNCompleteColumn(), TextColumn("deals"), RateColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(f"night 1 of {plan.nights}", total=expected)

        def night_over(number: int) -> None:
            bar.update(task, description=f"night {min(number + 1, plan.nights)} of "
                                         f"{plan.nights}")

        tally = play_history(ledger, clock, plan, known=known, taken=taken,
                             on_deal=lambda: bar.advance(task), on_night=night_over)
        bar.update(task, total=tally.deals, completed=tally.deals)
    return tally


def _caught_up(projections: Projections | None) -> int | None:
    """The read models brought up to date (the store is ready to serve); the sum of every
    balance, which must be 0 (R11.1)."""
    if projections is None:
        return None
    projections.catch_up()
    [row] = projections.store.rows("SELECT COALESCE(SUM(balance), 0) AS total FROM accounts")
    return int(row["total"])


def _summary(console: Console, plan: Plan, tally: Tally, seconds: float,
             total: int | None, store: str) -> None:
    rate = tally.deals / seconds if seconds > 0 else 0.0
    console.print(f"simulated {tally.nights} nights from {plan.start} ({plan.time_zone}, "
                  f"from {plan.evening:%H:%M}) into {store}: {tally.deals} deals "
                  f"({tally.settled} settled, {tally.void} void) at {tally.tables_opened} tables "
                  f"in {seconds:.1f} s ({rate:.0f} deals/s); seed {plan.seed}",
                  highlight=False, soft_wrap=True, markup=False)
    console.print(f"{tally.players} players, {tally.buy_ins} buy-ins ({tally.chips_issued} "
                  f"chips), {tally.cash_outs} cash-outs ({tally.chips_redeemed} chips), "
                  f"{tally.kitties} kitties, {tally.sales} bank sales, {tally.auctions} "
                  f"auctions; {tally.disputes} disputes ({tally.upheld} upheld, "
                  f"{tally.rejected} rejected); {tally.debts_left} debts left standing",
                  highlight=False, soft_wrap=True, markup=False)
    if total is not None:
        said = "0: the books balance" if total == 0 else f"{total}: NOT BALANCED"
        console.print(f"sum of all balances {said} (R11.1)", highlight=False, markup=False)

