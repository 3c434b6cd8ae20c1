"""The simulated club's staff at the ledger: every command of a simulated night goes through
the real `Ledger`, in this process, and the chips each player holds are read off the
commands' own answers (`Outcome.saved`), so choosing an action costs no read of the store.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TypeVar
from uuid import NAMESPACE_URL, UUID, uuid5

from application import Ledger, Outcome
from domain.aggregates import Account, DealAggregate, TableAggregate
from domain.errors import of_kind

T = TypeVar("T")

# The simulated club's staff have no tokens (nobody could use one): their commands name
# these principals as the actors, in the form the API gives a token's principal.
TREASURER = f"treasurer:{uuid5(NAMESPACE_URL, '/pontoon/simulation/treasurer')}"
OPERATOR = f"operator:{uuid5(NAMESPACE_URL, '/pontoon/simulation/operator')}"


@dataclass
class Tally:
    """What a simulated history played, for its summary and its mark."""

    nights: int = 0
    players: int = 0
    tables_opened: int = 0
    settled: int = 0
    void: int = 0
    actions: int = 0
    buy_ins: int = 0
    chips_issued: int = 0
    cash_outs: int = 0
    chips_redeemed: int = 0
    kitties: int = 0
    sales: int = 0
    auctions: int = 0
    disputes: int = 0
    upheld: int = 0
    rejected: int = 0
    debts_left: int = 0
    refusals: int = 0

    @property
    def deals(self) -> int:
        return self.settled + self.void

    def as_run(self) -> dict[str, int]:
        return {**{k: v for k, v in vars(self).items() if isinstance(v, int)},
                "deals": self.deals}


class Books:
    """The ledger, the bots' randomness, and each player's chips as the ledger left them."""

    def __init__(self, ledger: Ledger, rng: random.Random) -> None:
        self.ledger, self.rng = ledger, rng
        self.chips: dict[str, int] = {}
        self.tally = Tally()

    def absorb(self, outcome: Outcome) -> Outcome:
        """Note the balances a command left (every account it moved, it saved)."""
        for saved in outcome.saved.values():
            if isinstance(saved, Account) and saved.kind == "player" and saved.owner:
                self.chips[saved.owner] = saved.balance
        return outcome

    @staticmethod
    def saved(outcome: Outcome, cls: type[T], aggregate_id: str) -> T:
        return of_kind(outcome.saved.get(UUID(aggregate_id)), cls,
                       "an aggregate a command saved under its id")

    def table_after(self, outcome: Outcome, table_id: str) -> TableAggregate:
        return self.saved(outcome, TableAggregate, table_id)

    def deal_after(self, outcome: Outcome, deal_id: str) -> DealAggregate:
        return self.saved(outcome, DealAggregate, deal_id)

    # --- the cash desk -----------------------------------------------------------------

    def register(self, name: str) -> str:
        player_id = str(self.ledger.register_player(name).result["id"])
        self.chips[player_id] = 0
        self.tally.players += 1
        return player_id

    def buy_in(self, player_id: str, amount: int) -> None:
        """Chips for cash; a player in debt pays it off first (R11.1, R11.3)."""
        if amount > 0:
            self.absorb(self.ledger.buy_in(player_id, amount))
            self.tally.buy_ins += 1
            self.tally.chips_issued += amount

    def cash_out(self, player_id: str, amount: int) -> None:
        if amount > 0:
            self.absorb(self.ledger.cash_out(player_id, amount))
            self.tally.cash_outs += 1
            self.tally.chips_redeemed += amount

    def settle_up(self, player_id: str) -> None:
        """The end of a player's night: chips held are cashed (now and then kept for next
        time), a debt paid (now and then left standing, R11.3)."""
        held = self.chips.get(player_id, 0)
        if held > 0 and self.rng.random() < 0.9:
            self.cash_out(player_id, held)
        elif held < 0:
            if self.rng.random() < 0.7:
                self.buy_in(player_id, -held)
            else:
                self.tally.debts_left += 1
