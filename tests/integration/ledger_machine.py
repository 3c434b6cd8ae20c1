"""A hypothesis state machine that sends random sequences of every command to the real
Ledger and checks, after every command and every step, what must hold (ledger_checks.py).

It registers players, buys chips in and cashes them out, opens tables with random rules
(every option of R3.3 and R10) and packs, seats players and lets them leave, puts up
kitties, sells and auctions the bank, starts deals and plays them (mostly by the actions
`domain.engine.legal` lists, now and then by anything at all), and raises and resolves
disputes with corrections. Arguments are drawn loosely, so many commands are refused: a
refusal must record nothing. test_stateful_ledger.py runs it on each store.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import Any, ClassVar
from unittest import mock
from uuid import UUID, uuid4

import psycopg
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from application import Outcome
from application.store import migrate
from config import Settings
from domain.aggregates import kitty_id
from domain.engine.cards import RANK, RANKS, full_pack
from domain.engine.deal import ACTIONS
from domain.engine.legal import LegalAction, legal_actions
from domain.engine.shuffle import derived_seed
from domain.errors import PontoonError
from projections.runner import Projections
from projections.store import read_store
from tests.integration.ledger_checks import (
    OftenSnapshotted,
    check_facts,
    check_outcome,
    check_read_back,
    check_read_models,
    check_total_and_debts,
    stored_versions,
)
from tests.integration.projection_session import postgres_schema
from tests.ledger_club import Recorded
from tests.random_play import table_rules

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
PACKS = ("shuffled", "ordered", "ranked")
ANY_ACTION = (*ACTIONS, "nonsense")
PICK = st.integers(0, 2**16)
# A bot's random choices over many commands come from one drawn seed: drawing each of them
# would fill hypothesis's buffer and cut runs short.
SEED = st.integers(0, 2**32 - 1)
DECISIONS = ("upheld", "upheld", "upheld", "rejected", "other")
REASONS = ("the banker misread a card", "a card was dealt from the bottom", " ")
CHORES = ("seat", "leave", "sale", "auction", "bid", "close", "kitty", "deal")
PLAYERS_MAX, TABLES_MAX = 8, 3  # a run's own: enough to share players between tables


class Shared:
    """What the runs of one test share: where their stores are made, and a tally of the
    commands sent, accepted or refused (printed at the end, to see what was exercised).

    Each run gets a fresh, migrated store of the test's kind, and the Ledger's new ids come
    from a generator seeded the same for every run: so a run replays exactly (an ordered
    table's reshuffles are seeded by its id), which hypothesis needs to shrink a failure
    (decision 101)."""

    def __init__(self, like: Settings) -> None:
        self.like = like
        self.runs = count(1)
        self.tally: Counter[str] = Counter()

    def open(self) -> Settings:
        number = next(self.runs)
        if self.like.store == "memory":
            return self.like
        if self.like.store == "sqlite":
            settings = Settings(database_url=f"sqlite:///{self.like.sqlite_path.parent}/"
                                             f"run-{number}.sqlite3")
        else:
            base, schema = postgres_schema(self.like)
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{schema}_{number}"')
            settings = replace(self.like, database_url=f"{base}?schema={schema}_{number}")
        migrate(settings)
        return settings

    def close(self, settings: Settings) -> None:
        if settings.store == "sqlite":
            for suffix in ("", "-wal", "-shm"):
                Path(f"{settings.sqlite_path}{suffix}").unlink(missing_ok=True)
        elif settings.store == "postgres":
            base, schema = postgres_schema(settings)
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


class LedgerMachine(RuleBasedStateMachine):
    shared: ClassVar[Shared]

    tables = Bundle("tables")
    deals = Bundle("deals")
    disputes = Bundle("disputes")

    def __init__(self) -> None:
        super().__init__()
        self.settings = self.shared.open()
        self.salt, self.seeds = 0, count(1)
        self.ids = random.Random(0)
        self.new_ids = mock.patch("application.ledger.uuid4", self._new_id)
        self.new_ids.start()
        self.ledger = OftenSnapshotted(env=self.settings.ledger_env(), new_seed=self._seed)
        self.recorded = Recorded(self.ledger)
        store = read_store(self.ledger, self.settings)
        self.runner = Projections(self.ledger, store) if store is not None else None
        self.refusal: PontoonError | None = None
        self.players: list[str] = []
        self.open_disputes: list[str] = []
        self.opened = 0
        self._next_step()

    def teardown(self) -> None:
        self.new_ids.stop()
        self.ledger.close()
        self.shared.close(self.settings)

    def _seed(self) -> str:
        return derived_seed("stateful", self.salt, next(self.seeds))

    def _new_id(self) -> UUID:
        return UUID(int=self.ids.getrandbits(128), version=4)

    # --- sending a command, and checking what it left ------------------------------------

    def send(self, what: str, command: Callable[[], Outcome], *named: Any) -> Outcome | None:
        """Send one command and check at once what must hold after each: a refusal
        recorded nothing (the log's head and the version of each aggregate `named` are
        where they were); an acceptance answered its last event's position and left the
        chips whole. The rest is checked after the step (`whole`)."""
        ids = _uuids(named)
        recorded = self.recorded
        since, moves = recorded.position, len(recorded.moves)
        self.refusal = None
        try:
            outcome = command()
        except PontoonError as refusal:
            self.refusal = refusal
            self.shared.tally[f"{what} refused"] += 1
            assert recorded.update().position == since, f"the refused {what} recorded events"
            assert stored_versions(self.ledger, ids) == {
                i: recorded.versions.get(i) for i in ids}, f"the refused {what} moved one"
            self.touched.update(ids)
            return None
        self.shared.tally[what] += 1
        check_outcome(outcome, recorded.update().position)
        check_total_and_debts(recorded, moves)
        self.touched.update(outcome.saved)
        self.kept.update(outcome.saved)
        return outcome

    @invariant()
    def whole(self) -> None:
        """After every step: each aggregate the step saved or named, read back from the
        store with snapshots and without, equals the one the process keeps; each table and
        deal it changed replays to its state (and each deal verifies); the read models,
        caught up, hold what the log says of every account it moved."""
        recorded = self.recorded
        for aggregate_id in self.touched:
            if recorded.versions.get(aggregate_id) is not None:
                check_read_back(self.ledger, aggregate_id, self.kept.get(aggregate_id))
        since, moves, facts = self.step
        streams = {stream for stream, _ in recorded.facts[facts:]}
        check_facts(self.ledger, recorded, streams)
        if self.runner is not None:
            accounts = {name for name, _ in recorded.moves[moves:]}
            accounts |= {f"escrow:{s}" for s in streams if s in recorded.deals}
            check_read_models(self.runner, self.runner.store, recorded, sorted(accounts), since)
        self._next_step()

    def _next_step(self) -> None:
        recorded = self.recorded
        self.step = (recorded.position, len(recorded.moves), len(recorded.facts))
        self.touched: set[UUID] = set()
        self.kept: dict[UUID, Any] = {}

    def chips(self, player: str) -> int:
        return self.ledger.player_account(player).balance

    def player(self, who: int) -> str:
        return self.players[who % len(self.players)]

    # --- players and chips ----------------------------------------------------------------

    @initialize(target=tables, names=st.lists(st.sampled_from(NAMES), min_size=2, max_size=4),
                rules=table_rules(), pack=st.sampled_from(PACKS), order=SEED)
    def open_first_table(self, names: list[str], rules: dict[str, Any], pack: str,
                         order: int) -> Any:
        """Every run starts with players at a table, so that every rule may run at once."""
        for name in names:
            self.register(name)
        table = self.open_table(len(names), None, rules, pack, order)
        assert self.players[0] == str(UUID(int=random.Random(0).getrandbits(128), version=4)), \
            "the Ledger no longer takes its new ids from application.ledger.uuid4: a run " \
            "would not replay; patch where it takes them now"
        return table

    @precondition(lambda self: len(self.players) < PLAYERS_MAX)
    @rule(name=st.sampled_from(NAMES))
    def register(self, name: str) -> None:
        outcome = self.send("register_player", lambda: self.ledger.register_player(name))
        assert outcome is not None, f"registering {name} was refused: {self.refusal}"
        self.players.append(str(outcome.result["id"]))

    @rule(who=PICK, pick=PICK, out=st.booleans())
    def move_chips(self, who: int, pick: int, out: bool) -> None:
        """A buy-in, now and then of no chip or minus one (R11.1); or a cash-out, now and
        then of a chip more than the player holds (R11.2) or of none."""
        player = self.player(who)
        if out:
            amount = (pick + 1) % (max(self.chips(player), 0) + 2)
            self.send("cash_out", lambda: self.ledger.cash_out(player, amount), player)
        else:
            self.buy(player, 1 + (pick + 7) % 250 if pick % 20 != 19 else -(pick % 2))

    def buy(self, player: str, amount: int) -> None:
        self.send("buy_in", lambda: self.ledger.buy_in(player, amount), player)

    # --- tables -----------------------------------------------------------------------------

    @precondition(lambda self: self.opened < TABLES_MAX)
    @rule(target=tables, size=st.integers(2, 6), banker=st.none() | PICK,
          rules=table_rules(), pack=st.sampled_from(PACKS), order=SEED)
    def open_table(self, size: int, banker: int | None, rules: dict[str, Any],
                   pack: str, order: int) -> Any:
        """`size` players, or now and then one, or one twice (R3.1)."""
        self.opened += 1
        self.salt = order  # the shuffles' seeds from here on
        seats = random.Random(order).sample(self.players, min(size, len(self.players)))
        if order % 16 == 1:
            seats = seats[:1] if order % 32 == 1 else [*seats, seats[0]]
        named = None if banker is None else seats[banker % len(seats)]
        cards = _pack(pack, rules["packs"], order)
        outcome = self.send("open_table", lambda: self.ledger.open_table(
            name=f"table {order}", seats=seats, banker=named, rules=rules, pack=cards), *seats)
        return str(outcome.result["table_id"]) if outcome else multiple()

    @rule(target=deals, table=tables, chore=st.sampled_from(CHORES), who=PICK, seed=SEED)
    def table_chore(self, table: str, chore: str, who: int, seed: int) -> Any:
        """One command about a table, by its banker or (now and then) by another player,
        with amounts drawn loosely: a seat, a leave, a kitty, a sale or an auction of the
        bank, a bid, or a deal started as the table stands."""
        return self.chore(table, chore, self.player(who), random.Random(seed))

    def chore(self, table: str, chore: str, player: str, rng: random.Random) -> Any:
        engine = self.ledger.table(table).engine
        actor = engine.banker if rng.random() < 0.8 else player
        seated = engine.seats[rng.randrange(len(engine.seats))] if engine.seats else player
        if chore == "seat":  # mostly someone not seated here
            away = [p for p in self.players if p not in engine.seats]
            player = rng.choice(away) if away and rng.random() < 0.8 else player
            after = rng.choice([None, *engine.seats])
            self.send("seat_player", lambda: self.ledger.seat_player(table, player, after),
                      table, player)
        elif chore == "leave":
            self.send("remove_player", lambda: self.ledger.remove_player(table, seated), table)
        elif chore == "kitty":
            self.put_up_kitty(table, rng.randint(-1, 220), actor)
        elif chore == "sale":
            buyer = rng.choice([p for p in engine.seats if p != engine.banker] or [player])
            if self.chips(buyer) < 1 and rng.random() < 0.8:
                self.buy(buyer, rng.randint(1, 60))  # the buyer buys chips first
            held = max(self.chips(buyer), 0)
            price = rng.randint(1, held) if held and rng.random() < 0.8 else \
                rng.randint(-1, held + 1)
            self.send("sell_bank", lambda: self.ledger.sell_bank(table, buyer, price), table,
                      buyer, engine.banker, kitty_id(table))
        elif chore == "auction":
            self.open_auction(table, actor)
        elif chore == "bid":
            self.bid(table, seated, rng.randint(-1, 60))
        elif chore == "close":
            self.close_auction(table, actor)
        else:
            return self.start_deal(table)
        return multiple()

    def put_up_kitty(self, table: str, amount: int, player: str) -> None:
        self.send("put_up_kitty", lambda: self.ledger.put_up_kitty(table, player, amount),
                  table, player, kitty_id(table))

    def open_auction(self, table: str, player: str) -> None:
        self.send("open_auction", lambda: self.ledger.open_auction(table, player), table)

    def bid(self, table: str, player: str, price: int) -> None:
        self.send("bid", lambda: self.ledger.bid(table, player, price), table, player)

    def close_auction(self, table: str, player: str) -> None:
        engine = self.ledger.table(table).engine
        bidders = [bidder for bidder, _ in engine.auction or []]
        self.send("close_auction", lambda: self.ledger.close_auction(table, player), table,
                  engine.banker, kitty_id(table), *bidders)

    # --- deals ------------------------------------------------------------------------------

    def start_deal(self, table: str) -> Any:
        seats = self.ledger.table(table).engine.seats
        outcome = self.send("start_deal", lambda: self.ledger.start_deal(table), table,
                            *seats)
        return str(outcome.result["deal_id"]) if outcome else multiple()

    @rule(target=deals, table=tables, seed=SEED, actions=st.integers(0, 30))
    def deal_a_round(self, table: str, seed: int, actions: int) -> Any:
        """The deal open at the table played to its end, what the players, the treasurer
        and the banker do between deals, then a deal played by up to `actions` legal
        actions."""
        rng = random.Random(seed)
        open_deal = self.ledger.table(table).engine.deal_id
        if open_deal is not None:
            self.play(open_deal, 1000, rng)
        self.between_deals(table, rng)
        deal = self.start_deal(table)
        if isinstance(deal, str):
            self.play(deal, actions, rng)
        return deal

    def between_deals(self, table: str, rng: random.Random) -> None:
        """Now and then a table chore (a seat, a leave, a sale of the bank, an auction's
        command whether one is open or not); an auction of the bank now and then when the
        kitty ran out (R9.10); chips for whoever is short of the minimum stake (R3.5); a
        kitty if one is needed (R9.1, R9.11)."""
        engine = self.ledger.table(table).engine
        if engine.deal_id is not None:
            return
        if rng.random() < 0.3:
            self.chore(table, rng.choice(CHORES[:-2]), rng.choice(self.players), rng)
            engine = self.ledger.table(table).engine
        if engine.kitty_emptied and not engine.auction_failed and engine.auction is None \
                and rng.random() < 0.7:
            self.open_auction(table, engine.banker)
            for bidder in engine.seats:
                if bidder != engine.banker and rng.random() < 0.6:
                    self.bid(table, bidder, rng.randint(1, 40))
        if self.ledger.table(table).engine.auction is not None:
            self.close_auction(table, self.ledger.table(table).engine.banker)
        engine = self.ledger.table(table).engine
        rules, banker = engine.rules, engine.banker
        for player in engine.seats:
            if player != banker and self.chips(player) < rules.min_stake:
                self.buy(player, rules.min_stake + rng.randint(0, 60))
        if engine.kitty_needed:  # mostly a small one, to see it run out (R9.10)
            amount = rng.randint(rules.kitty_min, min(rules.kitty_min + 3, rules.kitty_max)
                                 if rng.random() < 0.7 else rules.kitty_max)
            if self.chips(banker) < amount:
                self.buy(banker, amount)
            self.put_up_kitty(table, amount, banker)

    @rule(deal=deals, seed=SEED, actions=st.integers(1, 20))
    def play_legally(self, deal: str, seed: int, actions: int) -> None:
        self.play(deal, actions, random.Random(seed))

    def play(self, deal: str, actions: int, rng: random.Random) -> None:
        """Up to `actions` actions, each one of those `legal_actions` lists, with an amount
        in its range: every one is accepted."""
        for _ in range(actions):
            engine = self.ledger.deal(deal).engine
            if engine.is_over:
                return
            assert engine.turn is not None
            player = engine.turn[0]
            options = legal_actions(engine, {player: self.chips(player)})
            assert options, f"deal {deal} is not over but offers no action"
            choice = rng.choice(options)
            amount = _amount(choice, rng)
            if choice.action in ("pass", "shoot") and rng.random() < 0.7:  # a bold shooter
                choice = options[-1]  # shoot, the kitty's room at most (R9.2)
                amount = choice.amount_max
            done = self.send("act", lambda c=choice, a=amount: self.ledger.act(
                deal, c.player, c.action, hand=c.hand, amount=a), deal, choice.player)
            assert done is not None, \
                f"the legal action {choice} with amount {amount} was refused: {self.refusal}"

    @rule(deal=deals, who=PICK, action=st.sampled_from(ANY_ACTION),
          hand=st.none() | st.integers(-1, 4), amount=st.none() | st.integers(-1, 40))
    def act_anyhow(self, deal: str, who: int, action: str, hand: int | None,
                   amount: int | None) -> None:
        """Any player, any action, any hand, any amount: mostly refused."""
        player = self.player(who)
        table = self.ledger.deal(deal).engine.table_id
        self.send("act", lambda: self.ledger.act(deal, player, action, hand=hand,
                                                 amount=amount), deal, player, table)

    # --- disputes ---------------------------------------------------------------------------

    @rule(target=disputes, deal=deals, who=PICK,
          reason=st.sampled_from(REASONS))
    def raise_dispute(self, deal: str, who: int, reason: str) -> Any:
        by = self.player(who)
        outcome = self.send("raise_dispute", lambda: self.ledger.raise_dispute(
            deal, reason, raised_by=f"player:{by}"), deal)
        if outcome is None:
            return multiple()
        self.open_disputes.append(str(outcome.result["id"]))
        return self.open_disputes[-1]

    @rule(dispute=disputes, decision=st.sampled_from(DECISIONS),
          corrections=st.integers(0, 3), seed=SEED, allow_debt=st.booleans())
    def resolve_dispute(self, dispute: str, decision: str, corrections: int, seed: int,
                        allow_debt: bool) -> None:
        """Mostly a dispute still open. Corrections between the deal's own accounts and the
        treasury (R11.4), a few chips each; now and then one it may not make: to or from
        its escrow or a stranger, between one account and itself, of no chip, or of more
        than the deal moved."""
        rng = random.Random(seed)
        if dispute not in self.open_disputes and self.open_disputes and rng.random() < 0.8:
            dispute = rng.choice(self.open_disputes)
        deal = self.ledger.deal(self.ledger.dispute(dispute).deal_id).engine
        players = [deal.banker, *deal.order]
        names = [*(f"player:{p}" for p in players), f"kitty:{deal.table_id}", "treasury"]
        wrong = [f"escrow:{deal.deal_id}", f"player:{uuid4()}"]
        moves = []
        for _ in range(corrections if decision != "rejected" or rng.random() < 0.2 else 0):
            source, target = rng.sample(names, 2)
            amount = rng.randint(1, 5)
            if rng.random() < 0.15:
                source, target, amount = rng.choice([
                    (rng.choice(wrong), target, amount), (source, source, amount),
                    (source, target, 0), (source, target, 10**6)])
            moves.append({"from_account": source, "to_account": target, "amount": amount})
        done = self.send("resolve_dispute", lambda: self.ledger.resolve_dispute(
            dispute, decision=decision, note="checked against the audit", corrections=moves,
            resolved_by="treasurer", allow_debt=allow_debt), dispute, *players,
            deal.table_id, kitty_id(deal.table_id))
        if done is not None:
            self.open_disputes.remove(dispute)
            self.shared.tally["corrections"] += len(moves)


def _uuids(values: Iterable[Any]) -> list[UUID]:
    out = []
    for value in values:
        try:
            out.append(value if isinstance(value, UUID) else UUID(str(value)))
        except ValueError:
            continue
    return list(dict.fromkeys(out))


def _pack(kind: str, packs: int, order: int) -> dict[str, Any]:
    """A shuffled pack, or an ordered one: random, or by rank from a random rank up (pairs
    to split, burns, three 7s)."""
    if kind == "shuffled":
        return {"mode": "shuffled"}
    cards = full_pack(packs)
    rng = random.Random(order)
    rng.shuffle(cards)
    if kind == "ranked":
        cards.sort(key=lambda card: RANKS.index(RANK[card]))
        cut = rng.randrange(len(RANKS)) * 4 * packs
        cards = cards[cut:] + cards[:cut]
    return {"mode": "ordered", "cards": cards}


def _amount(choice: LegalAction, rng: random.Random) -> int | None:
    """An amount in the offered range (a split's shoot bet is optional)."""
    if choice.amount_min is None or choice.amount_max is None:
        return None
    if choice.action == "split" and rng.random() < 0.5:
        return None
    return rng.randint(choice.amount_min, choice.amount_max)
