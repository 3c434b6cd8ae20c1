"""The Ledger as the rule tests, the scenario runner and the property tests drive it.

`LedgerClub` is `application.Ledger` itself, on the in-memory store unless it is given one,
with what a test reads back: the engine's `Table` and `Deal` of an aggregate, a player's
chips, the facts and postings recorded, every account's balance. It decides nothing and
moves no chip: every command is a Ledger command, and every figure is read from the
Ledger's aggregates or from its log (`Recorded`), never worked out here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any
from uuid import UUID

from application import Ledger
from config import Settings
from domain.aggregates import (
    TREASURY_ID,
    Account,
    DealAggregate,
    FactAggregate,
    TableAggregate,
    posting_id,
)
from domain.engine import facts as f
from domain.engine.cards import full_pack
from domain.engine.deal import Deal
from domain.engine.legal import LegalAction, legal_actions
from domain.engine.postings import TREASURY, Posting, escrow_account
from domain.engine.shuffle import derived_seed
from domain.engine.table import Table

MEMORY = Settings(database_url="memory://")  # the library's in-memory (POPO) recorder
# The events that carry an engine fact: a deal's and a table's.
FACT_EVENTS = (DealAggregate.DealStarted, TableAggregate.TableOpened, FactAggregate.Event)


def counter_seeds(label: str) -> Callable[[], str]:
    """Repeatable 'secret' seeds for the Ledger's shuffles and cuts: label:1, label:2, ..."""
    numbers: Iterator[int] = count(1)
    return lambda: derived_seed(label, next(numbers))


def memory_ledger(new_seed: Callable[[], str] | None = None) -> Ledger:
    """The real Ledger on the in-memory store (decision 100)."""
    return Ledger(env=MEMORY.ledger_env(), new_seed=new_seed or counter_seeds("club-seed"))


@dataclass
class Entry:
    """One entry of an account's statement, as the log records it."""

    position: int
    posting_id: str
    change: int
    balance_after: int
    posting: Posting


class Recorded:
    """Everything the Ledger's log holds, read in order and kept up to date as it grows."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.position = 0
        self.facts: list[tuple[str, f.Fact]] = []  # (stream, fact), the order recorded
        self.streams: dict[str, list[f.Fact]] = {}  # each table's and deal's own facts
        self.postings: list[Posting] = []
        self.posting_ids: list[str] = []
        self.accounts: dict[UUID, str] = {}  # Account id -> posting name
        self.balances: dict[str, int] = {}  # by posting name
        self.entries: dict[str, list[Entry]] = {}  # by posting name
        self.moves: list[tuple[str, Entry]] = []  # every entry with its account, in order
        self.tables: list[str] = []
        self.deals: list[str] = []
        self.versions: dict[UUID, int] = {}  # every aggregate's last version
        self._seen: set[str] = set()

    def update(self) -> Recorded:
        while page := self.ledger.recorder.select_notifications(start=self.position + 1,
                                                                limit=500):
            for note in page:
                self._read(note.id, self.ledger.mapper.to_domain_event(note))
            self.position = page[-1].id
        return self

    def _read(self, position: int, event: Any) -> None:
        self.versions[event.originator_id] = event.originator_version
        if isinstance(event, FACT_EVENTS):
            self._fact(event)
        elif isinstance(event, Account.Opened):
            self.accounts[event.originator_id] = f"{event.kind}:{event.owner}"
            self.balances.setdefault(self.accounts[event.originator_id], 0)
        elif isinstance(event, Account.Moved) and event.originator_id != TREASURY_ID:
            self._entry(position, event)

    def _fact(self, event: Any) -> None:
        stream = str(event.originator_id)
        fact = f.Fact.from_dict(type(event).__name__, event.fact)
        if isinstance(fact, f.TableOpened):
            self.tables.append(stream)
        elif isinstance(fact, f.DealStarted):
            self.deals.append(stream)
            self.balances[escrow_account(stream)] = 0
        self.facts.append((stream, fact))
        self.streams.setdefault(stream, []).append(fact)
        for index, posting in enumerate(fact.carried_postings()):
            self._posting(posting_id(event.originator_id, event.originator_version, index),
                          posting)
            for name, change in ((posting.from_account, -posting.amount),
                                 (posting.to_account, posting.amount)):
                if name.startswith("escrow:"):  # the escrow keeps no entries: its deal does
                    self.balances[name] += change

    def _entry(self, position: int, event: Any) -> None:
        posting = Posting(event.from_account, event.to_account, event.amount, event.rule,
                          event.reason, event.hand)
        self._posting(event.posting_id, posting)
        name = self.accounts[event.originator_id]
        change = event.amount if isinstance(event, Account.Credited) else -event.amount
        self.balances[name] = event.balance_after
        self._move(name, Entry(position, event.posting_id, change, event.balance_after, posting))
        if TREASURY in (event.from_account, event.to_account):  # its side is this entry
            held = self.balances.get(TREASURY, 0) - change
            self.balances[TREASURY] = held
            self._move(TREASURY, Entry(position, event.posting_id, -change, held, posting))

    def _move(self, name: str, entry: Entry) -> None:
        self.entries.setdefault(name, []).append(entry)
        self.moves.append((name, entry))

    def _posting(self, key: str, posting: Posting) -> None:
        if key not in self._seen:
            self._seen.add(key)
            self.posting_ids.append(key)
            self.postings.append(posting)


class LedgerClub:
    """Players, chips, tables and deals on one Ledger; ids are the Ledger's."""

    def __init__(self, ledger: Ledger | None = None, *,
                 new_seed: Callable[[], str] | None = None) -> None:
        self.ledger = ledger or memory_ledger(new_seed)
        self._recorded = Recorded(self.ledger)

    # --- commands: each is one Ledger command -------------------------------------------

    def register_player(self, name: str) -> str:
        return str(self.ledger.register_player(name).result["id"])

    def buy_in(self, player_id: str, amount: int) -> Posting:
        return self._posted(self.ledger.buy_in(player_id, amount).result["posting_id"])

    def cash_out(self, player_id: str, amount: int) -> Posting:
        return self._posted(self.ledger.cash_out(player_id, amount).result["posting_id"])

    def open_table(self, name: str, seats: Sequence[str], *, banker: str | None = None,
                   rules: Mapping[str, Any] | None = None,
                   pack: Mapping[str, Any] | None = None) -> str:
        # Open tables have unique names (decision 143): rule tests open several "t".
        self._tables = getattr(self, "_tables", 0) + 1
        return str(self.ledger.open_table(name=f"{name} {self._tables}", seats=seats,
                                          banker=banker, rules=rules, pack=pack
                                          ).result["table_id"])

    def seat(self, table_id: str, player_id: str, after: str | None = None) -> None:
        self.ledger.seat_player(table_id, player_id, after)

    def leave(self, table_id: str, player_id: str) -> None:
        self.ledger.remove_player(table_id, player_id)

    def put_up_kitty(self, table_id: str, player_id: str, amount: int) -> None:
        self.ledger.put_up_kitty(table_id, player_id, amount)

    def sell_bank(self, table_id: str, buyer: str, price: int) -> None:
        self.ledger.sell_bank(table_id, buyer, price)

    def open_auction(self, table_id: str, player_id: str) -> None:
        self.ledger.open_auction(table_id, player_id)

    def bid(self, table_id: str, player_id: str, price: int) -> None:
        self.ledger.bid(table_id, player_id, price)

    def close_auction(self, table_id: str, player_id: str) -> tuple[str | None, int | None]:
        result = self.ledger.close_auction(table_id, player_id).result
        return result["sold_to"], result["price"]

    def start_deal(self, table_id: str, cards: Sequence[str] | None = None) -> str:
        return str(self.ledger.start_deal(table_id, cards=cards).result["deal_id"])

    def act(self, deal_id: str, player_id: str, action: str, *, hand: int | None = None,
            amount: int | None = None, cards: Sequence[str] | None = None) -> list[f.Fact]:
        """The action's outcome: the facts it recorded in the deal, read from the log."""
        before = len(self.log)
        self.ledger.act(deal_id, player_id, action, hand=hand, amount=amount, cards=cards)
        return [fact for stream, fact in self.log[before:] if stream == deal_id]

    # --- reads ----------------------------------------------------------------------------

    def chips(self, player_id: str) -> int:
        return self.ledger.player_account(player_id).balance

    def chips_of(self, players: Iterable[str]) -> dict[str, int]:
        return {p: self.chips(p) for p in players}

    def table(self, table_id: str) -> Table:
        return self.ledger.table(table_id).engine

    def deal(self, deal_id: str) -> Deal:
        return self.ledger.deal(deal_id).engine

    def legal_actions(self, deal_id: str) -> list[LegalAction]:
        deal = self.deal(deal_id)
        return legal_actions(deal, self.chips_of([deal.turn[0]]) if deal.turn else None)

    @property
    def head(self) -> int:
        """The position of the last event recorded, of any aggregate (0 for none): a
        refused command leaves it where it was."""
        return int(self.ledger.recorder.max_notification_id() or 0)

    @property
    def recorded(self) -> Recorded:
        return self._recorded.update()

    @property
    def log(self) -> list[tuple[str, f.Fact]]:
        """Every fact of every table and deal, with its stream, in the order recorded."""
        return self.recorded.facts

    @property
    def postings(self) -> list[Posting]:
        """Every posting once, in the order recorded: those facts carry, then those only
        accounts record (buy-ins, cash-outs, corrections)."""
        return self.recorded.postings

    @property
    def balances(self) -> dict[str, int]:
        """Every account by posting name: players and kitties as their Account aggregates
        recorded them, each deal's escrow as its postings leave it, and the treasury as
        its counterparts' entries leave it (it keeps none of its own)."""
        return dict(self.recorded.balances)

    def total(self) -> int:
        """R11.1: zero, unless an aggregate's balance disagrees with the postings."""
        return sum(self.recorded.balances.values())

    @property
    def tables(self) -> dict[str, Table]:
        return {t: self.table(t) for t in self.recorded.tables}

    @property
    def deals(self) -> dict[str, Deal]:
        return {d: self.deal(d) for d in self.recorded.deals}

    def fork(self) -> LedgerClub:
        """Another in-memory Ledger holding a copy of every event recorded so far: a
        command tried there leaves this one as it was."""
        twin = LedgerClub(memory_ledger(self.ledger.new_seed))
        notes = self.ledger.recorder.select_notifications(start=1, limit=10**9)
        twin.ledger.recorder.insert_events(list(notes))
        return twin

    def _posted(self, key: str) -> Posting:
        recorded = self.recorded
        return recorded.postings[recorded.posting_ids.index(key)]


# --- rule-test builders ------------------------------------------------------------------

def stacked_pack(top: Sequence[str], packs: int = 1) -> list[str]:
    """A complete ordered pack (R1.7) with `top` dealt first, the rest in new-pack order."""
    rest = Counter(full_pack(packs))
    rest.subtract(top)
    assert all(n >= 0 for n in rest.values()), f"{top} holds more cards than {packs} pack(s)"
    pack = list(top)
    for card in full_pack(packs):
        if rest[card] > 0:
            pack.append(card)
            rest[card] -= 1
    return pack


@dataclass
class Game:
    """A club with one table; players are referred to by name. `deal` and `table` are read
    from the Ledger each time: hold on to one and it is the state of that moment."""

    club: LedgerClub
    ids: dict[str, str]
    table_id: str
    deal_id: str | None = None
    names: dict[str, str] = field(default_factory=dict)

    def start(self) -> str:
        self.deal_id = self.club.start_deal(self.table_id)
        return self.deal_id

    def act(self, name: str, action: str, **kwargs: Any) -> list[f.Fact]:
        assert self.deal_id is not None, "start a deal first"
        return self.club.act(self.deal_id, self.ids[name], action, **kwargs)

    @property
    def deal(self) -> Deal:
        assert self.deal_id is not None
        return self.club.deal(self.deal_id)

    @property
    def table(self) -> Table:
        return self.club.table(self.table_id)

    def chips(self, name: str) -> int:
        return self.club.chips(self.ids[name])

    def hand(self, name: str, index: int = 0) -> Any:
        return self.deal.hands[self.ids[name]][index]


def make_game(players: Sequence[str] = ("Banker", "Pat"), *, top: Sequence[str] = (),
              rules: dict[str, Any] | None = None, chips: int | dict[str, int] = 100,
              banker: str | None = "Banker", pack: dict[str, Any] | None = None) -> Game:
    """Seats `players` clockwise; the first card dealt is `top[0]` (to the banker's left)."""
    club = LedgerClub()
    ids = {name: club.register_player(name) for name in players}
    for name in players:
        amount = chips if isinstance(chips, int) else chips.get(name, 0)
        if amount:
            club.buy_in(ids[name], amount)
    packs = (rules or {}).get("packs", 1)
    table_id = club.open_table(
        "test", [ids[n] for n in players], banker=ids[banker] if banker else None, rules=rules,
        pack=pack or {"mode": "ordered", "cards": stacked_pack(top, packs)})
    game = Game(club, ids, table_id)
    game.names = {v: k for k, v in ids.items()}
    return game
