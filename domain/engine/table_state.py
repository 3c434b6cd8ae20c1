"""The state of a table between deals and how each table fact changes it.

`Table` (table.py) decides; this module records, so replaying facts rebuilds the table. It
also holds what every table command shares: recording facts and the between-deals check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Self

from domain.engine import facts as f
from domain.engine.rules import TableRules
from domain.engine.shuffle import mixed_seed, shuffle_pack
from domain.errors import NotNow, present

# The earlier packs a table keeps, newest last (R1.7): enough for its view. Every seed
# stays in its PackShuffled event, its deals' audits and the read models; a table played
# for years must not carry them all in every read, snapshot and answer (decision 92).
KEPT_PACKS = 10


class TableState(f.FactState):
    """Seats, banker, kitty, pack and shuffles, the open deal and any auction."""

    def __init__(self) -> None:
        self.table_id = ""
        self.name = ""
        self.seats: list[str] = []
        self.banker = ""
        self.rules = TableRules()
        self.pack_mode = "shuffled"
        self.pack: list[str] | None = None
        self.seed: str | None = None
        self.commitment: str | None = None
        # The last KEPT_PACKS earlier packs: commitment and seed (R1.7).
        self.revealed: list[dict[str, str]] = []
        self.shuffles = 0
        self.needs_shuffle = False
        # The players' randomness for the current pack, in the order recorded, and whether
        # more is taken: from its commitment until its first card (R1.7).
        self.contributions: list[dict[str, str]] = []
        self.contributions_open = False
        self.kitty = 0
        self.deals_played = 0
        self.deal_id: str | None = None
        self.auction: list[tuple[str, int]] | None = None  # bids in the order placed
        self.auction_failed = False  # closed without a sale: a kitty must come first (R9.10)
        self.kitty_emptied = False  # the kitty ran empty in play at the end of a deal (R9.10)
        self.cuts: list[dict[str, str]] = []
        self.version = 0

    # --- state for snapshots ------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """JSON-safe state, so a snapshot of a long-lived table never fails to encode."""
        state = dict(vars(self))
        state["rules"] = self.rules.to_dict()
        state["auction"] = None if self.auction is None else [list(b) for b in self.auction]
        return state

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Self:
        table = cls()
        table.__dict__.update(state)
        table.revealed = list(state["revealed"])[-KEPT_PACKS:]  # a snapshot from before 92
        table.rules = TableRules.from_dict(state["rules"])
        if state["auction"] is not None:
            table.auction = [(bidder, price) for bidder, price in state["auction"]]
        return table

    # --- reading -----------------------------------------------------------------------

    @property
    def fair_shuffle(self) -> bool:
        """An ordered table's reshuffles come from a seed every player can derive
        (docs/decisions.md): its packs are not a fair shuffle."""
        return self.pack_mode != "ordered"

    @property
    def kitty_needed(self) -> bool:
        return self.rules.shoot and self.kitty == 0

    def next_deal_number(self) -> int:
        return self.deals_played + 1

    # --- shared by commands ------------------------------------------------------------

    def _between_deals(self, what: str, rule: str) -> None:
        if self.deal_id is not None:
            raise NotNow(f"{what} only between deals (R3.1); a deal is open", rule)
        if self.auction is not None:
            raise NotNow("an auction of the bank is open: nothing else happens until the banker "
                         "closes it (R9.10)", "R9.10")

    def _record(self, *decided: f.Fact) -> list[f.Fact]:
        for fact in decided:
            self.apply(fact)
        return list(decided)

    # --- applying ----------------------------------------------------------------------

    def apply(self, fact: f.Fact) -> None:
        _APPLY[type(fact)](self, fact)
        self.version += 1

    def _opened(self, e: f.TableOpened) -> None:
        self.table_id, self.name, self.seats, self.banker = e.table_id, e.name, list(e.seats), \
            e.banker
        self.rules, self.pack_mode, self.cuts = TableRules.from_dict(e.rules), e.pack_mode, \
            list(e.cuts)

    def _arranged(self, e: f.PackArranged) -> None:
        self.pack = list(e.cards)

    def _shuffled(self, e: f.PackShuffled) -> None:
        if self.seed is not None and self.commitment is not None:
            self.revealed = [*self.revealed, {"commitment": self.commitment,
                                              "seed": self.seed}][-KEPT_PACKS:]
        self.seed, self.commitment = e.seed, e.commitment
        self.pack = shuffle_pack(e.seed, self.rules.packs)
        self.shuffles += 1
        self.needs_shuffle = False
        self.contributions = []
        self.contributions_open = self.pack_mode == "shuffled"

    def _contributed(self, e: f.ContributionAdded) -> None:
        seed = present(self.seed, "the seed of the shuffle players contribute to")
        self.contributions = [*self.contributions, {"player_id": e.player_id,
                                                    "value": e.value}]
        self.pack = shuffle_pack(mixed_seed(seed, self.contributions), self.rules.packs)

    def _seated(self, e: f.PlayerSeated) -> None:
        self.seats.insert(e.position, e.player_id)

    def _left(self, e: f.PlayerLeft) -> None:
        self.seats.remove(e.player_id)

    def _kitty(self, e: f.KittyPutUp) -> None:
        self.kitty = e.kitty_after
        self.auction_failed = self.kitty_emptied = False

    def _sold(self, e: f.BankSold) -> None:
        self.banker, self.kitty, self.auction = e.buyer, 0, None
        self.kitty_emptied = False

    def _auction_opened(self, e: f.AuctionOpened) -> None:
        self.auction = []

    def _bid(self, e: f.BidPlaced) -> None:
        present(self.auction, "an auction in progress").append((e.player_id, e.price))

    def _auction_closed(self, e: f.AuctionClosed) -> None:
        self.auction = None
        self.auction_failed = e.sold_to is None

    def _kitty_corrected(self, e: f.KittyCorrected) -> None:
        self.kitty = e.kitty_after

    def _deal_opened(self, e: f.DealOpened) -> None:
        self.deal_id = e.deal_id
        self.contributions_open = False  # its first card is dealt now (R3.4)

    def _deal_ended(self, e: f.DealEnded) -> None:
        self.deal_id = None
        self.deals_played += 1
        self.kitty_emptied = (self.rules.shoot and e.kitty_after == 0
                              and e.next_banker == self.banker)
        self.banker, self.kitty = e.next_banker, e.kitty_after
        if e.pack_after is not None:
            self.pack = list(e.pack_after)
        if e.shuffle_needed:
            self.needs_shuffle = True


_APPLY: dict[type[f.Fact], Callable[[TableState, Any], None]] = {
    f.TableOpened: TableState._opened, f.PackArranged: TableState._arranged,
    f.PackShuffled: TableState._shuffled, f.PlayerSeated: TableState._seated,
    f.PlayerLeft: TableState._left, f.KittyPutUp: TableState._kitty,
    f.BankSold: TableState._sold, f.AuctionOpened: TableState._auction_opened,
    f.BidPlaced: TableState._bid, f.AuctionClosed: TableState._auction_closed,
    f.DealOpened: TableState._deal_opened, f.DealEnded: TableState._deal_ended,
    f.KittyCorrected: TableState._kitty_corrected,
    f.ContributionAdded: TableState._contributed,
}
