"""`run_simulation`: set up, play the deals under a progress bar, print the summary."""

from __future__ import annotations

import random
import time

import click
from rich.console import Console

from cli.common import StoreError
from cli.simulate.client import TRANSIENT, Api, ApiError
from cli.simulate.report import print_summary, print_table, progress_bar
from cli.simulate.simulation import Simulation


def run_simulation(console: Console, *, url: str, token: str, players: int, deals: int,
                   shoot: bool, seed: str | None = None, table_id: str | None = None) -> int:
    """Play `deals` deals; the exit status: 0 when the ledger's total is 0."""
    seed = seed or random.SystemRandom().randbytes(8).hex()
    api = Api(url)
    sim = Simulation(api, token, console=console, rng=random.Random(seed), players=players,
                     shoot=shoot, table_id=table_id)
    try:
        api.get("/v1/health", None)
    except TRANSIENT as error:
        raise StoreError(f"cannot reach the service at {url}: {error}; start it (`pontoon "
                         "serve`) or give its address with --url") from None
    try:
        health = api.get("/v1/health", token)  # a staff token is told the store too
        sim.setup()
        print_table(sim, health, url, seed)
        started = time.monotonic()
        interrupted = _play(sim, deals)
        ok = print_summary(sim, time.monotonic() - started)
    except ApiError as error:
        if error.status == 401 or error.status == 403:
            raise click.ClickException(f"{error} (is --token a treasurer token?)") from None
        raise click.ClickException(str(error)) from None
    except TRANSIENT as error:
        raise StoreError(f"lost the service at {url}: {error}") from None
    return 1 if not ok else 130 if interrupted else 0


def _play(sim: Simulation, deals: int) -> bool:
    """Play until `deals` deals are over; True when Ctrl-C stopped it (the summary follows)."""
    with progress_bar(sim.console) as progress:
        task = progress.add_task("playing", total=deals)
        try:
            if sim.table.get("deal_id"):  # an existing table with a deal open: finish it
                sim.play_deal(sim.api.get(f"/v1/deals/{sim.table['deal_id']}", sim.operator))
                progress.advance(task)
            while sim.tally.settled + sim.tally.void < deals:
                sim.between_deals()
                sim.play_deal(sim.start_deal())
                progress.advance(task)
        except KeyboardInterrupt:
            sim.console.print("[yellow]interrupted[/]: the summary of the deals played so far "
                              "(--table continues at this table)")
            return True
    return False
