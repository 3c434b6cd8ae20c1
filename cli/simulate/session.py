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
from cli.simulate.names import pick_names

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

    def _register(self, name: str) -> Bot | None:
        """A bot of that name, or None if another simulation took the name first.

        The key is the name's: a second simulation (with the same treasurer token) that
        registers a name is answered the first's receipt, without a token, so two run at
        once never make two players of one name."""
        for _ in range(3):
            answer = self.api.post("/v1/players", {"name": name}, self.treasurer,
                                   key=f"simulate-player:{name.casefold()}")
            if answer.get("token"):
                return Bot(answer["id"], name, answer["token"])
            if answer.get("id"):
                return None
        raise click.ClickException(f"the service gave {name} no player token")

    def _taken_names(self, names: list[str]) -> set[str]:
        """The names of the players and tables whose names start like `names` do."""
        taken: set[str] = set()
        for name in names:
            for path in ("/v1/players", "/v1/tables"):
                query: dict[str, Any] = {"name": name, "limit": 500}
                while True:
                    found = self.api.get(path, self.treasurer, **query)
                    taken |= {row["name"] for row in found["items"]}
                    if found["next"] is None:
                        break
                    query["after"] = found["next"]
        return taken

    def _open_table(self) -> None:
        bases = [NAMES[i] if i < len(NAMES) else f"Bot {i + 1}" for i in range(self.players)]
        school = f"Simulated {'Shoot Pontoon' if self.shoot else 'Pontoon'} school"
        taken = self._taken_names([*bases, school])
        while True:
            names, table_name = pick_names(bases, school, taken)
            bots = []
            for name in names:  # the first name claims the number (see `_register`)
                bot = self._register(name)
                if bot is None:
                    break
                bots.append(bot)
            if len(bots) == len(names):
                break
            taken.add(names[len(bots)])
        for bot in bots:
            self.bots[bot.player_id] = bot
            self.buy_in(bot.player_id, START_CHIPS)
        rules = {"min_stake": 1, "max_stake": 10, "shoot": self.shoot, "kitty_min": 10,
                 "kitty_max": 100, "burn": "13", "packs": 2 if self.players >= 8 else 1}
        while True:  # a table opened under that name meanwhile: the next free one (409)
            try:
                self.table = self.api.post("/v1/tables", {
                    "name": table_name, "seats": list(self.bots), "rules": rules,
                    "pack": {"mode": "shuffled"}}, self.operator)  # no banker: a cut (R3.2)
                break
            except ApiError as error:
                if error.status != 409:
                    raise
                taken.add(table_name)
                table_name = pick_names([], school, taken)[1]
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
