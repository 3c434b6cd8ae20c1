"""What the clients of `benchmarks/service.py` do: play Shoot Pontoon, or append events.

`PontoonTable` is one client's table at the service. Set-up (not measured): the treasurer
registers six players, buys each 100,000 chips and opens a Shoot Pontoon table (stakes 1–10,
kitty 10–1,000,000, other rules at their defaults; the banker is cut for). Then one `play` is
one complete deal, every request a POST:

- between deals the treasurer, acting for the banker as staff may, tops the kitty up by 20
  (R9.9; this also puts up a new kitty after a change of bank or an empty kitty, R9.1,
  R9.10), and every fifth deal buys one player 100 more chips (a rebuy, R11.1);
- the treasurer starts the deal; then each seat acts **with its own player token**, in the
  order the service names: every answer is the deal view, whose `turn` says who acts next.

A player token shows only its holder's face-down cards, and only in answers to that holder's
own requests. So a seat decides on the cards it was last shown: a player stakes 1–10 (its
first card is shown in the answer), shoots a little now and then in the first round (within
the kitty less the shoot bets outstanding, R9.2), and on its first turn in play, when its
second card has not been shown to it yet, buys at the least price if its first card is 6 or
lower and twists otherwise (both always allowed there); from then on it plays on the cards
its own answers show, as `domain.engine.strategy.play_hand` does (stick on 17 or more,
buy on a hard 11 or less, a fourth-card shoot now and then, twist otherwise). The banker,
who has seen none of its cards when its turn comes, draws once and then draws below 17.
No request reads state (`GET`), neither the deal nor its legal actions; a refused command
(409/422) would be followed by a read of the deal and counted, and should never happen.

`EventStream` is one client of the baseline: the same `Http` client, no set-up, and one
`play` is 25 POSTs of small JSON events on a new stream, versions 1 to 25, each body about
the size of a deal action's, with the same headers (a bearer token of the same length).
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections import Counter
from typing import Any

from benchmarks.service_client import Failed, Http, Refused
from domain.engine.cards import POINTS
from domain.engine.hands import value
from domain.engine.strategy import play_hand, shooting_round_bet

SEATS = 6
START_CHIPS = 100_000
REBUY, REBUY_EVERY = 100, 5  # chips, deals
KITTY_TOP_UP = 20
RULES = {"min_stake": 1, "max_stake": 10, "shoot": True, "kitty_min": 10,
         "kitty_max": 1_000_000}
STICK_MINIMUM = 15  # the table default (R10.2)
BLIND_BUY_UP_TO = 6  # a first card this low or lower: buy the third card unseen
OVER = ("settled", "void")
MAX_REFUSALS = 5  # in one deal, before the client gives up: the client would be wrong
MAX_STEPS = 200  # requests in one deal, a bound on a client gone wrong
EVENTS_PER_RUN = 25  # about the number of POSTs a six-seat deal takes


class PontoonTable:
    """One client: a Shoot Pontoon table whose seats act with their own tokens."""

    def __init__(self, http: Http, treasurer: str, index: int, seed: int) -> None:
        self.http, self.treasurer, self.index = http, treasurer, index
        self.rng = random.Random(seed)
        self.tokens: dict[str, str] = {}  # player id -> its own token
        self.seats: list[str] = []
        self.table_id = ""
        self.deals = 0
        self.mix: Counter[str] = Counter()  # POSTs of play by kind, warm-up included

    def setup(self) -> None:
        for seat in range(SEATS):
            player = self.http.post("/v1/players", {"name": f"Bench {self.index}.{seat}"},
                                    self.treasurer)
            self.tokens[player["id"]] = player["token"]
            self.seats.append(player["id"])
            self.http.post(f"/v1/players/{player['id']}/buy-ins", {"amount": START_CHIPS},
                           self.treasurer)
        table = self.http.post("/v1/tables", {
            "name": f"Bench table {self.index}", "seats": self.seats, "rules": RULES,
            "pack": {"mode": "shuffled"}}, self.treasurer)
        self.table_id = table["id"]

    def play(self) -> None:
        self.deals += 1
        if self.deals % REBUY_EVERY == 0:
            player = self.seats[self.deals // REBUY_EVERY % SEATS]
            self.http.post(f"/v1/players/{player}/buy-ins", {"amount": REBUY}, self.treasurer)
            self.mix["buy-in"] += 1
        self.http.post(f"/v1/tables/{self.table_id}/kitty", {"amount": KITTY_TOP_UP},
                       self.treasurer)
        self.mix["kitty"] += 1
        view = self.http.post(f"/v1/tables/{self.table_id}/deals", {}, self.treasurer,
                              game=True)
        self.mix["deal start"] += 1
        Deal(self, view).play()


class Deal:
    """One deal in play: the view last answered, and to whom, and what each seat was shown."""

    def __init__(self, table: PontoonTable, view: dict[str, Any]) -> None:
        self.table, self.http, self.rng = table, table.http, table.rng
        self.view = view
        self.path = f"/v1/deals/{view['id']}"
        self.seen_by: str | None = None  # whose token the view was answered to
        self.first_card: dict[str, str] = {}  # each player's first card, shown when staking
        self.shot: set[tuple[str, int]] = set()  # hands that used the fourth-card shoot

    def play(self) -> None:
        refusals = 0
        for _ in range(MAX_STEPS):
            if self.view["phase"] in OVER:
                return
            turn = self.view["turn"]
            if turn is None:  # not expected: read the deal to see what it waits for
                self.view, self.seen_by = self.http.get(self.path, self.table.treasurer), None
                continue
            actor, hand = str(turn["player_id"]), int(turn["hand"])
            token = self.table.tokens[actor]
            action, amount = self.choose(actor, hand)
            body: dict[str, Any] = {"player_id": actor, "action": action, "hand": hand}
            if amount is not None:
                body["amount"] = amount
            phase = self.view["phase"]
            try:
                self.view = self.http.post(self.path + "/actions", body, token, game=True)
            except Refused:
                refusals += 1
                if refusals > MAX_REFUSALS:
                    raise
                self.view = self.http.get(self.path, token)
            self.seen_by = actor
            self.table.mix[action] += 1
            if action == "stake":
                cards = self._hand(actor, 0)["cards"]
                if cards and cards[0] is not None:
                    self.first_card[actor] = cards[0]
            elif action == "shoot" and phase == "playing":
                self.shot.add((actor, hand))
        raise Failed(f"deal {self.view['id']} did not end in {MAX_STEPS} requests")

    def choose(self, actor: str, hand: int) -> tuple[str, int | None]:
        phase = self.view["phase"]
        if phase == "staking":
            return "stake", self.rng.randint(RULES["min_stake"], RULES["max_stake"])
        if phase == "doubling":  # not offered at these tables (banker_may_double is off)
            return "decline", None
        if phase == "shooting":
            bet = shooting_round_bet(self._shoot_room(), self.rng)
            return ("shoot", bet) if bet is not None else ("pass", None)
        if phase == "banker":
            cards = self.view["banker"]["cards"]
            if self.seen_by == actor and None not in cards:
                return ("draw" if value(cards) < 17 else "stay"), None
            return "draw", None  # none of its cards shown to it yet
        return self._play_hand(actor, hand)

    def _play_hand(self, actor: str, hand: int) -> tuple[str, int | None]:
        seen = self._hand(actor, hand)
        cards = seen["cards"]
        initial = seen["stake"] - sum(seen["bought"])
        if self.seen_by != actor or None in cards:  # the second card not shown to it yet
            first = self.first_card.get(actor)
            if (len(cards) == 2 and not seen["twisted"] and first is not None
                    and POINTS[first] <= BLIND_BUY_UP_TO):
                return "buy", initial
            return "twist", None
        offered: dict[str, tuple[int | None, int | None]] = {"twist": (None, None)}
        if not seen["twisted"]:  # R4.3
            high = 2 * initial if len(cards) == 2 else (
                seen["bought"][-1] if seen["bought"] else initial)
            offered["buy"] = (initial, high)
        shot_now = (actor, hand) in self.shot
        if value(cards) >= STICK_MINIMUM and not (shot_now and len(cards) == 3):
            offered["stick"] = (None, None)
        room = self._shoot_room()
        if len(cards) == 3 and not shot_now and room >= 1:  # R9.5
            offered["shoot"] = (1, room)
        choice = play_hand(cards, offered, self.rng)
        if choice is not None:
            return choice
        return ("stick", None) if "stick" in offered else ("twist", None)

    def _hand(self, player: str, hand: int) -> dict[str, Any]:
        for seat in self.view["players"]:
            if seat["player_id"] == player:
                return dict(seat["hands"][hand])
        raise Failed(f"player {player} holds no hand in deal {self.view['id']}")

    def _shoot_room(self) -> int:
        """R9.2: the kitty less the shoot bets of hands still standing (R9.7)."""
        outstanding = sum(h["shoot_bet"] for seat in self.view["players"]
                          for h in seat["hands"] if h["status"] != "bust")
        return int(self.view["kitty"]) - int(outstanding)


class EventStream:
    """One client of the baseline: runs of small JSON events, one POST each."""

    def __init__(self, http: Http, index: int, seed: int) -> None:
        self.http, self.index = http, index
        self.rng = random.Random(seed)
        self.token = "pt_" + secrets.token_urlsafe(32)  # as long as the service's tokens

    def setup(self) -> None:
        pass

    def play(self) -> None:
        stream = str(uuid.uuid4())
        for version in range(1, EVENTS_PER_RUN + 1):
            action = self.rng.choice(("stake", "shoot", "twist", "stick", "draw"))
            self.http.post("/events", {"stream": stream, "version": version, "topic": action,
                                       "state": {"hand": 0, "amount": self.rng.randint(1, 10)}},
                           self.token, game=True)
