"""What the integration tests read back from a Ledger: stored notifications, pictures of
state to compare between two applications, and the chips held across every account."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from application import Ledger, Outcome
from application.store import build_ledger
from config import Settings
from domain.aggregates import TREASURY_ID, Account, DealAggregate, kitty_id
from domain.engine.deal_state import DealState
from domain.engine.postings import TREASURY, escrow_account, net_changes
from domain.engine.table import Table
from tests.ledger_club import stacked_pack


def topic(cls: type) -> str:
    """The topic events of `cls` are stored under (pinned: domain.aggregates.base)."""
    return get_topic(cls)


def notifications(ledger: Ledger, *, after: int = 0, upto: int | None = None,
                  topics: Sequence[str] = ()) -> list[Notification]:
    """Every stored notification after position `after` (and up to `upto`), in order."""
    out: list[Notification] = []
    start = after + 1
    while True:
        page = ledger.recorder.select_notifications(start=start, limit=1000, stop=upto,
                                                    topics=topics)
        out.extend(page)
        if len(page) < 1000:
            return out
        start = page[-1].id + 1


def head(ledger: Ledger) -> int:
    """The position of the last stored event (0 for an empty store)."""
    return ledger.recorder.max_notification_id() or 0


def recorded_topics(ledger: Ledger, *, after: int, upto: int | None = None) -> list[str]:
    return [n.topic for n in notifications(ledger, after=after, upto=upto)]


def events_of(ledger: Ledger, aggregate_id: UUID | str) -> list[Any]:
    return list(ledger.events.get(UUID(str(aggregate_id))))


def past_balance(ledger: Ledger, player_id: str, *, position: int | None = None,
                 at: datetime | None = None) -> int:
    """A player's balance as it stood at a position or a time, read from the account's own
    entries (each carries its balance after); the current balance without either."""
    moves = [topic(Account.Credited), topic(Account.Debited)]
    balance = 0
    for note in notifications(ledger, upto=position, topics=moves):
        if str(note.originator_id) != player_id:
            continue
        entry = ledger.mapper.to_domain_event(note)
        if at is not None and entry.timestamp > at:
            break
        balance = entry.balance_after
    return balance


# --- chips ---------------------------------------------------------------------------------

def all_balances(ledger: Ledger) -> dict[UUID, int]:
    """Every Account's balance (players, kitties), found from the stored log, and the
    treasury's, derived from its counterparts' entries (it keeps none of its own)."""
    opened = notifications(ledger, topics=[topic(Account.Opened)])
    found = {UUID(str(n.originator_id)): ledger.account(UUID(str(n.originator_id))).balance
             for n in opened if n.originator_id != TREASURY_ID}
    found[TREASURY_ID] = treasury_balance(ledger)
    return found


def treasury_balance(ledger: Ledger) -> int:
    """Minus every chip the treasury issued and did not redeem: its side of each posting is
    the entry of the account on the other side (application/base.py `_post`)."""
    balance = 0
    moves = [topic(Account.Credited), topic(Account.Debited)]
    for note in notifications(ledger, topics=moves):
        if note.originator_id == TREASURY_ID:
            continue  # a store's own treasury entries from before: counted by counterpart
        entry = ledger.mapper.to_domain_event(note)
        if entry.from_account == TREASURY:
            balance -= entry.amount
        elif entry.to_account == TREASURY:
            balance += entry.amount
    return balance


def escrow_held(ledger: Ledger) -> int:
    """What every deal's escrow holds: stakes and shoot bets placed and not yet settled."""
    held = 0
    for started in notifications(ledger, topics=[topic(DealAggregate.DealStarted)]):
        engine = ledger.deal(str(started.originator_id)).engine
        held += net_changes(engine.postings).get(escrow_account(engine.deal_id), 0)
    return held


def chips_in_play(ledger: Ledger) -> int:
    """R11.1: every account's balance plus every escrow; always zero."""
    return sum(all_balances(ledger).values()) + escrow_held(ledger)


def account_names(balances: dict[UUID, int], ledger: Ledger) -> dict[str, int]:
    """The same balances keyed by posting names (`player:<id>`, `kitty:<table>`, `treasury`)."""
    named = {}
    for account_id, balance in balances.items():
        if account_id == TREASURY_ID:  # derived: there is no treasury aggregate to read
            named[TREASURY] = balance
            continue
        account = ledger.account(account_id)
        if account.kind == "player":
            named[f"player:{account_id}"] = balance
        else:
            assert account.kind == "kitty" and account.owner is not None
            assert kitty_id(account.owner) == account_id
            named[f"kitty:{account.owner}"] = balance
    return named


# --- pictures of state, to compare two applications ---------------------------------------

def deal_picture(engine: DealState) -> dict[str, Any]:
    """Everything a deal holds, hands included, as comparable values."""
    picture = {k: v for k, v in vars(engine).items() if not k.startswith("_") and k != "hands"}
    picture["pack"] = None if engine.pack is None else list(engine.pack)
    picture["in_play"] = dict(engine.in_play)
    picture["hands"] = {player: [hand.snapshot() for hand in hands]
                        for player, hands in engine.hands.items()}
    return picture


def table_picture(engine: Table) -> dict[str, Any]:
    return engine.to_state()


def picture(ledger: Ledger, *, players: Iterable[str] = (), tables: Iterable[str] = (),
            deals: Iterable[str] = ()) -> dict[str, Any]:
    """Balances of every account, and the named players, tables and deals."""
    return {
        "balances": all_balances(ledger),
        "players": {p: (ledger.player_account(p).name, ledger.player_account(p).balance,
                        ledger.player_account(p).version) for p in players},
        "tables": {t: (ledger.table(t).version, table_picture(ledger.table(t).engine))
                   for t in tables},
        "deals": {d: (ledger.deal(d).version, deal_picture(ledger.deal(d).engine))
                  for d in deals},
        "head": head(ledger),
    }


@contextmanager
def fresh_ledger(settings: Settings) -> Iterator[Ledger]:
    """A new application on the same store: it knows only what was stored."""
    ledger = build_ledger(settings)
    try:
        yield ledger
    finally:
        ledger.close()


def assert_read_back_identically(ledger: Ledger, settings: Settings, **named: Iterable[str]
                                 ) -> dict[str, Any]:
    """Replaying the stored events in a new application rebuilds exactly the same state."""
    named_lists = {k: list(v) for k, v in named.items()}
    before = picture(ledger, **named_lists)
    with fresh_ledger(settings) as again:
        after = picture(again, **named_lists)
    assert after == before
    return before


# --- builders ------------------------------------------------------------------------------

@dataclass
class Club:
    """Players with chips and one table, on a real Ledger; players are named."""

    ledger: Ledger
    ids: dict[str, str]
    table_id: str
    deal_id: str | None = None

    def start(self, **kwargs: Any) -> Outcome:
        outcome = self.ledger.start_deal(self.table_id, **kwargs)
        self.deal_id = str(outcome.result["deal_id"])
        return outcome

    def act(self, name: str, action: str, **kwargs: Any) -> Outcome:
        assert self.deal_id is not None, "start a deal first"
        return self.ledger.act(self.deal_id, self.ids[name], action, **kwargs)

    def chips(self, name: str) -> int:
        return self.ledger.player_account(self.ids[name]).balance

    def kitty_chips(self) -> int:
        return self.ledger.account(kitty_id(self.table_id)).balance

    @property
    def deal(self) -> DealState:
        assert self.deal_id is not None
        return self.ledger.deal(self.deal_id).engine

    @property
    def table(self) -> Table:
        return self.ledger.table(self.table_id).engine

    def hands(self, name: str) -> list[list[str]]:
        return [hand.cards for hand in self.deal.hands[self.ids[name]]]

    def everything(self) -> dict[str, Iterable[str]]:
        """The keywords of `assert_read_back_identically` for this club."""
        return {"players": self.ids.values(), "tables": [self.table_id],
                "deals": [self.deal_id] if self.deal_id else []}


def seat_club(ledger: Ledger, players: Sequence[str] = ("Banker", "Pat"), *,
              top: Sequence[str] = (), rules: dict[str, Any] | None = None,
              chips: int | dict[str, int] = 100, kitty: int = 0, banker: str = "Banker",
              pack: dict[str, Any] | None = None) -> Club:
    """Registers `players`, buys them chips, seats them clockwise; the first card dealt is
    `top[0]` (to the banker's left). A Shoot Pontoon table gets a kitty of `kitty`."""
    ids = {name: str(ledger.register_player(name).result["id"]) for name in players}
    for name in players:
        amount = chips if isinstance(chips, int) else chips.get(name, 0)
        if amount:
            ledger.buy_in(ids[name], amount)
    packs = (rules or {}).get("packs", 1)
    table_id = str(ledger.open_table(
        name=f"integration {ids[banker][:8]}", seats=[ids[n] for n in players],
        banker=ids[banker], rules=rules,
        pack=pack or {"mode": "ordered", "cards": stacked_pack(top, packs)}).result["table_id"])
    if kitty:
        ledger.put_up_kitty(table_id, ids[banker], kitty)
    return Club(ledger, ids, table_id)


def race(calls: Sequence[Callable[[], Outcome]]) -> list[Outcome | BaseException]:
    """Run each call in its own thread, all released together; what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Outcome | BaseException | None] = [None] * len(calls)

    def run(index: int, call: Callable[[], Outcome]) -> None:
        barrier.wait()
        try:
            results[index] = call()
        except BaseException as error:  # noqa: BLE001 - reported to the test
            results[index] = error

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive(), "a racing command did not finish within 30 s"
    return [r for r in results if r is not None]
