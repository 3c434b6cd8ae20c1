"""Races on the real stores: real threads, one shared `Ledger` per test as in production.

Each command reads fresh aggregates, decides and saves them in one transaction with a version
check on each; a lost race is decided again from fresh state, a bounded number of times, and
then refused as `Conflict` (docs/architecture.md, "Races and retries"). These tests run every
race on SQLite and on PostgreSQL (`store_settings`).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

import psycopg
import pytest
from eventsourcing.application import AggregateNotFoundError

from application import Ledger, Outcome
from application.base import Decision
from application.store import build_ledger, migrate
from config import INSERT_LOCK, Settings, advisory_key
from domain.aggregates import Account, DealAggregate, receipt_id
from domain.engine.legal import legal_actions
from domain.engine.postings import net_changes, player_account
from domain.errors import Conflict, InsufficientChips, NotNow
from projections.election import lock_key
from tests.integration.ledger_views import race, treasury_balance
from tests.ledger_club import stacked_pack
from verification.verify import verify

pytestmark = pytest.mark.timeout(60)

THREADS = 8
# Player 2H 4H, banker 3H 5H: no pontoon, so a lone stake leaves the deal in play and the
# stake's save touches only the deal and the staking player's account.
QUIET_DEAL = ("2H", "3H", "4H", "5H")


# --- helpers ---------------------------------------------------------------------------




def unexpected(results: Sequence[object], *allowed: type[BaseException]) -> list[object]:
    return [r for r in results if isinstance(r, BaseException) and not isinstance(r, allowed)]


def new_player(ledger: Ledger, name: str, chips: int = 0) -> str:
    player_id = str(ledger.register_player(name).result["id"])
    if chips:
        ledger.buy_in(player_id, chips)
    return player_id


def open_deal(ledger: Ledger, seats: Sequence[str], top: Sequence[str] = QUIET_DEAL) -> str:
    """A table with `seats` (the first is the banker) and a deal started on a stacked pack."""
    table_id = ledger.open_table(name=f"race {uuid4().hex[:8]}", seats=seats, banker=seats[0],
                                 pack={"mode": "ordered", "cards": stacked_pack(top)}
                                 ).result["table_id"]
    return str(ledger.start_deal(table_id).result["deal_id"])


def account_events(ledger: Ledger, player_id: str) -> list[Any]:
    return list(ledger.events.get(UUID(player_id)))


def assert_consistent_account(events: Sequence[Any]) -> None:
    """Versions 1..n without gaps, and each entry's balance_after follows from the last."""
    assert [e.originator_version for e in events] == list(range(1, len(events) + 1))
    assert isinstance(events[0], Account.Opened)
    balance = 0
    for event in events[1:]:
        balance += event.amount if isinstance(event, Account.Credited) else -event.amount
        assert event.balance_after == balance, f"chain broken at v{event.originator_version}"


def deal_events(ledger: Ledger, deal_id: str) -> list[Any]:
    return list(ledger.events.get(UUID(deal_id)))


def escrow_of(deal: DealAggregate) -> int:
    return net_changes(deal.engine.postings).get(deal.engine.escrow, 0)


def posting_id(source_id: str, version: int, index: int = 0) -> str:
    return str(uuid5(NAMESPACE_URL, f"/pontoon/postings/{source_id}:{version}:{index}"))


# --- R11.2: one player's chips spent at eight tables at once ---------------------------


class InStep(Ledger):
    """The production Ledger, except that each command's first decision waits for the
    others' (a barrier of `parties`): all of them have read the same versions before any
    saves, so the race is certain, not a matter of timing. Lost races are listed."""

    name = "Ledger"  # the same tables as the production application

    def __init__(self, env: dict[str, str], parties: int) -> None:
        super().__init__(env)
        self.barrier = threading.Barrier(parties, timeout=30)
        self.lost: list[str] = []
        self.race_lost = self.lost.append

    def _command(self, name: str, request: Any, key: str | None,
                 decide: Callable[[], Decision], **kwargs: Any) -> Outcome:
        waited: list[bool] = []

        def decide_in_step() -> Decision:
            decision = decide()
            if not waited:
                waited.append(True)
                self.barrier.wait()
            return decision
        return super()._command(name, request, key, decide_in_step, **kwargs)


@pytest.mark.parametrize("round_", range(4), ids=lambda r: f"round{r}")
def test_r11_2_eight_threads_spending_one_players_chips_at_eight_tables_never_overdraw(
        ledger, store_settings, round_):
    """R11.2: chips are never spent twice. Eight stakes race for chips that cover k of them,
    all decided on the same version of Pat's account: one saves first, and each of the
    seven others loses the race on that account and is decided again from fresh state. In
    the end exactly k are placed (fewer only if some lost every retry as Conflict); the
    others find Pat holding nothing, less than the minimum stake, and sit him out of their
    deal (R3.5, where a refusal would leave the deal waiting for ever). The balance is
    buy-in − stakes placed × stake ≥ 0, the account's entries form one consistent chain,
    and every recorded stake has its matching debit."""
    stake, k = 5, (1, 3, 5, 7)[round_]
    banker = new_player(ledger, "Banker", 1000)
    player = new_player(ledger, "Pat", k * stake)
    deals = [open_deal(ledger, [banker, player]) for _ in range(THREADS)]
    in_step = InStep(store_settings.ledger_env(), THREADS)

    try:
        results = race([lambda d=d: in_step.act(d, player, "stake", amount=stake)
                        for d in deals])
    finally:
        in_step.close()

    assert len(in_step.lost) >= THREADS - 1 and set(in_step.lost) == {"act"}
    assert unexpected(results, InsufficientChips, Conflict) == []
    answered = [d for d, r in zip(deals, results, strict=True) if isinstance(r, Outcome)]
    won = [d for d in answered if any(isinstance(e, DealAggregate.StakePlaced)
                                      for e in deal_events(ledger, d))]
    sat_out = [d for d in answered if any(isinstance(e, DealAggregate.PlayerSatOut)
                                          for e in deal_events(ledger, d))]
    conflicts = sum(isinstance(r, Conflict) for r in results)
    assert len(won) == k if conflicts == 0 else len(won) <= k
    assert sorted(won + sat_out) == sorted(answered)
    balance = ledger.player_account(player).balance
    assert balance == k * stake - len(won) * stake >= 0
    events = account_events(ledger, player)
    assert_consistent_account(events)
    assert events[-1].balance_after == balance
    debits = [e for e in events if isinstance(e, Account.Debited)]
    staked = []
    for deal_id in deals:
        stakes = [e for e in deal_events(ledger, deal_id)
                  if isinstance(e, DealAggregate.StakePlaced)]
        assert len(stakes) <= 1
        if stakes:
            staked.append(deal_id)
            [debit] = [e for e in debits if e.deal_id == deal_id]
            assert debit.amount == stake and debit.rule == "R3.5"
            assert debit.posting_id == posting_id(deal_id, stakes[0].originator_version)
    assert sorted(staked) == sorted(won)
    assert len(debits) == len(won)


# --- R11.1: buy-ins for different players never contend --------------------------------

def test_r11_1_thirty_two_buy_ins_for_thirty_two_players_at_once_never_conflict(ledger):
    """R11.1: the treasury's side of a buy-in is the player's own entry, so 32 buy-ins for
    32 players sent at once are each applied at the first attempt: no race is lost, no
    409, every player holds their chips and the treasury minus all of them."""
    players = [new_player(ledger, f"P{i}") for i in range(32)]
    lost: list[str] = []
    ledger.race_lost = lost.append

    results = race([lambda p=p, i=i: ledger.buy_in(p, 10 + i) for i, p in enumerate(players)])

    assert [r for r in results if isinstance(r, BaseException)] == []
    assert lost == []
    assert [ledger.player_account(p).balance for p in players] == [10 + i for i in range(32)]
    assert treasury_balance(ledger) == -sum(10 + i for i in range(32))


# --- many threads on one deal ----------------------------------------------------------

# Five players and a banker; first round P1..P5 then the banker, second round likewise.
# Players hold 16, 16, 16, 16 and 17 (they may stick), the banker 17: nobody has pontoon.
FIVE_PLAYER_DEAL = ("10H", "10D", "10C", "10S", "JH", "9H",
                    "6H", "6D", "6C", "6S", "7H", "8H")


def race_until(ledger: Ledger, calls: Sequence[tuple[str, Callable[[], Outcome]]],
               done: Callable[[], bool], rounds: int = 10) -> Counter[str]:
    """Race rounds of THREADS commands until `done()`; successes counted by label."""
    successes: Counter[str] = Counter()
    for _ in range(rounds):
        if done():
            break
        batch = [calls[i % len(calls)] for i in range(THREADS)]
        results = race([call for _, call in batch])
        assert unexpected(results, NotNow) == []
        successes.update(label for (label, _), r in zip(batch, results, strict=True)
                         if isinstance(r, Outcome))
    assert done(), f"not done after {rounds} rounds of {THREADS} racing commands"
    return successes


def assert_deal_replays_cleanly(settings: Settings, deal_id: str) -> DealAggregate:
    """A fresh application (as another process) rebuilds the deal from its events alone."""
    fresh = Ledger(env=settings.ledger_env())
    try:
        deal = fresh.deal(deal_id)
        events = deal_events(fresh, deal_id)
    finally:
        fresh.close()
    assert [e.originator_version for e in events] == list(range(1, len(events) + 1))
    assert deal.version == len(events)
    assert deal.engine.version == len(events)  # every event applied exactly one fact
    return deal


def test_eight_threads_acting_on_one_deal_never_corrupt_it(ledger, store_settings):
    """R3.1, R3.5, R4.6, R6.3: racing actions on one deal (the player in turn and others out
    of turn) are applied one at a time: each stake and each stick lands exactly once, the
    others are refused as not their turn; the deal replays to a valid state with a gapless
    version sequence and an escrow equal to the stakes, and chips are conserved at the end."""
    banker = new_player(ledger, "Banker", 100)
    players = [new_player(ledger, f"P{i}", 100) for i in range(1, 6)]
    deal_id = open_deal(ledger, [banker, *players], top=FIVE_PLAYER_DEAL)
    amounts = {p: i + 1 for i, p in enumerate(players)}

    stakes = race_until(
        ledger, [(p, lambda p=p: ledger.act(deal_id, p, "stake", amount=amounts[p]))
                 for p in players],
        lambda: ledger.deal(deal_id).engine.phase != "staking")

    assert stakes == Counter(players)
    deal = assert_deal_replays_cleanly(store_settings, deal_id)
    placed = Counter(e.fact["player"] for e in deal_events(ledger, deal_id)
                     if isinstance(e, DealAggregate.StakePlaced))
    assert placed == Counter(players)
    assert [deal.engine.hands[p][0].stake for p in players] == [1, 2, 3, 4, 5]
    assert escrow_of(deal) == sum(amounts.values()) == 15
    assert deal.engine.phase == "playing" and deal.engine.turn == (players[0], 0)
    legal = legal_actions(deal.engine, {players[0]: 99})
    assert {a.action for a in legal} >= {"twist", "stick", "buy"}
    assert {a.player for a in legal} == {players[0]}
    for p in players:
        assert ledger.player_account(p).balance == 100 - amounts[p]

    sticks = race_until(
        ledger, [(p, lambda p=p: ledger.act(deal_id, p, "stick")) for p in players],
        lambda: ledger.deal(deal_id).engine.phase != "playing")
    stays = race_until(ledger, [("stay", lambda: ledger.act(deal_id, banker, "stay"))],
                       lambda: ledger.deal(deal_id).engine.is_over)

    assert sticks == Counter(players)
    assert stays == Counter(["stay"])
    deal = assert_deal_replays_cleanly(store_settings, deal_id)
    assert deal.engine.phase == "settled"
    assert escrow_of(deal) == 0
    changes = net_changes(deal.engine.postings)
    seated = [banker, *players]
    for p in seated:
        assert ledger.player_account(p).balance == 100 + changes.get(player_account(p), 0)
        assert_consistent_account(account_events(ledger, p))
    total = sum(ledger.player_account(p).balance for p in seated)
    assert total == 600 == -treasury_balance(ledger)
    table_id = deal.engine.table_id
    assert ledger.start_deal(table_id).result["table_id"] == table_id  # the table was freed


# --- losing every race: Conflict (409) after a bounded number of attempts --------------


class Rival:
    """Another thread that, on cue, saves a competing command and reports back, `times` times.

    It writes through its own application object, as another worker process would.
    """

    def __init__(self, command: Callable[[], object], times: int) -> None:
        self.command, self.left = command, times
        self.go, self.done = threading.Event(), threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def __call__(self) -> None:
        if self.left == 0:
            return
        self.left -= 1
        self.go.set()
        assert self.done.wait(10), "the rival did not save in time"
        self.done.clear()
        if self.error is not None:
            raise AssertionError("the rival failed") from self.error

    def stop(self) -> None:
        self.left = -1
        self.go.set()
        self.thread.join(10)

    def _run(self) -> None:
        while True:
            self.go.wait()
            self.go.clear()
            if self.left < 0:
                return
            try:
                self.command()
            except BaseException as error:  # noqa: BLE001 - re-raised by __call__
                self.error = error
            self.done.set()


class LosingLedger(Ledger):
    """The production Ledger, except that after each decision a rival saves first."""

    name = "Ledger"  # the same tables as the production application

    def __init__(self, env: dict[str, str], rival: Callable[[], None], attempts: int) -> None:
        super().__init__(env, attempts=attempts)
        self.rival = rival
        self.decisions = 0

    def _command(self, name: str, request: Any, key: str | None,
                 decide: Callable[[], Decision], **kwargs: Any) -> Outcome:
        def decide_then_lose_the_race() -> Decision:
            decision = decide()
            self.decisions += 1
            self.rival()
            return decision
        return super()._command(name, request, key, decide_then_lose_the_race, **kwargs)


@pytest.mark.parametrize("attempts", [1, 3])
def test_a_command_losing_every_race_is_refused_as_conflict_and_records_nothing(
        ledger, store_settings, attempts):
    """R11.2 and API.md: a stake whose player's account is changed by another save between
    its read and its save is decided again from fresh state, `attempts` times in all, then
    refused as Conflict (HTTP 409); nothing of it is recorded, not even its receipt."""
    banker = new_player(ledger, "Banker", 100)
    player = new_player(ledger, "Pat", 10)
    deal_id = open_deal(ledger, [banker, player])
    rival = Rival(lambda: ledger.buy_in(player, 1), times=attempts)
    losing = LosingLedger(store_settings.ledger_env(), rival, attempts)
    deal_version = ledger.deal(deal_id).version

    try:
        with pytest.raises(Conflict) as refused:
            losing.act(deal_id, player, "stake", amount=5, key="stake-that-loses")
    finally:
        rival.stop()
        losing.close()

    assert refused.value.status == 409
    assert losing.decisions == attempts
    assert ledger.deal(deal_id).version == deal_version
    assert ledger.deal(deal_id).engine.hands[player][0].stake == 0
    events = account_events(ledger, player)
    assert_consistent_account(events)
    assert [type(e).__name__ for e in events[1:]] == ["Credited"] * (1 + attempts)
    assert ledger.player_account(player).balance == 10 + attempts
    with pytest.raises(AggregateNotFoundError):
        ledger.repository.get(receipt_id("stake-that-loses"))


def test_a_command_losing_some_races_is_decided_again_and_applied_once(ledger, store_settings):
    """R11.2, no lost update: a stake that loses two races to buy-ins is decided again from
    fresh state and succeeds on its third attempt; both buy-ins and the stake are kept."""
    banker = new_player(ledger, "Banker", 100)
    player = new_player(ledger, "Pat", 10)
    deal_id = open_deal(ledger, [banker, player])
    rival = Rival(lambda: ledger.buy_in(player, 1), times=2)
    losing = LosingLedger(store_settings.ledger_env(), rival, attempts=3)

    try:
        outcome = losing.act(deal_id, player, "stake", amount=5)
    finally:
        rival.stop()
        losing.close()

    assert losing.decisions == 3
    assert outcome.result["deal_id"] == deal_id
    assert ledger.deal(deal_id).engine.hands[player][0].stake == 5
    events = account_events(ledger, player)
    assert_consistent_account(events)
    assert [type(e).__name__ for e in events[1:]] == ["Credited"] * 3 + ["Debited"]
    assert ledger.player_account(player).balance == 10 + 2 - 5


class OvertakenLedger(Ledger):
    """The production Ledger, except that a rival saves just before it first reads a table."""

    name = "Ledger"

    def __init__(self, env: dict[str, str], rival: Callable[[], None]) -> None:
        super().__init__(env)
        self.rival: Callable[[], None] | None = rival

    def table(self, table_id: str) -> Any:
        rival, self.rival = self.rival, None
        if rival is not None:
            rival()
        return super().table(table_id)


def test_a_settling_action_overtaken_by_another_settlement_is_refused_as_not_now(
        ledger, store_settings):
    """R6.3, R3.4 and docs/architecture.md (races): the banker's stay is sent twice at once.
    The second command read the deal before the first settled it and reads the table after;
    it must be decided again from fresh state and refused as NotNow (the deal is over, 409),
    never fail with an internal error; the deal is settled and ended exactly once."""
    banker = new_player(ledger, "Banker", 100)
    player = new_player(ledger, "Pat", 100)
    deal_id = open_deal(ledger, [banker, player], top=(*QUIET_DEAL, "6H", "7H"))
    ledger.act(deal_id, player, "stake", amount=5)
    ledger.act(deal_id, player, "twist")  # 2H 4H 6H: 12
    ledger.act(deal_id, player, "twist")  # 2H 4H 6H 7H: 19
    ledger.act(deal_id, player, "stick")
    rival = Rival(lambda: ledger.act(deal_id, banker, "stay"), times=1)
    overtaken = OvertakenLedger(store_settings.ledger_env(), rival)

    try:
        with pytest.raises(NotNow) as refused:
            overtaken.act(deal_id, banker, "stay")
    finally:
        rival.stop()
        overtaken.close()

    assert refused.value.status == 409
    deal = ledger.deal(deal_id)
    assert deal.engine.phase == "settled"
    assert sum(isinstance(e, DealAggregate.DealSettled) for e in deal_events(ledger, deal_id)) == 1
    table_events = list(ledger.events.get(UUID(deal.engine.table_id)))
    assert [e.fact["deal_id"] for e in table_events if type(e).__name__ == "DealEnded"] == [deal_id]


def test_commands_are_recorded_while_the_event_log_is_vacuumed(postgres_schema: str) -> None:
    """PostgreSQL, decision 93: VACUUM, ANALYZE, autovacuum and CREATE INDEX CONCURRENTLY
    hold SHARE UPDATE EXCLUSIVE on the events table. While a session holds it, racing
    commands are recorded at once (they used to wait on the insert's table lock until they
    failed), still one after another: positions in commit order, both hash chains whole."""
    settings = Settings(database_url=postgres_schema, pool_size=2, pool_overflow=10)
    migrate(settings)
    ledger = build_ledger(settings)
    try:
        players = [new_player(ledger, f"P{i}") for i in range(THREADS)]
        base, _, schema = postgres_schema.partition("?schema=")
        with psycopg.connect(base) as maintenance:
            maintenance.execute(f'LOCK TABLE "{schema}".ledger_events '
                                "IN SHARE UPDATE EXCLUSIVE MODE")
            done = threading.Event()
            results: list[Any] = []
            worker = threading.Thread(target=lambda: (results.extend(race(
                [lambda p=p: ledger.buy_in(p, 10) for p in players])), done.set()))
            worker.start()
            recorded = done.wait(15)
            maintenance.rollback()  # the maintenance ends: a waiting command goes on
            worker.join(60)
        assert recorded, "commands waited for the vacuum's lock"
        assert unexpected(results) == [] and len(results) == THREADS
        report = verify(ledger)
        assert report.ok, report.failures
        # The lock they queue on instead: the store's own, not the read models' election's.
        with psycopg.connect(base) as conn:
            row = conn.execute("SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON "
                               "n.oid = p.pronamespace WHERE p.proname = "
                               "'ledger_insert_events' AND n.nspname = %s", (schema,)
                               ).fetchone()
        key = advisory_key(INSERT_LOCK, schema)
        assert row is not None and f"pg_advisory_xact_lock({key})" in row[0]
        assert key != lock_key(schema)
    finally:
        ledger.close()
