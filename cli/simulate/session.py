"""What a simulation holds, and its set-up: the tokens, the table, its bots and the tally.

The treasurer registers the bots and buys their chips and creates the operator token; the
operator opens the table (or reads an existing one, whose seats staff then act for).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from cli.simulate.client import Api, ApiError

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy",
         "Mallory", "Niaj", "Olivia", "Peggy")
START_CHIPS = 100  # what the treasurer issues to each bot, and tops it back up to


@dataclass
class Bot:
    player_id: str
    name: str
    token: str | None  # None: a seat of an existing table whose token we do not hold


@dataclass
class Tally:
    settled: int = 0
    void: int = 0
    actions: int = 0
    refusals: int = 0
    buy_ins: int = 0
    chips_issued: int = 0
    kitties: int = 0
    top_ups: int = 0
    sales: int = 0
    auctions: int = 0
    auctions_sold: int = 0
    deal_ids: list[str] = field(default_factory=list)


class Session:
    """The state the phases share; `Simulation` adds what happens between and in deals."""

    def __init__(self, api: Api, treasurer: str, *, console: Console, rng: random.Random,
                 players: int, shoot: bool, table_id: str | None = None) -> None:
        self.api, self.treasurer, self.console, self.rng = api, treasurer, console, rng
        self.players, self.shoot, self.table_id = players, shoot, table_id or ""
        self.operator = ""
        self.bots: dict[str, Bot] = {}
        self.table: dict[str, Any] = {}
        self.dealt_by: str | None = None  # the banker of the last deal
        self.tally = Tally()

    # --- set-up -----------------------------------------------------------------------

    def setup(self) -> None:
        self.operator = self._create_token("operator")
        if self.table_id:
            self._adopt_table()
        else:
            self._open_table()

    def _create_token(self, role: str) -> str:
        for _ in range(3):
            answer = self.api.post("/v1/tokens", {"role": role}, self.treasurer)
            if answer.get("token"):  # a replayed creation answers null: ask again
                return str(answer["token"])
        raise click.ClickException(f"the service gave no {role} token")

    def _register(self, name: str) -> Bot:
        for _ in range(3):
            answer = self.api.post("/v1/players", {"name": name}, self.treasurer)
            if answer.get("token"):
                return Bot(answer["id"], name, answer["token"])
        raise click.ClickException(f"the service gave {name} no player token")

    def _free_name(self, name: str) -> str:
        """`name`, or `name 2`, `name 3`...: a store that already holds bots (an earlier
        simulation) gets new players it can tell apart from the old ones."""
        taken = {row["name"].casefold() for row in self.api.get(
            "/v1/players", self.treasurer, name=name, limit=500)["items"]}
        number = 1
        while (candidate := name if number == 1 else f"{name} {number}").casefold() in taken:
            number += 1
        return candidate

    def _open_table(self) -> None:
        names = [self._free_name(NAMES[i] if i < len(NAMES) else f"Bot {i + 1}")
                 for i in range(self.players)]
        for name in names:
            bot = self._register(name)
            self.bots[bot.player_id] = bot
            self.buy_in(bot.player_id, START_CHIPS)
        rules = {"min_stake": 1, "max_stake": 10, "shoot": self.shoot, "kitty_min": 10,
                 "kitty_max": 100, "burn": "13", "packs": 2 if self.players >= 8 else 1}
        school = "Shoot Pontoon" if self.shoot else "Pontoon"
        self.table = self.api.post("/v1/tables", {
            "name": f"Simulated {school} school", "seats": list(self.bots), "rules": rules,
            "pack": {"mode": "shuffled"}}, self.operator)  # no banker: cut for it (R3.2)
        self.table_id = self.table["id"]

    def _adopt_table(self) -> None:
        """An existing table: staff act for its seats, without seeing face-down cards."""
        self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)
        for player_id in self.table["seats"]:
            name = self.api.get(f"/v1/players/{player_id}", self.operator).get("name")
            self.bots[player_id] = Bot(player_id, name or player_id[:8], None)
        self.shoot = bool(self.table["rules"]["shoot"])

    # --- seats and chips -------------------------------------------------------------

    def token_for(self, player_id: str) -> str:
        bot = self.bots.get(player_id)
        return bot.token if bot is not None and bot.token else self.operator

    def name_of(self, player_id: str | None) -> str:
        bot = self.bots.get(player_id or "")
        return bot.name if bot is not None else str(player_id)[:8]

    def balance_of(self, player_id: str) -> int:
        return int(self.api.get(f"/v1/players/{player_id}/balance", self.treasurer)["balance"])

    def buy_in(self, player_id: str, amount: int) -> None:
        self.api.post(f"/v1/players/{player_id}/buy-ins", {"amount": amount}, self.treasurer)
        self.tally.buy_ins += 1
        self.tally.chips_issued += amount

    def log_refusal(self, who: str, what: str, error: ApiError) -> None:
        self.tally.refusals += 1
        rule = f" ({error.problem['rule']})" if error.problem.get("rule") else ""
        said = escape(f"{who} {what}: {error.status}{rule} {error.detail}")  # names, reasons
        self.console.print(f"[yellow]refused[/] {said}", highlight=False, soft_wrap=True)
