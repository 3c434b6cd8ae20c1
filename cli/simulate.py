"""`pontoon simulate`: bots play complete deals through the REST API, and nothing else.

Each bot is a player with a token of its own (`POST /v1/players` answers it), so it sees its
own face-down cards and acts only for its own seat, as a person with a client app would: it
reads the deal (`GET /v1/deals/{id}`) and what it may do (`GET .../legal-actions`), chooses
with `choose_action` and posts the action. A treasurer token registers the players, buys
their chips and creates an operator token; the operator opens the table and starts each
deal. Between deals the banker puts up or tops up the kitty (R9.1, R9.9, R9.10), now and then
offers the bank at an auction when the kitty ran empty (R9.10) or sells it (R8.2), and the
treasurer buys chips for players who run short (R3.5, R11.1).

Only the standard library speaks HTTP here (urllib.request, JSON). Every POST carries an
`Idempotency-Key` and is sent once more, with the same key, after a 409 or a dropped
connection; an action refused with 409 or 422 is logged and the bot chooses again.
"""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import click
from rich.console import Console
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

from domain.engine.hands import hard_total, value

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy",
         "Mallory", "Niaj", "Olivia", "Peggy")
START_CHIPS = 100  # what the treasurer issues to each bot, and tops it back up to
KITTIES = (20, 30, 40, 50)  # a new kitty, clamped to the table's kitty_min..kitty_max (R9.1)
AUCTION_CHANCE = 0.3  # an empty kitty is offered at an auction this often (R9.10)
SALE_CHANCE = 0.02  # the banker sells the bank after a deal this often (R8.2)
RETRY_PAUSE = 0.05
TIMEOUT = 30.0
MAX_REFUSALS = 25  # refused actions in a row before a deal is given up as stuck
OVER = ("settled", "void")
TEN_AND_ACE = ("A", "10", "J", "Q", "K")


class Rng(Protocol):
    def random(self) -> float: ...

    def randint(self, a: int, b: int) -> int: ...


# --- the strategy on the REST deal view ---------------------------------------------------


def _rank(card: str) -> str:
    return card[:-1]


def _hand_cards(view: Mapping[str, Any], player_id: str, hand: int) -> list[str | None] | None:
    for seat in view.get("players") or []:
        if seat.get("player_id") == player_id:
            hands = seat.get("hands") or []
            return list(hands[hand]["cards"]) if 0 <= hand < len(hands) else None
    return None


def _with_amount(item: Mapping[str, Any]) -> tuple[Mapping[str, Any], int | None]:
    """An item as it stands: the least amount when the action needs one."""
    needs = item["action"] in ("stake", "buy", "shoot")
    return item, item.get("amount_min") if needs else None


def choose_action(view: Mapping[str, Any], items: Sequence[Mapping[str, Any]], rng: Rng
                  ) -> tuple[Mapping[str, Any], int | None]:
    """Pick one of the legal `items` and an amount for it, as `domain.engine.strategy.choose` does.

    `view` is the deal as the acting player sees it (GET /v1/deals/{id} with its own token);
    `items` are that player's entries of GET /v1/deals/{id}/legal-actions. Stick on 17 or
    more, buy on a hard total of 11 or less (at the minimum), twist otherwise; split aces and
    eights, burn when allowed, shoot a little within the limits now and then; the banker
    draws below 17. A hand whose cards this viewer cannot see (staff acting for a seat whose
    token it does not hold) sticks as soon as it may and twists until then.
    """
    if not items:
        raise ValueError("no legal action to choose from")
    by_action = {item["action"]: item for item in items}

    def pick(action: str, amount: int | None = None) -> tuple[Mapping[str, Any], int | None]:
        return by_action[action], amount

    if "stake" in by_action:
        stake = by_action["stake"]
        return pick("stake", rng.randint(stake["amount_min"], stake["amount_max"]))
    banker_cards = list((view.get("banker") or {}).get("cards") or [])
    if "double" in by_action:
        first = banker_cards[0] if banker_cards else None
        return pick("double" if first is not None and _rank(first) in TEN_AND_ACE
                    else "decline")
    if "draw" in by_action:
        seen = [card for card in banker_cards if card is not None]
        low = bool(seen) and len(seen) == len(banker_cards) and value(seen) < 17
        return pick("draw" if low or "stay" not in by_action else "stay")
    shoot = by_action.get("shoot")
    if view.get("phase") == "shooting" or "pass" in by_action:
        if shoot and shoot.get("amount_max") and rng.random() < 0.4:
            return pick("shoot", max(1, min(shoot["amount_max"], rng.randint(1, 5))))
        if "pass" in by_action:
            return pick("pass")
    first_item = items[0]
    cards = _hand_cards(view, first_item["player_id"], first_item["hand"])
    if not cards or any(card is None for card in cards):
        for action in ("stick", "twist"):
            if action in by_action:
                return pick(action)
        return _with_amount(first_item)
    known = [card for card in cards if card is not None]
    if "split" in by_action and _rank(known[0]) in ("A", "8"):
        return pick("split")
    if "burn" in by_action:
        return pick("burn")
    total = value(known)
    if total >= 17 and "stick" in by_action:
        return pick("stick")
    if shoot and shoot.get("amount_max") and len(known) == 3 and hard_total(known) <= 11 \
            and rng.random() < 0.5:
        return pick("shoot", max(1, min(shoot["amount_max"], 3)))
    buy = by_action.get("buy")
    if buy and buy.get("amount_min") is not None and hard_total(known) <= 11:
        return pick("buy", buy["amount_min"])
    if "twist" in by_action and (total < 17 or "stick" not in by_action):
        return pick("twist")
    if "stick" in by_action:
        return pick("stick")
    return _with_amount(first_item)


# --- HTTP ---------------------------------------------------------------------------------

# What a dropped or refused connection raises (HTTPError, a URLError, is answered first).
_TRANSIENT = (urllib.error.URLError, ConnectionError, TimeoutError, http.client.HTTPException)


class ApiError(Exception):
    """A problem+json answer (or any non-2xx answer) of the service."""

    def __init__(self, method: str, path: str, status: int, problem: Mapping[str, Any]) -> None:
        self.method, self.path, self.status = method, path, status
        self.problem = dict(problem)
        detail = self.problem.get("detail") or self.problem.get("title") or ""
        super().__init__(f"{method} {path.split('?')[0]}: {status} {detail}")

    @property
    def detail(self) -> str:
        return str(self.problem.get("detail") or self.problem.get("title") or self.status)


class Api:
    """JSON over urllib: bearer tokens, an Idempotency-Key on every POST, one retry."""

    def __init__(self, base_url: str, *, timeout: float = TIMEOUT) -> None:
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.requests = 0
        self.retries = 0
        self.position = 0  # the highest log position a command answered (read-your-writes)

    def get(self, path: str, token: str | None, **query: Any) -> Any:
        if query:
            path += "?" + urllib.parse.urlencode(query)
        for attempt in range(3):
            try:
                return self._send("GET", path, None, token, None)
            except ApiError as error:
                if error.status != 503 or attempt == 2:  # 503: read models catching up
                    raise
            except _TRANSIENT:
                if attempt == 2:
                    raise
            self.retries += 1
            time.sleep(RETRY_PAUSE * (attempt + 1) * 4)
        raise AssertionError("unreachable")

    def post(self, path: str, body: Mapping[str, Any], token: str | None) -> Any:
        """Send once; on a 409 or a lost connection send again with the same key, once."""
        key = uuid.uuid4().hex
        try:
            return self._send("POST", path, body, token, key)
        except ApiError as error:
            if error.status != 409:
                raise
        except _TRANSIENT:
            pass
        self.retries += 1
        time.sleep(RETRY_PAUSE)
        return self._send("POST", path, body, token, key)

    def _send(self, method: str, path: str, body: Mapping[str, Any] | None,
              token: str | None, key: str | None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if data is not None:
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["Idempotency-Key"] = key
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=headers)
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            with error:
                raw = error.read()
            try:
                problem = json.loads(raw) if raw else {}
            except ValueError:
                problem = {"detail": raw.decode(errors="replace")[:200]}
            raise ApiError(method, path, error.code,
                           problem if isinstance(problem, dict) else {}) from None
        answer = json.loads(raw) if raw else None
        if isinstance(answer, dict) and isinstance(answer.get("position"), int):
            self.position = max(self.position, answer["position"])
        return answer


# --- the simulation -----------------------------------------------------------------------


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


class Simulation:
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

    def _open_table(self) -> None:
        names = [NAMES[i] if i < len(NAMES) else f"Bot {i + 1}" for i in range(self.players)]
        for name in names:
            bot = self._register(name)
            self.bots[bot.player_id] = bot
            self._buy_in(bot.player_id, START_CHIPS)
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

    # --- chips and the bank between deals --------------------------------------------

    def _token(self, player_id: str) -> str:
        bot = self.bots.get(player_id)
        return bot.token if bot is not None and bot.token else self.operator

    def _name(self, player_id: str | None) -> str:
        bot = self.bots.get(player_id or "")
        return bot.name if bot is not None else str(player_id)[:8]

    def _balance(self, player_id: str) -> int:
        return int(self.api.get(f"/v1/players/{player_id}/balance", self.treasurer)["balance"])

    def _buy_in(self, player_id: str, amount: int) -> None:
        self.api.post(f"/v1/players/{player_id}/buy-ins", {"amount": amount}, self.treasurer)
        self.tally.buy_ins += 1
        self.tally.chips_issued += amount

    def _refused(self, who: str, what: str, error: ApiError) -> None:
        self.tally.refusals += 1
        rule = f" ({error.problem['rule']})" if error.problem.get("rule") else ""
        self.console.print(f"[yellow]refused[/] {who} {what}: {error.status}{rule} "
                           f"{error.detail}", highlight=False, soft_wrap=True)

    def between_deals(self) -> None:
        """Chips for the short, now and then a bank sale, and the kitty (R3.5, R8.2, R9)."""
        self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)
        rules = self.table["rules"]
        floor = max(rules["min_stake"], 3 * rules["max_stake"])
        balances = {p: self._balance(p) for p in self.table["seats"]}
        stack = max(START_CHIPS, 2 * floor)
        for player_id, chips in balances.items():
            if player_id != self.table["banker"] and chips < floor:
                self._buy_in(player_id, stack - chips)  # a debt is paid off first (R11.3)
                balances[player_id] = stack
        if self.rng.random() < SALE_CHANCE:
            self._sell_bank(balances)
        if self.shoot:
            self._kitty(balances)

    def _sell_bank(self, balances: dict[str, int]) -> None:
        banker = self.table["banker"]
        price = self.rng.randint(1, 10)
        buyers = [p for p in self.table["seats"] if p != banker and balances[p] >= price]
        if not buyers:
            return
        buyer = self.rng.choice(buyers)
        try:
            self.table = self.api.post(f"/v1/tables/{self.table_id}/bank-sales",
                                       {"buyer_id": buyer, "price": price}, self._token(banker))
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            self._refused(self._name(banker), f"sell the bank to {self._name(buyer)}", error)
            return
        self.tally.sales += 1
        balances[buyer] -= price
        balances[banker] += price

    def _kitty(self, balances: dict[str, int]) -> None:
        rules = self.table["rules"]
        kitty_min, kitty_max = rules["kitty_min"], rules["kitty_max"]
        # The kitty ran empty in play (not handed back at a change of banker): the banker
        # may offer the bank to the highest bidder instead of a new kitty (R9.10, R9.11).
        if self.table["kitty"] == 0 and self.table["banker"] == self.dealt_by \
                and self.rng.random() < AUCTION_CHANCE:
            self._auction(balances)
        banker = self.table["banker"]
        kitty = self.table["kitty"]
        if kitty == 0:  # a new kitty: after a change of banker, or the kitty ran empty
            amount = min(max(self.rng.choice(KITTIES), kitty_min), kitty_max)
        elif kitty < max(kitty_min, kitty_max // 5):  # running low: top it up (R9.9)
            amount = min(kitty_max - kitty, max(KITTIES) - kitty)
        else:
            return
        if amount <= 0:
            return
        chips = balances.get(banker, 0)
        if chips < amount:
            self._buy_in(banker, amount - chips + START_CHIPS)
        try:
            self.table = self.api.post(f"/v1/tables/{self.table_id}/kitty", {"amount": amount},
                                       self._token(banker))
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            self._refused(self._name(banker), f"put up a kitty of {amount}", error)
            return
        if kitty == 0:
            self.tally.kitties += 1
        else:
            self.tally.top_ups += 1

    def _auction(self, balances: dict[str, int]) -> None:
        """R9.10: the kitty ran empty; the banker offers the bank to the highest bidder."""
        banker = self.table["banker"]
        base = f"/v1/tables/{self.table_id}/auction"
        try:
            self.api.post(base, {}, self._token(banker))
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            return  # no auction now (the kitty did not run empty in play): put one up
        self.tally.auctions += 1
        for player_id in self.table["seats"]:
            chips = balances.get(player_id, 0)
            if player_id == banker or chips < 5 or self.rng.random() < 0.4:
                continue
            price = self.rng.randint(5, min(30, chips))
            try:
                self.api.post(base + "/bids", {"player_id": player_id, "price": price},
                              self._token(player_id))
            except ApiError as error:
                if error.status not in (409, 422):
                    raise
                self._refused(self._name(player_id), f"bid {price}", error)
        closed = self.api.post(base + "/close", {}, self._token(banker))
        if closed.get("sold_to"):
            self.tally.auctions_sold += 1
            buyer = closed["sold_to"]
            balances[buyer] = balances.get(buyer, 0) - int(closed.get("price") or 0)
            balances[banker] = balances.get(banker, 0) + int(closed.get("price") or 0)
        self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)

    # --- a deal ----------------------------------------------------------------------

    def start_deal(self) -> dict[str, Any]:
        self.dealt_by = self.table.get("banker")
        for attempt in range(3):
            try:
                return dict(self.api.post(f"/v1/tables/{self.table_id}/deals", {},
                                          self.operator))
            except ApiError as error:
                if error.status not in (409, 422) or attempt == 2:
                    raise
                self._refused("the operator", "start a deal", error)
                self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)
                if self.table.get("deal_id"):  # a deal left open: finish it first
                    return dict(self.api.get(f"/v1/deals/{self.table['deal_id']}",
                                             self.operator))
                self.between_deals()
        raise AssertionError("unreachable")

    def play_deal(self, view: dict[str, Any]) -> dict[str, Any]:
        """Each player in turn reads the deal and its legal actions with its own token."""
        deal_path = f"/v1/deals/{view['id']}"
        seen_by = self.operator
        refused: set[tuple[str, int]] = set()
        failures = 0
        while view["phase"] not in OVER:
            turn = view.get("turn")
            if turn is None:  # a moment between two steps: read again
                view, seen_by = self.api.get(deal_path, self.operator), self.operator
                failures += 1
                self._stuck(failures, view)
                continue
            actor = turn["player_id"]
            token = self._token(actor)
            if seen_by != token:
                view, seen_by = self.api.get(deal_path, token), token
                if view["phase"] in OVER:
                    break
            legal = self.api.get(deal_path + "/legal-actions", token)
            items = [item for item in legal["items"] if item["player_id"] == actor
                     and (item["action"], item["hand"]) not in refused]
            if not items:
                refused.clear()
                view, seen_by = self.api.get(deal_path, token), token
                failures += 1
                self._stuck(failures, view)
                continue
            item, amount = choose_action(view, items, self.rng)
            body: dict[str, Any] = {"player_id": actor, "action": item["action"],
                                    "hand": item["hand"]}
            if amount is not None:
                body["amount"] = amount
            try:
                view, seen_by = self.api.post(deal_path + "/actions", body, token), token
            except ApiError as error:
                if error.status not in (409, 422):
                    raise
                said = f" {amount}" if amount is not None else ""
                self._refused(self._name(actor), f"{item['action']}{said}", error)
                refused.add((item["action"], item["hand"]))
                failures += 1
                self._stuck(failures, view)
                view, seen_by = self.api.get(deal_path, token), token
                continue
            self.tally.actions += 1
            refused.clear()
            failures = 0
        if view["phase"] == "void":
            self.tally.void += 1
        else:
            self.tally.settled += 1
        self.tally.deal_ids.append(view["id"])
        return view

    def _stuck(self, failures: int, view: Mapping[str, Any]) -> None:
        if failures > MAX_REFUSALS:
            raise click.ClickException(f"deal {view.get('id')} is stuck in phase "
                                       f"{view.get('phase')} after {failures} refusals")

    # --- the end ---------------------------------------------------------------------

    def summary(self, elapsed: float) -> bool:
        tally, console = self.tally, self.console
        played = tally.settled + tally.void
        rate = played / elapsed if elapsed > 0 else 0.0
        self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)
        console.print(f"[bold]table {self.table_id}[/]: {played} deals in {elapsed:.1f} s "
                      f"({rate:.2f} deals/s): {tally.settled} settled, {tally.void} void; "
                      f"{tally.actions} actions, {self.api.requests} requests, "
                      f"{self.api.retries} retries, {tally.refusals} refused",
                      highlight=False, soft_wrap=True)
        console.print(f"between deals: {tally.buy_ins} buy-ins ({tally.chips_issued} chips "
                      f"issued), {tally.kitties} kitties put up, {tally.top_ups} top-ups, "
                      f"{tally.sales} bank sales, {tally.auctions} auctions "
                      f"({tally.auctions_sold} sold)", highlight=False, soft_wrap=True)
        grid = RichTable("player", "chips", "", title="Chips per player")
        banker = self.table["banker"]
        for player_id in self.table["seats"]:
            grid.add_row(self._name(player_id), str(self._balance(player_id)),
                         "banker" if player_id == banker else "")
        console.print(grid)
        if self.table["rules"]["shoot"]:
            console.print(f"kitty: {self.table['kitty']}")
        ledger = self.api.get("/v1/balances", self.treasurer, min_position=self.api.position)
        accounts = ledger["accounts"]
        treasury = sum(a["balance"] for a in accounts if a["kind"] == "treasury")
        ok = ledger["total"] == 0
        colour = "green" if ok else "red"
        console.print(f"ledger: [bold {colour}]total {ledger['total']}[/] over {len(accounts)} "
                      f"accounts (treasury {treasury}, players' debts {ledger['debts']}) (R11.1)",
                      highlight=False, soft_wrap=True)
        return ok


class RateColumn(ProgressColumn):
    """Deals per second since the start."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        rate = task.completed / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:.2f} deals/s", style="progress.data.speed")


def run_simulation(console: Console, *, url: str, token: str, players: int, deals: int,
                   shoot: bool, seed: str | None = None, table_id: str | None = None) -> int:
    """Play `deals` deals; the exit status: 0 when the ledger's total is 0."""
    seed = seed or random.SystemRandom().randbytes(8).hex()
    api = Api(url)
    sim = Simulation(api, token, console=console, rng=random.Random(seed), players=players,
                     shoot=shoot, table_id=table_id)
    try:
        health = api.get("/v1/health", None)
    except _TRANSIENT as error:
        raise click.ClickException(f"cannot reach {url}: {error}") from None
    try:
        sim.setup()
        school = "Shoot Pontoon" if sim.shoot else "Pontoon"
        console.print(f"[bold]table {sim.table_id}[/] ({school}, {len(sim.table['seats'])} "
                      f"players, {health.get('store')} store at {url}); bots' seed {seed}",
                      highlight=False, soft_wrap=True)
        banker = sim.table["banker"]
        console.print("seats: " + ", ".join(
            sim._name(p) + (" (banker)" if p == banker else "") for p in sim.table["seats"]),
            highlight=False)
        started = time.monotonic()
        interrupted = False
        columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
                   MofNCompleteColumn(), TextColumn("deals"), RateColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("playing", total=deals)
            try:
                if sim.table.get("deal_id"):  # an existing table with a deal open: finish it
                    sim.play_deal(api.get(f"/v1/deals/{sim.table['deal_id']}", sim.operator))
                    progress.advance(task)
                while sim.tally.settled + sim.tally.void < deals:
                    sim.between_deals()
                    sim.play_deal(sim.start_deal())
                    progress.advance(task)
            except KeyboardInterrupt:
                interrupted = True
                console.print("[yellow]interrupted[/]: the summary of the deals played so far "
                              "(--table continues at this table)")
        ok = sim.summary(time.monotonic() - started)
    except ApiError as error:
        if error.status == 401 or error.status == 403:
            raise click.ClickException(f"{error} (is --token a treasurer token?)") from None
        raise click.ClickException(str(error)) from None
    except _TRANSIENT as error:
        raise click.ClickException(f"lost the service at {url}: {error}") from None
    return 1 if not ok else 130 if interrupted else 0
