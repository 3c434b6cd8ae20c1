"""`pontoon demo`: a short game played by bots through the Ledger's commands, printed as it
goes. The Ledger runs on the in-memory store: nothing is written to disk."""

from __future__ import annotations

import hashlib
import random

from rich.console import Console
from rich.table import Table as RichTable

from application import Ledger
from application.store import build_ledger
from config import Settings
from domain.aggregates import kitty_id
from domain.engine.hands import describe
from domain.engine.legal import legal_actions
from domain.engine.strategy import choose
from domain.errors import present

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi")
BUY_IN = 100


def play_demo(console: Console, *, seed: str | None = None, players: int = 4,
              deals: int = 5) -> Ledger:
    """Play `deals` deals of Shoot Pontoon; a `seed` makes the game repeatable."""
    seed = seed or random.SystemRandom().randbytes(16).hex()
    rng = random.Random(seed)
    counter = iter(range(1, 1_000_000))
    if not 2 <= players <= len(NAMES):  # refused, never clamped (`pontoon demo --players`)
        raise ValueError(f"the demo seats 2 to {len(NAMES)} players, not {players}")
    ledger = build_ledger(Settings(database_url="memory://"))
    ledger.new_seed = lambda: hashlib.sha256(f"{seed}:{next(counter)}".encode()).hexdigest()
    names = NAMES[:players]
    ids = {name: str(ledger.register_player(name).result["id"]) for name in names}
    for player_id in ids.values():
        ledger.buy_in(player_id, BUY_IN)
    rules = {"min_stake": 1, "max_stake": 10, "shoot": True, "kitty_min": 10, "kitty_max": 60}
    table_id = str(ledger.open_table(name="Demo school", seats=list(ids.values()),
                                     rules=rules).result["table_id"])
    table = ledger.table(table_id).engine
    label = {player_id: name for name, player_id in ids.items()}
    console.print(f"[bold]Pontoon demo[/] (seed {seed}): {', '.join(names)}; "
                  f"{label[table.banker]} cut the highest card and banks (R3.2).")
    console.print(f"Pack commitment (SHA-256 of the secret seed, R1.7): {table.commitment}")
    for _ in range(deals):
        table = ledger.table(table_id).engine
        if table.kitty_needed:
            ledger.put_up_kitty(table_id, table.banker, 30)
            console.print(f"{label[table.banker]} puts up a kitty of 30 (R9.1).")
        deal_id = str(ledger.start_deal(table_id).result["deal_id"])
        deal = ledger.deal(deal_id).engine
        console.rule(f"Deal {deal.number}: {label[deal.banker]} banks, kitty {deal.kitty}")
        while not deal.is_over:
            turn = deal.turn
            held = {turn[0]: ledger.player_account(turn[0]).balance} if turn else None
            option, amount = choose(deal, legal_actions(deal, held), rng)
            ledger.act(deal_id, option.player, option.action, hand=option.hand, amount=amount)
            said = f" {amount}" if amount is not None else ""
            console.print(f"  {label[option.player]}: {option.action}{said}")
            deal = ledger.deal(deal_id).engine
        _show_result(console, ledger, deal_id, label)
    _show_chips(console, ledger, ids, table_id)
    return ledger


def _show_chips(console: Console, ledger: Ledger, ids: dict[str, str], table_id: str) -> None:
    """Every chip the treasury issued is held by a player or by the kitty (R11.1)."""
    chips = {name: ledger.player_account(pid).balance for name, pid in ids.items()}
    kitty = ledger.account(kitty_id(table_id)).balance
    held = sum(chips.values()) + kitty
    shown = ", ".join(f"{name} {amount}" for name, amount in chips.items())
    console.print(f"[bold]Chips[/]: {shown}; kitty {kitty}; held in all {held}, the "
                  f"{BUY_IN * len(ids)} the treasury issued (R11.1)")


def _show_result(console: Console, ledger: Ledger, deal_id: str, label: dict[str, str]
                 ) -> None:
    deal = ledger.deal(deal_id).engine
    if deal.phase == "void":
        console.print(f"  [yellow]void[/]: {deal.voided.reason if deal.voided else ''}")
        return
    settled = present(deal.settlement, "the settlement of a finished deal that is not void")
    console.print(f"  banker holds {describe(deal.banker_cards, deal.rules, banker=True)}")
    grid = RichTable("player", "hand", "cards", "outcome", "why", show_lines=False)
    for result in settled.results:
        grid.add_row(label[result["player"]], str(result["hand"]),
                     describe(result["cards"], deal.rules), result["outcome"],
                     result["explanation"])
    console.print(grid)

    def account(name: str) -> str:
        kind, _, key = name.partition(":")
        return label.get(key, name) if kind == "player" else kind

    for posting in deal.postings:
        console.print(f"    {posting.amount:>4} {account(posting.from_account):>6} → "
                      f"{account(posting.to_account):<6} {posting.rule:<6} {posting.reason}",
                      highlight=False, soft_wrap=True)
