"""The ledger application: one method per command of API.md; load, decide, save once.

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
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, JSONTranscoder, Transcoding

from domain import facts as f
from domain.aggregates import (
    TREASURY_ID,
    Account,
    DealAggregate,
    Dispute,
    Receipt,
    TableAggregate,
    Token,
    kitty_id,
    receipt_id,
    token_id,
)
from domain.aggregates import (
    posting_id as new_posting_id,
)
from domain.errors import Conflict, NotAllowed, NotFound, NotNow
from domain.ledger import TREASURY, Posting, check_amount, player_account
from domain.table import Table

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


class Ledger(Application[UUID]):
    name = "Ledger"
    snapshotting_intervals = {TableAggregate: 100, Account: 100}  # noqa: RUF012

    def __init__(self, env: Mapping[str, str] | None = None, *,
                 new_seed: Callable[[], str] | None = None, attempts: int = 12) -> None:
        super().__init__(env)
        self.new_seed = new_seed or (lambda: secrets.token_hex(32))
        self.attempts = attempts

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        transcoder.register(_TableState())

    # --- players and chips -------------------------------------------------------------

    def register_player(self, name: str, *, key: str | None = None,
                        with_token: bool = False) -> Outcome:
        """A player and their chip account; with a bearer token of their own if asked."""
        def decide() -> Decision:
            player_id = uuid4()
            account = Account.open(id=player_id, kind="player", owner=str(player_id),
                                   name=name)
            if not with_token:
                return [account], {"id": str(player_id), "name": name}
            secret = "pt_" + secrets.token_urlsafe(32)
            token = Token.issue(_hash(secret), "player", str(player_id))
            return [account, token], {"id": str(player_id), "name": name, "token": secret}
        return self._command("register_player", {"name": name, "with_token": with_token}, key,
                             decide, secret=("token",))

    def buy_in(self, player_id: str, amount: int, *, key: str | None = None) -> Outcome:
        """The treasurer issues chips to a player (R11.1)."""
        return self._chips("buy_in", player_id, amount, key, issue=True)

    def cash_out(self, player_id: str, amount: int, *, key: str | None = None) -> Outcome:
        """The treasurer redeems a player's chips; never more than they hold (R11.1, R11.2)."""
        return self._chips("cash_out", player_id, amount, key, issue=False)

    def _chips(self, command: str, player_id: str, amount: int, key: str | None, *,
               issue: bool) -> Outcome:
        def decide() -> Decision:
            player = self.player_account(player_id)
            check_amount(amount, "a buy-in" if issue else "a cash-out", "R11.1")
            treasury = self._treasury()
            name = player.name or player_id
            posting = Posting(TREASURY, player_account(player_id), amount, "R11.1",
                              f"the treasurer issues {amount} chips to {name}") if issue else \
                Posting(player_account(player_id), TREASURY, amount, "R11.1",
                        f"the treasurer redeems {amount} chips from {name}")
            accounts = {player.id: player, treasury.id: treasury}
            [posting_id] = self._post(accounts, [(posting, (player.id, player.version + 1, 0),
                                                  None, None)])
            return list(accounts.values()), {"posting_id": posting_id, "balance": player.balance,
                                             "player_id": player_id}
        return self._command(command, {"player_id": player_id, "amount": amount}, key, decide)

    # --- tokens ------------------------------------------------------------------------

    ROLES = ("treasurer", "operator", "player")

    def create_token(self, role: str, *, player_id: str | None = None,
                     token: str | None = None, key: str | None = None) -> Outcome:
        """Issue a bearer token for a role; the answer shows the token once (API.md).

        `token` adopts a token chosen outside, such as PONTOON_TREASURER_TOKEN.
        """
        if role not in self.ROLES:
            raise NotAllowed(f"role must be one of {', '.join(self.ROLES)}")
        if (role == "player") != (player_id is not None):
            raise NotAllowed("a player token names its player, and only a player token does")

        def decide() -> Decision:
            if player_id is not None:
                self.player_account(player_id, referenced=True)
            secret = token or "pt_" + secrets.token_urlsafe(32)
            answer = {"token": secret, "role": role, "player_id": player_id}
            known = self.principal(secret) if token is not None else None
            if known is not None:  # adopting a token already adopted changes nothing
                if (known.role, known.player_id) != (role, player_id):
                    raise NotAllowed("this token already belongs to another principal")
                return [], answer
            return [Token.issue(_hash(secret), role, player_id)], answer
        # The receipt must not keep the secret: a repeat names the role only.
        request = {"role": role, "player_id": player_id,
                   "adopted": _hash(token) if token is not None else None}
        return self._command("create_token", request, key, decide, secret=("token",))

    def principal(self, token: str) -> Token | None:
        """Who holds `token`, or None for an unknown token."""
        try:
            found: Any = self.repository.get(token_id(_hash(token)))
        except AggregateNotFoundError:
            return None
        return found if isinstance(found, Token) else None

    # --- tables ------------------------------------------------------------------------

    def open_table(self, *, name: str, seats: Sequence[str], banker: str | None = None,
                   rules: Mapping[str, Any] | None = None,
                   pack: Mapping[str, Any] | None = None, key: str | None = None,
                   actor: str | None = None) -> Outcome:
        request = {"name": name, "seats": list(seats), "banker": banker,
                   "rules": dict(rules or {}), "pack": dict(pack or {})}

        def decide() -> Decision:
            for seat in seats:
                self.player_account(seat, referenced=True)
            table_id = str(uuid4())
            _, decided = Table.open(table_id=table_id, name=name, seats=seats, banker=banker,
                                    rules=rules, pack=pack, seed=self.new_seed())
            table = TableAggregate.begin(decided, actor)
            kitty = Account.open(id=kitty_id(table_id), kind="kitty", owner=table_id,
                                 name=f"kitty of {name}") if table.engine.rules.shoot else None
            return [table, kitty], {"table_id": table_id, "version": table.version}
        return self._command("open_table", request, key, decide)

    def seat_player(self, table_id: str, player_id: str, after: str | None = None, *,
                    key: str | None = None, actor: str | None = None,
                    expected_version: int | None = None) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            self.player_account(player_id, referenced=True)
            table.record(table.trial().seat(player_id, after), actor)
            return [table], {"table_id": table_id, "version": table.version}
        return self._command("seat_player", {"table_id": table_id, "player_id": player_id,
                                             "after": after}, key, decide)

    def remove_player(self, table_id: str, player_id: str, *, key: str | None = None,
                      actor: str | None = None, expected_version: int | None = None
                      ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            table.record(table.trial().leave(player_id), actor)
            return [table], {"table_id": table_id, "version": table.version}
        return self._command("remove_player", {"table_id": table_id, "player_id": player_id},
                             key, decide)

    def put_up_kitty(self, table_id: str, player_id: str, amount: int, *,
                     key: str | None = None, actor: str | None = None,
                     expected_version: int | None = None) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            accounts = self._accounts_of([player_id], referenced=True)
            chips = accounts[UUID(player_id)].balance
            return self._table_change(table, table.trial().put_up_kitty(player_id, amount, chips),
                                      accounts, actor)
        return self._command("put_up_kitty", {"table_id": table_id, "player_id": player_id,
                                              "amount": amount}, key, decide)

    def sell_bank(self, table_id: str, buyer_id: str, price: int, *,
                  seller: str | None = None, key: str | None = None,
                  actor: str | None = None, expected_version: int | None = None) -> Outcome:
        """R8.2; `seller`: the banker the request was made for (a race must not sell
        another banker's bank)."""
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            accounts = self._accounts_of([buyer_id], referenced=True)
            chips = accounts[UUID(buyer_id)].balance
            decided = table.trial().sell_bank(buyer_id, price, chips, seller=seller)
            return self._table_change(table, decided, accounts, actor)
        return self._command("sell_bank", {"table_id": table_id, "buyer_id": buyer_id,
                                           "price": price, "seller": seller}, key, decide)

    def open_auction(self, table_id: str, player_id: str, *, key: str | None = None,
        actor: str | None = None, expected_version: int | None = None
                     ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            return self._table_change(table, table.trial().open_auction(player_id), {}, actor)
        return self._command("open_auction", {"table_id": table_id, "player_id": player_id},
                             key, decide)

    def bid(self, table_id: str, player_id: str, price: int, *, key: str | None = None,
        actor: str | None = None, expected_version: int | None = None
            ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            accounts = self._accounts_of([player_id], referenced=True)
            chips = accounts[UUID(player_id)].balance
            return self._table_change(table, table.trial().bid(player_id, price, chips), {},
                                      actor)
        return self._command("bid", {"table_id": table_id, "player_id": player_id,
                                     "price": price}, key, decide)

    def close_auction(self, table_id: str, player_id: str, *, key: str | None = None,
        actor: str | None = None, expected_version: int | None = None
                      ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            bidders = sorted({bidder for bidder, _ in table.engine.auction or []})
            accounts = self._accounts_of(bidders)
            chips = {bidder: accounts[UUID(bidder)].balance for bidder in bidders}
            decided = table.trial().close_auction(player_id, chips)
            saved, result = self._table_change(table, decided, accounts, actor)
            closed = decided[0]
            assert isinstance(closed, f.AuctionClosed)
            return saved, {**result, "sold_to": closed.sold_to, "price": closed.price}
        return self._command("close_auction", {"table_id": table_id, "player_id": player_id},
                             key, decide)

    def _table_change(self, table: TableAggregate, decided: list[f.Fact],
                      accounts: dict[UUID, Account], actor: str | None) -> Decision:
        first = table.version + 1
        table.record(decided, actor)
        self._post(accounts, _postings_of(decided, table.id, first, None,
                                          table.engine.table_id))
        return [table, *accounts.values()], {"table_id": table.engine.table_id,
                                             "version": table.version}

    # --- deals -------------------------------------------------------------------------

    def start_deal(self, table_id: str, *, cards: Sequence[str] | None = None,
                   key: str | None = None, actor: str | None = None,
                   expected_version: int | None = None) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            others = [p for p in table.engine.seats if p != table.engine.banker]
            accounts = self._accounts_of(others)
            chips = {p: accounts[UUID(p)].balance for p in others}
            deal_id = str(uuid4())
            deal_engine, table_facts, deal_facts = table.trial().start_deal(
                deal_id=deal_id, chips=chips, seed=self.new_seed(), cards=cards)
            table.record(table_facts, actor)
            deal = DealAggregate.begin(deal_facts, actor)
            saved = self._after_deal_facts(deal, table, deal_facts, 1, {}, actor)
            return saved, {"deal_id": deal_id, "table_id": table_id, "version": deal.version}
        return self._command("start_deal", {"table_id": table_id, "cards": cards}, key, decide)

    def act(self, deal_id: str, player_id: str, action: str, *, hand: int | None = None,
            amount: int | None = None, cards: Sequence[str] | None = None,
            key: str | None = None, actor: str | None = None,
            expected_version: int | None = None) -> Outcome:
        """One action of a deal (API.md); chips are checked against the player's account."""
        request = {"deal_id": deal_id, "player_id": player_id, "action": action, "hand": hand,
                   "amount": amount, "cards": cards}

        def decide() -> Decision:
            deal = self.deal(deal_id, expected_version)
            accounts = self._accounts_of([player_id], referenced=True)
            chips = accounts[UUID(player_id)].balance
            first = deal.version + 1
            decided = deal.trial().act(player_id, action, hand=hand, amount=amount,
                                       cards=cards, chips=chips)
            deal.record(decided, actor)
            saved = self._after_deal_facts(deal, None, decided, first, accounts, actor)
            return saved, {"deal_id": deal_id, "version": deal.version}
        return self._command("act", request, key, decide)

    def _after_deal_facts(self, deal: DealAggregate, table: TableAggregate | None,
                          decided: list[f.Fact], first: int, accounts: dict[UUID, Account],
                          actor: str | None) -> list[Aggregate | None]:
        """Post the facts' chips; when the deal ended, the table takes back banker and pack."""
        engine = deal.engine
        self._post(accounts, _postings_of(decided, deal.id, first, engine.deal_id,
                                          engine.table_id))
        if engine.is_over:
            table = table or self.table(engine.table_id)
            if table.engine.deal_id != engine.deal_id:
                # The table was read after a rival command ended this deal: the deal we
                # decided on is stale. Decide again from fresh state.
                raise IntegrityError(f"deal {engine.deal_id} already ended at its table")
            table.record(table.trial().end_deal(engine), actor)
        return [deal, table, *accounts.values()]

    # --- disputes ----------------------------------------------------------------------

    def raise_dispute(self, deal_id: str, reason: str, *, raised_by: str,
                      key: str | None = None) -> Outcome:
        """A player of the deal, an operator or the treasurer disputes a deal."""
        def decide() -> Decision:
            self.deal(deal_id)
            if not reason.strip():
                raise NotAllowed("a dispute needs a reason a treasurer can act on")
            dispute = Dispute.raise_about(id=uuid4(), deal_id=deal_id, raised_by=raised_by,
                                          reason=reason)
            return [dispute], {"id": str(dispute.id), "status": "open", "deal_id": deal_id}
        return self._command("raise_dispute", {"deal_id": deal_id, "reason": reason,
                                               "raised_by": raised_by}, key, decide)

    def resolve_dispute(self, dispute_id: str, *, decision: str, note: str,
                        corrections: Sequence[Mapping[str, Any]], resolved_by: str,
                        key: str | None = None) -> Outcome:
        """The treasurer upholds (with correcting postings) or rejects a dispute (R11.4).

        Corrections are new postings that reference the dispute; nothing recorded is changed.
        """
        request = {"dispute_id": dispute_id, "decision": decision, "note": note,
                   "corrections": [dict(c) for c in corrections], "resolved_by": resolved_by}

        def decide() -> Decision:
            dispute = self._load(Dispute, dispute_id, "dispute", False)
            if dispute.status != "open":
                raise NotNow(f"dispute {dispute_id} is already resolved ({dispute.decision})")
            if decision not in ("upheld", "rejected"):
                raise NotAllowed("a decision is upheld or rejected")
            if decision == "rejected" and corrections:
                raise NotAllowed("a rejected dispute makes no corrections")
            postings = [_correction(c, dispute_id, note) for c in corrections]
            accounts: dict[UUID, Account] = {}
            for posting in postings:
                for name in (posting.from_account, posting.to_account):
                    account_id = _account_id(name)
                    assert account_id is not None
                    if account_id not in accounts:
                        accounts[account_id] = self._correctable(name, account_id)
            tables = self._kitty_corrections(postings, dispute_id)
            version = dispute.version + 1
            ids = self._post(accounts, [(p, (dispute.id, version, i), dispute.deal_id, None)
                                        for i, p in enumerate(postings)])
            recorded = [{"id": pid, "from_account": p.from_account,
                         "to_account": p.to_account, "amount": p.amount}
                        for pid, p in zip(ids, postings, strict=True)]
            dispute.resolve(decision=decision, note=note, corrections=recorded,
                            resolved_by=resolved_by)
            return [dispute, *accounts.values(), *tables], {
                "id": dispute_id, "status": "resolved", "decision": decision,
                "corrections": recorded}
        return self._command("resolve_dispute", request, key, decide)

    def _correctable(self, name: str, account_id: UUID) -> Account:
        """The account a correction names, of the kind its name says (R11.4)."""
        if account_id == TREASURY_ID:
            return self._treasury()
        account = self._load(Account, str(account_id), "account", True)
        kind = name.partition(":")[0]
        if account.kind != kind:
            raise NotAllowed(f"{name} is not a {kind}'s account (R11.4)", "R11.4")
        return account

    def _kitty_corrections(self, postings: Sequence[Posting], dispute_id: str
                           ) -> list[TableAggregate]:
        """A correction into or out of a kitty also tells its table, whose kitty limits
        shoot bets (R9.2), in the same save."""
        changes: dict[str, int] = {}
        for posting in postings:
            for name, sign in ((posting.from_account, -1), (posting.to_account, 1)):
                if name.startswith("kitty:"):
                    table_id = name.removeprefix("kitty:")
                    changes[table_id] = changes.get(table_id, 0) + sign * posting.amount
        tables = []
        for table_id, change in changes.items():
            table = self._load(TableAggregate, table_id, "table", True)
            if change:
                table.record(table.trial().correct_kitty(change, dispute_id))
            tables.append(table)
        return tables

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

    def balance_at(self, player_id: str, *, at: datetime | None = None,
                   position: int | None = None) -> int:
        """A player's balance as it stood at a past time or global position (R11)."""
        account = self.player_account(player_id)
        if position is not None:
            return self._balance_at_position(account.id, position)
        if at is None:
            return account.balance
        for event in self.events.get(account.id, desc=True):
            if getattr(event, "timestamp") <= at:  # noqa: B009
                return int(getattr(event, "balance_after", 0))
        return 0

    def _balance_at_position(self, account_id: UUID, position: int) -> int:
        topics = [_topic(Account.Credited), _topic(Account.Debited)]
        balance, start = 0, 1
        while start <= position:
            page = self.recorder.select_notifications(start=start, limit=1000, stop=position,
                                                      topics=topics)
            for notification in page:
                if notification.originator_id == account_id:
                    event = self.mapper.to_domain_event(notification)
                    balance = int(getattr(event, "balance_after", balance))
            if len(page) < 1000:
                break
            start = page[-1].id + 1
        return balance

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

    def _treasury(self) -> Account:
        try:
            treasury: Any = self.repository.get(TREASURY_ID)
        except AggregateNotFoundError:
            return Account.open(id=TREASURY_ID, kind="treasury", owner=None, name="treasury")
        assert isinstance(treasury, Account)
        return treasury

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
        """Debit and credit each posting's accounts; the escrow lives in its deal."""
        ids = []
        for posting, source, deal_id, table_id in postings:
            posting_id = new_posting_id(*source)
            ids.append(posting_id)
            for credit, name in ((False, posting.from_account), (True, posting.to_account)):
                account_id = _account_id(name)
                if account_id is None:
                    continue
                account = accounts.get(account_id)
                if account is None:
                    account = self._treasury() if account_id == TREASURY_ID \
                        else self.account(account_id)
                    accounts[account_id] = account
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


def _correction(correction: Mapping[str, Any], dispute_id: str, note: str) -> Posting:
    """A correcting posting between real accounts (not a deal's escrow), R11.4."""
    source, target = str(correction.get("from_account")), str(correction.get("to_account"))
    amount = correction.get("amount")
    check_amount(amount, "a correction", "R11.4")
    for name in (source, target):
        if _account_id_or_none(name) is None:
            raise NotAllowed(f"{name} is not an account a correction can move chips to or "
                             "from: use player:<id>, kitty:<table id> or treasury (R11.4)",
                             "R11.4")
    if source == target:
        raise NotAllowed("a correction moves chips between two different accounts (R11.4)",
                         "R11.4")
    assert isinstance(amount, int)
    return Posting(source, target, amount, "R11.4",
                   f"correction decided in dispute {dispute_id}: {note}")


def _account_id_or_none(name: str) -> UUID | None:
    try:
        return _account_id(name)
    except ValueError:
        return None


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


def _topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"
