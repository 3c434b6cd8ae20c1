"""The ledger's consistency boundaries, event-sourced on the `eventsourcing` library.

`DealAggregate` and `TableAggregate` record the rules engine's facts as events of the same
name: each event carries its fact's fields in `fact` and applies it to the engine object
the aggregate holds, so replaying events rebuilds exactly the engine's state. `Account`
holds one balance (a player's, the treasury's or a table's kitty) moved by postings.
Receipts remember idempotent commands. See docs/architecture.md.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Self
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from eventsourcing.domain import Aggregate

from domain import facts as f
from domain.deal import Deal
from domain.errors import InsufficientChips
from domain.table import Table

TREASURY_ID = uuid5(NAMESPACE_URL, "/pontoon/accounts/treasury")

# Postings that spend a player's own chips: never allowed to overdraw (R11.2). Everything
# else (settlement, collections, returns) may leave a debt (R11.3).
SPENDING_RULES = frozenset({"R3.5", "R4.3", "R5.1", "R9.1", "R9.3", "R9.5", "R9.6", "R9.9",
                            "R8.2", "R9.10", "R11.1"})


def kitty_id(table_id: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/pontoon/accounts/kitty/{table_id}")


def token_id(token_hash: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/pontoon/tokens/{token_hash}")


def posting_id(source_id: UUID, version: int, index: int) -> str:
    """A posting's id: the event that carries it and its place there, so both accounts and
    the deal agree on it."""
    return str(uuid5(NAMESPACE_URL, f"/pontoon/postings/{source_id}:{version}:{index}"))


def receipt_id(key: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/pontoon/idempotency/{key}")


class _FactAggregate(Aggregate):
    """Shared by deals and tables: the engine decides on a copy, events apply its facts."""

    if TYPE_CHECKING:  # set by the created event; no dataclass fields on aggregates
        engine: Any

    class Event(Aggregate.Event):
        fact: dict[str, Any]
        actor: str | None  # who sent the command: "player:<id>", "operator:<token>", ...

        def apply(self, aggregate: Any) -> None:
            aggregate.engine.apply(f.Fact.from_dict(type(self).__name__, self.fact))

    def trial(self) -> Any:
        """A copy of the engine to decide on: a refusal then leaves the aggregate untouched."""
        return copy.deepcopy(self.engine)

    def record(self, decided: list[f.Fact], actor: str | None = None) -> None:
        for fact in decided:
            self.trigger_event(getattr(type(self), fact.type), fact=fact.to_dict(), actor=actor)

    id_field = ""  # the field of the first fact that names the aggregate

    @classmethod
    def begin(cls, decided: list[f.Fact], actor: str | None = None) -> Self:
        """Create the aggregate with its first fact, then record the others."""
        opened = decided[0].to_dict()
        aggregate = cls._create(getattr(cls, decided[0].type), id=UUID(opened[cls.id_field]),
                                fact=opened, actor=actor)
        aggregate.record(decided[1:], actor)
        return aggregate


def _note_end(self: Any, aggregate: Any) -> None:
    """A settled or void deal remembers when, and at which version, for its postings' ids."""
    _FactAggregate.Event.apply(self, aggregate)
    aggregate.ended = {"at": self.timestamp.isoformat(), "version": self.originator_version}


class DealAggregate(_FactAggregate):
    """One deal: cards, stakes, shoot bets, turns and its settlement (R3–R9)."""

    if TYPE_CHECKING:
        engine: Deal
        ended: dict[str, Any]  # when and at which version the deal settled or was void

    class DealStarted(Aggregate.Created):
        fact: dict[str, Any]
        actor: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.engine, aggregate.ended = Deal(), None
            aggregate.engine.apply(f.Fact.from_dict("DealStarted", self.fact))

    class CardDealt(_FactAggregate.Event): ...
    class StakePlaced(_FactAggregate.Event): ...
    class BankerDoubled(_FactAggregate.Event): ...
    class BankerDeclinedToDouble(_FactAggregate.Event): ...
    class ShootBetPlaced(_FactAggregate.Event): ...
    class ShootPassed(_FactAggregate.Event): ...
    class CardBought(_FactAggregate.Event): ...
    class HandTwisted(_FactAggregate.Event): ...
    class HandSplit(_FactAggregate.Event): ...
    class HandBurned(_FactAggregate.Event): ...
    class HandStuck(_FactAggregate.Event): ...
    class HandFinished(_FactAggregate.Event): ...
    class HandBusted(_FactAggregate.Event): ...
    class PlayersTurnsBegan(_FactAggregate.Event): ...
    class BankerTurnBegan(_FactAggregate.Event): ...
    class BankerStayed(_FactAggregate.Event): ...

    class DealSettled(_FactAggregate.Event):
        apply = _note_end

    class DealVoided(_FactAggregate.Event):
        apply = _note_end

    id_field = "deal_id"


class TableAggregate(_FactAggregate):
    """A table between deals: seats, banker, kitty, pack order and shuffles (R1, R3, R8, R9)."""

    if TYPE_CHECKING:
        engine: Table

    class TableOpened(Aggregate.Created):
        fact: dict[str, Any]
        actor: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.engine = Table()
            aggregate.engine.apply(f.Fact.from_dict("TableOpened", self.fact))

    class PackArranged(_FactAggregate.Event): ...
    class PackShuffled(_FactAggregate.Event): ...
    class PlayerSeated(_FactAggregate.Event): ...
    class PlayerLeft(_FactAggregate.Event): ...

    class KittyPutUp(_FactAggregate.Event):
        """Version 2 names the rule: R9.1 for a new kitty, R9.9 for a top-up."""

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            fact = state["fact"]
            fact["rule"] = "R9.1" if fact["amount"] == fact["kitty_after"] else "R9.9"
            fact["posting"]["rule"] = fact["rule"]

    class BankSold(_FactAggregate.Event): ...
    class AuctionOpened(_FactAggregate.Event): ...
    class BidPlaced(_FactAggregate.Event): ...
    class AuctionClosed(_FactAggregate.Event): ...
    class DealOpened(_FactAggregate.Event): ...
    class DealEnded(_FactAggregate.Event): ...
    class KittyCorrected(_FactAggregate.Event): ...

    id_field = "table_id"


class Account(Aggregate):
    """One balance: a player's chips, the club treasury, or a table's kitty (R11)."""

    if TYPE_CHECKING:
        kind: str
        owner: str | None
        name: str | None
        balance: int

    class Opened(Aggregate.Created):
        kind: str  # player | treasury | kitty
        owner: str | None  # the player's or the table's id
        name: str | None

        def apply(self, account: Any) -> None:
            account.kind, account.owner, account.name = self.kind, self.owner, self.name
            account.balance = 0

    class Moved(Aggregate.Event):
        posting_id: str
        amount: int
        from_account: str
        to_account: str
        rule: str
        reason: str
        deal_id: str | None
        table_id: str | None
        hand: int | None
        balance_after: int

        def apply(self, account: Any) -> None:
            account.balance = self.balance_after

    class Credited(Moved): ...
    class Debited(Moved): ...

    @classmethod
    def open(cls, *, id: UUID, kind: str, owner: str | None, name: str | None) -> Account:  # noqa: A002
        return cls._create(cls.Opened, id=id, kind=kind, owner=owner, name=name)

    def move(self, *, credit: bool, posting_id: str, amount: int, from_account: str,
             to_account: str, rule: str, reason: str, deal_id: str | None,
             table_id: str | None, hand: int | None) -> None:
        """Credit or debit one posting; spending never overdraws (R11.2), settling may (R11.3)."""
        change = amount if credit else -amount
        if not credit and rule in SPENDING_RULES and self.kind == "player" \
                and self.balance < amount:
            raise InsufficientChips(f"{self.name or self.owner} holds {self.balance} chips and "
                                    f"cannot pay {amount} (R11.2)")
        self.trigger_event(self.Credited if credit else self.Debited, posting_id=posting_id,
                           amount=amount, from_account=from_account, to_account=to_account,
                           rule=rule, reason=reason, deal_id=deal_id, table_id=table_id,
                           hand=hand, balance_after=self.balance + change)


class Receipt(Aggregate):
    """An idempotent command's key, what it asked and what it answered (API.md)."""

    if TYPE_CHECKING:
        request_hash: str
        result: dict[str, Any]
        position: int | None

    class Recorded(Aggregate.Created):
        request_hash: str
        result: dict[str, Any]

        def apply(self, receipt: Any) -> None:
            receipt.request_hash, receipt.result, receipt.position = \
                self.request_hash, self.result, None

    class PositionNoted(Aggregate.Event):
        position: int

        def apply(self, receipt: Any) -> None:
            receipt.position = self.position

    @classmethod
    def record(cls, key: str, request_hash: str, result: dict[str, Any]) -> Receipt:
        return cls._create(cls.Recorded, id=receipt_id(key), request_hash=request_hash,
                           result=result)

    def note_position(self, position: int) -> None:
        self.trigger_event(self.PositionNoted, position=position)


class Token(Aggregate):
    """A bearer token's principal. Only the token's SHA-256 is stored, never the token."""

    if TYPE_CHECKING:
        role: str
        player_id: str | None
        principal_id: str

    class Issued(Aggregate.Created):
        """Version 2 gives the principal a random id to show as the actor of its commands:
        the aggregate's own id derives from the token's hash, so it must not be shown."""

        role: str  # treasurer | operator | player
        player_id: str | None
        principal_id: str
        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["principal_id"] = str(state["originator_id"])

        def apply(self, token: Any) -> None:
            token.role, token.player_id = self.role, self.player_id
            token.principal_id = self.principal_id

    @classmethod
    def issue(cls, token_hash: str, role: str, player_id: str | None) -> Token:
        return cls._create(cls.Issued, id=token_id(token_hash), role=role, player_id=player_id,
                           principal_id=str(uuid4()))


class Dispute(Aggregate):
    """A dispute about a deal; resolved by the treasurer, never by editing history (R11.4)."""

    if TYPE_CHECKING:
        deal_id: str
        raised_by: str
        reason: str
        status: str
        decision: str | None
        note: str | None
        corrections: list[dict[str, Any]]

    class Raised(Aggregate.Created):
        deal_id: str
        raised_by: str
        reason: str

        def apply(self, dispute: Any) -> None:
            dispute.deal_id, dispute.raised_by, dispute.reason = \
                self.deal_id, self.raised_by, self.reason
            dispute.status, dispute.decision, dispute.note, dispute.corrections = \
                "open", None, None, []

    class Resolved(Aggregate.Event):
        decision: str  # upheld | rejected
        note: str
        corrections: list[dict[str, Any]]  # postings: from_account, to_account, amount, id
        resolved_by: str

        def apply(self, dispute: Any) -> None:
            dispute.status, dispute.decision, dispute.note, dispute.corrections = \
                "resolved", self.decision, self.note, list(self.corrections)

    @classmethod
    def raise_about(cls, *, id: UUID, deal_id: str, raised_by: str, reason: str  # noqa: A002
                    ) -> Dispute:
        return cls._create(cls.Raised, id=id, deal_id=deal_id, raised_by=raised_by,
                           reason=reason)

    def resolve(self, *, decision: str, note: str, corrections: list[dict[str, Any]],
                resolved_by: str) -> None:
        self.trigger_event(self.Resolved, decision=decision, note=note,
                           corrections=corrections, resolved_by=resolved_by)
