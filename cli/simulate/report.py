"""What a simulation prints: the table at the start, a progress bar, and the summary."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table as RichTable
from rich.text import Text

from cli.simulate.simulation import Simulation


class RateColumn(ProgressColumn):
    """Deals per second since the start."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        rate = task.completed / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:.2f} deals/s", style="progress.data.speed")


def progress_bar(console: Console) -> Progress:
    """On stderr, and only on a terminal: the summary on stdout is all a pipe gets."""
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               MofNCompleteColumn(), TextColumn("deals"), RateColumn(), TimeElapsedColumn())
    errors = Console(stderr=True)
    return Progress(*columns, console=errors, disable=not errors.is_terminal)


def print_table(sim: Simulation, health: dict[str, Any], url: str, seed: str) -> None:
    """The table, its store and the seed first: `--seed` and `--table` repeat or resume it."""
    school = "Shoot Pontoon" if sim.shoot else "Pontoon"
    sim.console.print(f"[bold]table {sim.table_id}[/] ({school}, {len(sim.table['seats'])} "
                      f"players, {health.get('store')} store at {url}); bots' seed {seed}",
                      highlight=False, soft_wrap=True)
    banker = sim.table["banker"]
    sim.console.print("seats: " + ", ".join(  # names an adopted table's players chose
        sim.name_of(p) + (" (banker)" if p == banker else "") for p in sim.table["seats"]),
        markup=False, highlight=False)


def print_summary(sim: Simulation, elapsed: float) -> bool:
    """The tally, each player's chips and the ledger's total; True when that total is 0."""
    tally, console, api = sim.tally, sim.console, sim.api
    played = tally.settled + tally.void
    rate = played / elapsed if elapsed > 0 else 0.0
    sim.table = api.get(f"/v1/tables/{sim.table_id}", sim.operator)
    console.print(f"[bold]table {sim.table_id}[/]: {played} deals in {elapsed:.1f} s "
                  f"({rate:.2f} deals/s): {tally.settled} settled, {tally.void} void; "
                  f"{tally.actions} actions, {api.requests} requests, "
                  f"{api.retries} retries, {tally.refusals} refused",
                  highlight=False, soft_wrap=True)
    console.print(f"between deals: {tally.buy_ins} buy-ins ({tally.chips_issued} chips "
                  f"issued), {tally.kitties} kitties put up, {tally.top_ups} top-ups, "
                  f"{tally.sales} bank sales, {tally.auctions} auctions "
                  f"({tally.auctions_sold} sold)", highlight=False, soft_wrap=True)
    grid = RichTable("player", "chips", "", title="Chips per player")
    banker = sim.table["banker"]
    for player_id in sim.table["seats"]:
        grid.add_row(escape(sim.name_of(player_id)), str(sim.balance_of(player_id)),
                     "banker" if player_id == banker else "")
    console.print(grid)
    if sim.table["rules"]["shoot"]:
        console.print(f"kitty: {sim.table['kitty']}")
    ledger = api.get("/v1/balances", sim.treasurer, min_position=api.position)
    accounts = ledger["accounts"]
    treasury = sum(a["balance"] for a in accounts if a["kind"] == "treasury")
    ok = ledger["total"] == 0
    colour = "green" if ok else "red"
    console.print(f"ledger: [bold {colour}]total {ledger['total']}[/] over {len(accounts)} "
                  f"accounts (treasury {treasury}, players' debts {ledger['debts']}) (R11.1)",
                  highlight=False, soft_wrap=True)
    return ok
