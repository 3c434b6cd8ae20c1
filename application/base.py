"""The ledger application's foundations: loading, posting chips, and running a command.

Every command saves every aggregate it changed in one atomic `save()`, so a stake is never
recorded without its chip debit and a settlement is never half-written. A command that loses
a race (another save moved an aggregate's version first) is retried from a fresh read a
bounded number of times, then refused as a conflict. A command given an idempotency key is
applied at most once: its receipt is saved in the same transaction as its events.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import JSONTranscoder, Transcoding

from application.eventstore import StoreApplication, VersionConflict
from application.reads import Reads, _missing
from domain.aggregates import (
    TREASURY_ID,
    Account,
    DealAggregate,
    Receipt,
    TableAggregate,
    kitty_id,
    receipt_id,
)
from domain.aggregates import clock as event_clock
from domain.aggregates import (
    posting_id as new_posting_id,
)
from domain.engine import facts as f
from domain.engine.postings import TREASURY, Posting
from domain.engine.table import Table
from domain.errors import Conflict, NotAllowed, PontoonError, of_kind

A = TypeVar("A", bound=Aggregate)


@dataclass(frozen=True)
class Outcome:
    """What a command answers: a JSON-safe result and the position of its last event.

    `saved`: the aggregates the command saved, by id, as it left them (not compared: a
    repeat answered from its receipt has none), so the API shows the deal or table it acted
    on without reading it again. They are the process's cached entries: read, never change.
    """

    result: dict[str, Any]
    position: int | None
    saved: Mapping[UUID, Any] = field(default_factory=dict, compare=False, repr=False)


class _TableState(Transcoding):
    """Snapshots of a table hold the engine's state as plain JSON."""

    type = Table
    name = "pontoon_table"

    def encode(self, obj: Table) -> dict[str, Any]:
        return obj.to_state()

    def decode(self, data: dict[str, Any]) -> Table:
        return Table.from_state(data)


Decision = tuple[Sequence[Aggregate | None], dict[str, Any]]
CACHE_SIZE = 2000  # aggregates each process keeps (env COMMAND_CACHE_MAXSIZE; decision 68)


class LedgerBase(Reads, StoreApplication):
    """What every command of the Ledger stands on; the commands themselves are in ledger.py,
    disputes.py, tokens.py and webhooks.py."""

    snapshotting_intervals = {TableAggregate: 100, Account: 100}  # noqa: RUF012

    def __init__(self, env: Mapping[str, str] | None = None, *,
                 new_seed: Callable[[], str] | None = None, attempts: int = 12,
                 clock: event_clock.Now | None = None) -> None:
        super().__init__(env)
        self.new_seed = new_seed or (lambda: secrets.token_hex(32))
        # What stamps this ledger's events: the real clock (None), or a simulated one that
        # plays history into a store marked simulated (application/clock.py).
        self.clock = clock
        self.attempts = attempts
        self.start_reading(int(self.env.get("COMMAND_CACHE_MAXSIZE") or CACHE_SIZE))
        # Told the command's name each time a command lost a race and is decided again
        # (the API counts them in its metrics).
        self.race_lost: Callable[[str], None] = lambda name: None

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        transcoder.register(_TableState())

    # --- queries -----------------------------------------------------------------------

    def player_account(self, player_id: str, *, referenced: bool = False) -> Account:
        account = self._load(Account, player_id, "player", referenced)
        if account.kind != "player":
            raise _missing("player", player_id, referenced)
        return account

    def table(self, table_id: str, expected_version: int | None = None) -> TableAggregate:
        return _expect(self._load(TableAggregate, table_id, "table", False), expected_version)

    def deal(self, deal_id: str, expected_version: int | None = None) -> DealAggregate:
        return _expect(self._load(DealAggregate, deal_id, "deal", False), expected_version)

    def account(self, account_id: UUID) -> Account:
        return self._load(Account, str(account_id), "account", False)

    # --- plumbing ----------------------------------------------------------------------

    def _command(self, name: str, request: Mapping[str, Any], key: str | None,
                 decide: Callable[[], Decision], *, secret: Sequence[str] = ()) -> Outcome:
        """Decide and save once, retried from fresh state after a lost race.

        With a key, the receipt is the save's last aggregate, so its event's position is
        the command's. A repeat is never looked for beforehand (it is rare): a repeated
        command either fails to decide (it is out of turn now, its If-Match is stale...) or
        its save conflicts on the receipt, which already exists; only then is the receipt
        read, and its first answer given (docs/decisions.md 69).
        """
        request_hash = hashlib.sha256(json.dumps([name, request], sort_keys=True,
                                                 default=str).encode()).hexdigest()
        for attempt in range(self.attempts):
            self._reads.shared, self._reads.mine = {}, {}
            try:
                with event_clock.using(self.clock):
                    aggregates, result = decide()
                    kept = {k: None if k in secret else v for k, v in result.items()}
                    receipt = Receipt.record(key, request_hash, kept) if key is not None \
                        else None
                self.settle_token_check()
                recordings = self.save(*aggregates, receipt)
            except PontoonError:  # refused now: a repeat of a command applied before?
                if key is not None and (repeat := self._repeat(key, request_hash)):
                    return repeat
                raise
            except VersionConflict:
                if key is not None and (repeat := self._repeat(key, request_hash)):
                    return repeat
                # Lost a race: wait a little, longer each time, and decide again from
                # fresh state (jitter keeps racing threads from colliding in step).
                self.race_lost(name)
                time.sleep(random.uniform(0, 0.002 * 2 ** min(attempt, 6)))
                continue
            finally:
                self._reads.shared = self._reads.mine = None
            # Committed: from here on nothing turns the command into an error (a commit is
            # final; application/eventstore/saving.py).
            saved = {a.id: a for a in aggregates if a is not None}
            self.after_commit("cache", self.cache.keep, saved.values())
            position = max((r.notification.id for r in recordings), default=None)
            return Outcome(result, position, saved)
        raise Conflict(f"the {name.replace('_', ' ')} lost a race with other commands "
                       f"{self.attempts} times; send it again")

    def _repeat(self, key: str, request_hash: str) -> Outcome | None:
        """The first answer to a command with this key, if there was one."""
        try:
            stored = self.repository.get(receipt_id(key))
        except AggregateNotFoundError:
            return None
        receipt = of_kind(stored, Receipt, "the aggregate saved under a command's receipt id")
        if receipt.request_hash != request_hash:
            raise NotAllowed("this Idempotency-Key was already used for a different command; "
                             "use a new key for a new command")
        # Noted by a second save before docs/decisions.md 69; now the receipt's own position.
        position = receipt.position
        if position is None:
            position = self._position_of(receipt.id)
        return Outcome(receipt.result, position)

    def _position_of(self, receipt_key: UUID) -> int | None:
        exact = getattr(self.recorder, "position_of", None)
        if exact is not None:
            found: int | None = exact(receipt_key, 1)
            return found
        head: int | None = self.recorder.max_notification_id()
        return head  # the in-memory store: an upper bound

    def _accounts_of(self, player_ids: Iterable[str], *, referenced: bool = False
                     ) -> dict[UUID, Account]:
        accounts = {}
        player_ids = list(player_ids)
        self._read_ahead(*player_ids)
        for player_id in player_ids:
            account = self.player_account(player_id, referenced=referenced)
            accounts[account.id] = account
        return accounts

    def _post(self, accounts: dict[UUID, Account],
              postings: Iterable[tuple[Posting, tuple[UUID, int, int], str | None, str | None]]
              ) -> list[str]:
        """Debit and credit each posting's accounts.

        Two sides have no entries of their own: a deal's escrow lives in its deal, and the
        treasury's side of a posting is its counterpart's entry (the treasury holds minus
        every chip in circulation, so its balance is derived, never saved): buy-ins and
        cash-outs for different players then never contend for one treasury aggregate.
        """
        ids = []
        postings = list(postings)
        self._read_ahead(*(_account_id(name) for posting, *_ in postings
                           for name in (posting.from_account, posting.to_account)
                           if name != TREASURY))
        for posting, source, deal_id, table_id in postings:
            posting_id = new_posting_id(*source)
            ids.append(posting_id)
            for credit, name in ((False, posting.from_account), (True, posting.to_account)):
                account_id = _account_id(name)
                if account_id is None or name == TREASURY:
                    continue
                account = accounts.get(account_id)
                if account is None:
                    account = accounts[account_id] = self.account(account_id)
                account.move(credit=credit, posting_id=posting_id, amount=posting.amount,
                             from_account=posting.from_account, to_account=posting.to_account,
                             rule=posting.rule, reason=posting.reason, deal_id=deal_id,
                             table_id=table_id, hand=posting.hand)
        return ids

def _postings_of(decided: list[f.Fact], source_id: UUID, first_version: int,
                 deal_id: str | None, table_id: str | None
                 ) -> list[tuple[Posting, tuple[UUID, int, int], str | None, str | None]]:
    """Each posting with a stable id source: the event that carries it and its place there."""
    out = []
    for offset, fact in enumerate(decided):
        for index, posting in enumerate(fact.carried_postings()):
            out.append((posting, (source_id, first_version + offset, index), deal_id,
                        table_id))
    return out


def _account_id(name: str) -> UUID | None:
    kind, _, key = name.partition(":")
    if kind == "player":
        return UUID(key)
    if kind == "kitty":
        return kitty_id(key)
    if name == TREASURY:
        return TREASURY_ID
    return None  # escrow:<deal>


def _expect(aggregate: A, version: int | None) -> A:
    """If-Match: refuse a command sent against a version that has since moved on."""
    if version is not None and aggregate.version != version:
        raise Conflict(f"it has changed since version {version} (now {aggregate.version}); "
                       "read it again and decide again")
    return aggregate


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
