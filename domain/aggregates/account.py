"""An account: one balance moved by postings (R11)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.aggregates.base import CheapCopy, pinned
from domain.errors import InsufficientChips

# Postings that spend a player's own chips: never allowed to overdraw (R11.2). Everything
# else (settlement, collections, returns) may leave a debt (R11.3).
SPENDING_RULES = frozenset({"R3.5", "R4.3", "R5.1", "R9.1", "R9.3", "R9.5", "R9.6", "R9.9",
                            "R8.2", "R9.10", "R11.1"})


@pinned
class Account(CheapCopy, Aggregate):
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


