"""`pontoon demo`: a short game played by bots through the rules engine, printed as it goes."""

from __future__ import annotations

import hashlib
import random

from rich.console import Console
from rich.table import Table as RichTable

from domain.engine.club import Club
from domain.engine.hands import describe
from domain.engine.strategy import choose

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi")


def play_demo(console: Console, *, seed: str | None = None, players: int = 4,
              deals: int = 5) -> Club:
    """Play `deals` deals of Shoot Pontoon; a `seed` makes the game repeatable."""
    seed = seed or random.SystemRandom().randbytes(16).hex()
    rng = random.Random(seed)
    counter = iter(range(1, 1_000_000))
    club = Club(new_seed=lambda: hashlib.sha256(f"{seed}:{next(counter)}".encode()).hexdigest())
    if not 2 <= players <= len(NAMES):  # refused, never clamped (`pontoon demo --players`)
        raise ValueError(f"the demo seats 2 to {len(NAMES)} players, not {players}")
    names = NAMES[:players]
    ids = {name: club.register_player(name) for name in names}
    for player_id in ids.values():
        club.buy_in(player_id, 100)
    rules = {"min_stake": 1, "max_stake": 10, "shoot": True, "kitty_min": 10, "kitty_max": 60}
    table_id = club.open_table("Demo school", list(ids.values()), rules=rules)
    table = club.table(table_id)
    label = {player_id: name for name, player_id in ids.items()}
    console.print(f"[bold]Pontoon demo[/] (seed {seed}): {', '.join(names)}; "
                  f"{label[table.banker]} cut the highest card and banks (R3.2).")
    console.print(f"Pack commitment (SHA-256 of the secret seed, R1.7): {table.commitment}")
    for _ in range(deals):
        if table.kitty_needed:
            club.put_up_kitty(table_id, table.banker, 30)
            console.print(f"{label[table.banker]} puts up a kitty of 30 (R9.1).")
        deal_id = club.start_deal(table_id)
        deal = club.deal(deal_id)
        console.rule(f"Deal {deal.number}: {label[deal.banker]} banks, kitty {deal.kitty}")
        while not deal.is_over:
            option, amount = choose(deal, club.legal_actions(deal_id), rng)
            club.act(deal_id, option.player, option.action, hand=option.hand, amount=amount)
            said = f" {amount}" if amount is not None else ""
            console.print(f"  {label[option.player]}: {option.action}{said}")
        _show_result(console, club, deal_id, label)
    chips = ", ".join(f"{name} {club.chips(pid)}" for name, pid in ids.items())
    console.print(f"[bold]Chips[/]: {chips}; kitty {table.kitty}; "
                  f"sum of all accounts {club.total()} (R11.1)")
    return club


def _show_result(console: Console, club: Club, deal_id: str, label: dict[str, str]) -> None:
    deal = club.deal(deal_id)
    if deal.phase == "void":
        console.print(f"  [yellow]void[/]: {deal.voided.reason if deal.voided else ''}")
        return
    settled = deal.settlement
    assert settled is not None
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
