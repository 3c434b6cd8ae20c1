"""The ledger application's foundations: loading, posting chips, and running a command.

Every command saves every aggregate it changed in one atomic `save()`, so a stake is never
recorded without its chip debit and a settlement is never half-written. A command that loses
a race (another save moved an aggregate's version first) is retried from a fresh read a
bounded number of times, then refused as a conflict. A command given an idempotency key is
applied at most once: its receipt is saved in the same transaction as its events.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, JSONTranscoder, Transcoding

from domain.aggregates import (
    TREASURY_ID,
    Account,
    DealAggregate,
    Receipt,
    TableAggregate,
    kitty_id,
    receipt_id,
)
from domain.aggregates import (
    posting_id as new_posting_id,
)
from domain.engine import facts as f
from domain.engine.postings import TREASURY, Posting
from domain.engine.table import Table
from domain.errors import Conflict, NotAllowed, NotFound

A = TypeVar("A", bound=Aggregate)


@dataclass(frozen=True)
class Outcome:
    """What a command answers: a JSON-safe result and the position of its last event."""

    result: dict[str, Any]
    position: int | None


class _TableState(Transcoding):
    """Snapshots of a table hold the engine's state as plain JSON."""

    type = Table
    name = "pontoon_table"

    def encode(self, obj: Table) -> dict[str, Any]:
        return obj.to_state()

    def decode(self, data: dict[str, Any]) -> Table:
        return Table.from_state(data)


Decision = tuple[Sequence[Aggregate | None], dict[str, Any]]


class LedgerBase(Application[UUID]):
    """What every command of the Ledger stands on; the commands are in application.py."""

    snapshotting_intervals = {TableAggregate: 100, Account: 100}  # noqa: RUF012

    def __init__(self, env: Mapping[str, str] | None = None, *,
                 new_seed: Callable[[], str] | None = None, attempts: int = 12) -> None:
        super().__init__(env)
        self.new_seed = new_seed or (lambda: secrets.token_hex(32))
        self.attempts = attempts
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
        request_hash = hashlib.sha256(json.dumps([name, request], sort_keys=True,
                                                 default=str).encode()).hexdigest()
        for attempt in range(self.attempts):
            try:
                if key is not None:
                    repeated = self._repeat(key, request_hash)
                    if repeated is not None:
                        return repeated
                aggregates, result = decide()
                kept = {k: None if k in secret else v for k, v in result.items()}
                receipt = Receipt.record(key, request_hash, kept) if key is not None else None
                recordings = self.save(*aggregates, receipt)
            except IntegrityError:
                # Lost a race: wait a little, longer each time, and decide again from
                # fresh state (jitter keeps racing threads from colliding in step).
                self.race_lost(name)
                time.sleep(random.uniform(0, 0.002 * 2 ** min(attempt, 6)))
                continue
            position = max((r.notification.id for r in recordings), default=None)
            if receipt is not None and position is not None:
                self._note_position(receipt, position)
            return Outcome(result, position)
        raise Conflict(f"the {name.replace('_', ' ')} lost a race with other commands "
                       f"{self.attempts} times; send it again")

    def _repeat(self, key: str, request_hash: str) -> Outcome | None:
        try:
            receipt: Any = self.repository.get(receipt_id(key))
        except AggregateNotFoundError:
            return None
        assert isinstance(receipt, Receipt)
        if receipt.request_hash != request_hash:
            raise NotAllowed("this Idempotency-Key was already used for a different command; "
                             "use a new key for a new command")
        position = receipt.position
        if position is None:  # the first answer's position was not noted: a safe upper bound
            position = self.recorder.max_notification_id()
        return Outcome(receipt.result, position)

    def _note_position(self, receipt: Receipt, position: int) -> None:
        """Remember the first answer's position, so a repeat answers it exactly."""
        receipt.note_position(position)
        with contextlib.suppress(IntegrityError):  # another repeat noted it first
            self.save(receipt)

    def _load(self, cls: type[A], aggregate_id: str, what: str, referenced: bool) -> A:
        try:
            aggregate: Any = self.repository.get(UUID(str(aggregate_id)))
        except (AggregateNotFoundError, ValueError):
            raise _missing(what, aggregate_id, referenced) from None
        if not isinstance(aggregate, cls):
            raise _missing(what, aggregate_id, referenced)
        return aggregate

    def _accounts_of(self, player_ids: Iterable[str], *, referenced: bool = False
                     ) -> dict[UUID, Account]:
        accounts = {}
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


def _missing(what: str, aggregate_id: str, referenced: bool) -> Exception:
    if referenced:
        return NotAllowed(f"there is no {what} {aggregate_id}")
    return NotFound(f"there is no {what} {aggregate_id}")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
