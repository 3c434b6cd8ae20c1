"""A realistic club session on a real Ledger, for the read-model (projection) tests.

Ann, Pat and Sam play Shoot Pontoon at an ordered table with a kitty: three deals with busts
(R4.7, R9.7), shoot bets won and lost (R9.8), a kitty top-up (R9.9), a bank sale (R8.2) in
which the old banker takes the kitty (R9.11) and the new banker puts up a new one (R9.1).
Cat and Dan play at a shuffled table whose seeds are chosen here: Dan's pontoon takes the
bank (R8.1), so the next deal reshuffles and reveals the first seed (R1.4, R1.7); that deal is
left open with Cat's stake in its escrow. Sam disputes the first deal and the treasurer
upholds it with a correction (R11.4); Pat's dispute is rejected. Sam cashes out (R11.1).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from application import Ledger, Outcome
from config import Settings
from domain.aggregates import TREASURY_ID, Account, DealAggregate, kitty_id
from domain.engine.cards import POINTS, RANK, TEN_CARDS
from domain.engine.postings import TREASURY, escrow_account, net_changes
from domain.engine.shuffle import derived_seed, shuffle_pack
from projections.balances import balances
from projections.runner import Projections
from projections.store import TABLES, ReadStore
from tests.integration.ledger_views import account_names, all_balances, notifications, topic
from tests.ledger_club import stacked_pack

SHOOT = {"shoot": True, "kitty_min": 10, "kitty_max": 50}
NAMES = ("Ann", "Pat", "Sam", "Cat", "Dan")

# Deal 1 (Ann banks): Pat 10S 6S shoots 5 and twists 9D: bust (R4.7, R9.7); Sam 10H 9H
# sticks on 19 and beats Ann's 10C 8C (18).
# Deal 2: Pat 7S 10D shoots 3 and sticks on 17, loses to Ann's 9C 9S (18): his stake to Ann,
# his shoot bet to the kitty (R9.8); Sam 5H 6D twists 3C and KC: bust.
# Deal 3 (Pat banks after buying the bank): Sam QH 8H shoots 4 and sticks on 18; Ann JD 7D
# sticks on 17; Pat 8D 7H draws 2D and stays on 17: Sam wins stake and shoot bet, Ann ties
# and pays.
TOP = ["10S", "10H", "10C", "6S", "9H", "8C", "9D",
       "7S", "5H", "9C", "10D", "6D", "9S", "3C", "KC",
       "QH", "JD", "8D", "8H", "7D", "7H", "2D"]


def _pontoon(cards: list[str]) -> bool:
    ranks = {RANK[c] for c in cards}
    return "A" in ranks and bool(ranks & TEN_CARDS)


def _hard(cards: list[str]) -> int:
    return sum(POINTS[c] for c in cards)


def _first_seed(accept: Callable[[list[str]], bool], label: str) -> str:
    for n in range(10_000):
        seed = derived_seed("projection-tests", label, n)
        if accept(shuffle_pack(seed, 1)):
            return seed
    raise AssertionError("no seed found")


# Two players: Dan (the banker's left) gets pack[0] and pack[2], the banker pack[1], pack[3].
PONTOON_SEED = _first_seed(lambda p: _pontoon([p[0], p[2]]) and "A" not in
                           (RANK[p[1]], RANK[p[3]]) and 17 <= _hard([p[1], p[3]]) <= 20,
                           "dan-pontoon")
# Then Dan banks: Cat gets pack[0] and pack[2] and can stick; Dan can stay.
OPEN_SEED = _first_seed(lambda p: "A" not in {RANK[c] for c in p[:4]}
                        and 15 <= _hard([p[0], p[2]]) <= 20 and 17 <= _hard([p[1], p[3]]) <= 20,
                        "open-deal")


@dataclass
class Session:
    ledger: Ledger
    ids: dict[str, str] = field(default_factory=dict)
    table_id: str = ""
    deals: list[str] = field(default_factory=list)
    shuffled_table: str = ""
    shuffled_deals: list[str] = field(default_factory=list)
    upheld: str = ""
    rejected: str = ""
    positions: list[int] = field(default_factory=list)  # after each command

    def account(self, name: str) -> str:
        return f"player:{self.ids[name]}"

    @property
    def kitty(self) -> str:
        return f"kitty:{self.table_id}"

    @property
    def open_deal(self) -> str:
        return self.shuffled_deals[-1]


def play_session(ledger: Ledger, after_command: Callable[[], Any] | None = None) -> Session:
    """Plays the session; `after_command` runs after every command."""
    s = Session(ledger)
    seeds = {"next": derived_seed("projection-tests", "ordered")}
    ledger.new_seed = lambda: seeds["next"]

    def run(outcome: Outcome) -> Outcome:
        assert outcome.position is not None
        s.positions.append(outcome.position)
        if after_command is not None:
            after_command()
        return outcome

    for name in NAMES:
        s.ids[name] = str(run(ledger.register_player(name)).result["id"])
    for name, chips in zip(NAMES, (100, 100, 100, 60, 60), strict=True):
        run(ledger.buy_in(s.ids[name], chips))
    ann, pat, sam = s.ids["Ann"], s.ids["Pat"], s.ids["Sam"]
    s.table_id = str(run(ledger.open_table(
        name=f"main {s.ids['Ann'][:8]}", seats=[ann, pat, sam], banker=ann, rules=SHOOT,
        pack={"mode": "ordered", "cards": stacked_pack(TOP)})).result["table_id"])
    run(ledger.put_up_kitty(s.table_id, ann, 20))

    def deal(*actions: tuple[str, str, int | None]) -> str:
        deal_id = str(run(ledger.start_deal(s.table_id)).result["deal_id"])
        s.deals.append(deal_id)
        for name, action, amount in actions:
            run(ledger.act(deal_id, s.ids[name], action, amount=amount))
        assert ledger.deal(deal_id).engine.phase == "settled"
        return deal_id

    deal(("Pat", "stake", 2), ("Sam", "stake", 2), ("Pat", "shoot", 5), ("Sam", "pass", None),
         ("Pat", "twist", None), ("Sam", "stick", None), ("Ann", "stay", None))
    run(ledger.put_up_kitty(s.table_id, ann, 5))
    deal(("Pat", "stake", 2), ("Sam", "stake", 2), ("Pat", "shoot", 3), ("Sam", "pass", None),
         ("Pat", "stick", None), ("Sam", "twist", None), ("Sam", "twist", None),
         ("Ann", "stay", None))
    run(ledger.sell_bank(s.table_id, pat, 15))
    run(ledger.put_up_kitty(s.table_id, pat, 10))
    deal(("Sam", "stake", 2), ("Ann", "stake", 2), ("Sam", "shoot", 4), ("Ann", "pass", None),
         ("Sam", "stick", None), ("Ann", "stick", None), ("Pat", "draw", None),
         ("Pat", "stay", None))

    cat, dan = s.ids["Cat"], s.ids["Dan"]
    seeds["next"] = PONTOON_SEED
    s.shuffled_table = str(run(ledger.open_table(
        name=f"shuffled {cat[:8]}", seats=[cat, dan], banker=cat)).result["table_id"])
    first = str(run(ledger.start_deal(s.shuffled_table)).result["deal_id"])
    s.shuffled_deals.append(first)
    run(ledger.act(first, dan, "stake", amount=3))
    # Dan's pontoon ends the pack: the next one is committed to as the deal ends (R1.4,
    # R1.7, docs/decisions.md 135), from the seed given now.
    seeds["next"] = OPEN_SEED
    run(ledger.act(first, cat, "stay"))
    assert ledger.deal(first).engine.phase == "settled"
    assert ledger.table(s.shuffled_table).engine.banker == dan
    second = str(run(ledger.start_deal(s.shuffled_table)).result["deal_id"])
    s.shuffled_deals.append(second)
    run(ledger.act(second, cat, "stake", amount=2))
    assert ledger.deal(second).engine.phase not in ("settled", "void")

    s.upheld = str(run(ledger.raise_dispute(
        s.deals[0], "Pat's bust card was dealt from the wrong place", raised_by=f"player:{sam}"
    )).result["id"])
    s.rejected = str(run(ledger.raise_dispute(
        s.deals[1], "I meant to stick", raised_by=f"player:{pat}")).result["id"])
    run(ledger.resolve_dispute(
        s.upheld, decision="upheld", note="misdeal in deal 1",
        corrections=[{"from_account": f"player:{ann}", "to_account": f"player:{sam}",
                      "amount": 2},
                     {"from_account": s.kitty, "to_account": f"player:{pat}", "amount": 3}],
        resolved_by="treasurer"))
    run(ledger.resolve_dispute(s.rejected, decision="rejected", note="the stick came late",
                               corrections=[], resolved_by="treasurer"))
    run(ledger.cash_out(sam, 50))
    return s


# --- reading the read store back ------------------------------------------------------------

def dump(store: ReadStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every read-model table, each row as a tuple of its columns by name, rows sorted."""
    out = {}
    for table in TABLES:
        rows = store.rows(f"SELECT * FROM {table}")  # noqa: S608 (fixed names)
        out[table] = sorted((tuple(row[c] for c in sorted(row)) for row in rows), key=repr)
    return out


def total(store: ReadStore) -> int:
    return sum(int(row["balance"]) for row in balances(store))


def read_balances(store: ReadStore) -> dict[str, int]:
    return {row["account"]: int(row["balance"]) for row in balances(store)}


def same_balances(read: dict[str, int], aggregates: dict[str, int]) -> bool:
    """Every account holds its aggregate's balance; a deal's escrow has a row from its
    first posting on."""
    return set(read) <= set(aggregates) and {
        account: read.get(account, 0) for account in aggregates} == aggregates


def aggregate_balances(ledger: Ledger) -> dict[str, int]:
    """Every account's balance by posting name, from the aggregates: players, treasury,
    kitties, and every deal's escrow (what its postings leave in it)."""
    named = account_names(all_balances(ledger), ledger)
    for started in notifications(ledger, topics=[topic(DealAggregate.DealStarted)]):
        engine = ledger.deal(str(started.originator_id)).engine
        escrow = escrow_account(engine.deal_id)
        named[escrow] = net_changes(engine.postings).get(escrow, 0)
    return named


def entries_of(ledger: Ledger, account: str) -> list[tuple[int, Any]]:
    """The Credited/Debited events of an account (`player:<id>`, `kitty:<table>`, `treasury`),
    each after its position in the log. The treasury keeps no entries of its own: its are
    its counterparts', turned round, with its running balance."""
    if account == "treasury":
        return _treasury_entries(ledger)
    kind, _, key = account.partition(":")
    account_id = {"player": lambda: UUID(key), "kitty": lambda: kitty_id(key)}[kind]()
    positions = {(n.originator_id, n.originator_version): n.id for n in notifications(
        ledger, topics=[topic(Account.Credited), topic(Account.Debited)])}
    out = []
    for event in ledger.events.get(account_id):
        if isinstance(event, Account.Credited | Account.Debited):
            out.append((positions[(event.originator_id, event.originator_version)], event))
    return out


@dataclass
class TreasuryEntry:
    """The treasury's side of a posting, as its counterpart's entry records it."""

    posting_id: str
    amount: int
    balance_after: int
    from_account: str
    to_account: str
    rule: str
    reason: str
    timestamp: Any


class Credited(TreasuryEntry): ...
class Debited(TreasuryEntry): ...


def _treasury_entries(ledger: Ledger) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    balance = 0
    for note in notifications(ledger, topics=[topic(Account.Credited), topic(Account.Debited)]):
        if note.originator_id == TREASURY_ID:
            continue
        entry = ledger.mapper.to_domain_event(note)
        if TREASURY not in (entry.from_account, entry.to_account):
            continue
        credit = entry.to_account == TREASURY
        balance += entry.amount if credit else -entry.amount
        out.append((note.id, (Credited if credit else Debited)(
            entry.posting_id, entry.amount, balance, entry.from_account, entry.to_account,
            entry.rule, entry.reason, entry.timestamp)))
    return out


def projections(ledger: Ledger, store: ReadStore, page: int = 500) -> Projections:
    return Projections(ledger, store, page=page)


# --- the store by hand, and the console command ------------------------------------------------

PONTOON = Path(sys.executable).parent / "pontoon"


def pontoon(settings: Settings, *args: str, cwd: Path, timeout: float = 60
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PONTOON), *args], env=pontoon_env(settings), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False)


def pontoon_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_DATABASE_URL"] = settings.database_url
    env["COLUMNS"] = "200"  # rich wraps the report at the terminal's width
    return env


def rewrite_event(settings: Settings, notification: Any,
                  change: Callable[[dict[str, Any]], None]) -> None:
    """Alter one stored event by hand, as an intruder with database access would."""
    state = json.loads(notification.state)
    change(state)
    data = json.dumps(state, separators=(",", ":")).encode()
    if settings.store == "sqlite":
        with contextlib.closing(sqlite3.connect(settings.sqlite_path)) as conn, conn:
            changed = conn.execute(
                "UPDATE stored_events SET state = ? WHERE originator_id = ? AND "
                "originator_version = ?", (data, notification.originator_id.hex,
                                           notification.originator_version)).rowcount
    else:
        import psycopg

        base, schema = postgres_schema(settings)
        with psycopg.connect(base, autocommit=True) as conn:
            changed = conn.execute(
                f'UPDATE "{schema}".ledger_events SET state = %s WHERE originator_id = %s '
                "AND originator_version = %s",
                (data, notification.originator_id, notification.originator_version)).rowcount
    assert changed == 1


def postgres_schema(settings: Settings) -> tuple[str, str]:
    """The server's URL without the query, and the schema the store's URL names."""
    base, _, query = settings.database_url.partition("?")
    return base, dict(q.split("=", 1) for q in query.split("&") if q).get("schema", "public")


def count_rows(settings: Settings, table: str) -> int:
    """Rows of a read-model table, counted by hand in the store's own file or schema."""
    if settings.store == "sqlite":
        with contextlib.closing(sqlite3.connect(settings.sqlite_path)) as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])  # noqa: S608
    import psycopg

    base, schema = postgres_schema(settings)
    with psycopg.connect(base, autocommit=True) as conn:
        row = conn.execute(f'SELECT COUNT(*) FROM "{schema}".{table}').fetchone()  # noqa: S608
        assert row is not None
        return int(row[0])
