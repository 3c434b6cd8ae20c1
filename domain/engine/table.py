"""A table between deals: seats, banker, kitty, pack and shuffles, bank sales and auctions.

Like `Deal`, each command checks, then records facts that `apply` replays (R1.4, R1.7, R3,
R8, R9.1, R9.9–R9.11). A deal itself is decided by `Deal`; the table opens and closes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from domain.engine import facts as f
from domain.engine.cards import check_ordered_pack
from domain.engine.deal import Deal
from domain.engine.deal_state import VOID, DealState
from domain.engine.postings import (
    Posting,
    check_affordable,
    check_amount,
    kitty_account,
    player_account,
)
from domain.engine.rules import TableRules
from domain.engine.shuffle import commitment, cut_for_bank, derived_seed, shuffle_pack
from domain.errors import InvalidSetup, NotAllowed, NotNow

PACK_MODES = ("shuffled", "ordered", "recorded")


class Table:
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
        self.revealed: list[dict[str, str]] = []  # earlier packs: commitment and seed (R1.7)
        self.shuffles = 0
        self.needs_shuffle = False
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
    def from_state(cls, state: Mapping[str, Any]) -> Table:
        table = cls()
        table.__dict__.update(state)
        table.rules = TableRules.from_dict(state["rules"])
        if state["auction"] is not None:
            table.auction = [(bidder, price) for bidder, price in state["auction"]]
        return table

    # --- reading -----------------------------------------------------------------------

    @property
    def kitty_needed(self) -> bool:
        return self.rules.shoot and self.kitty == 0

    def next_deal_number(self) -> int:
        return self.deals_played + 1

    # --- commands ----------------------------------------------------------------------

    @classmethod
    def open(cls, *, table_id: str, name: str, seats: Sequence[str], banker: str | None,
             rules: Mapping[str, Any] | None, pack: Mapping[str, Any] | None,
             seed: str) -> tuple[Table, list[f.Fact]]:
        """Open a table; `seed` is fresh secret randomness, used to cut and to shuffle."""
        table_rules = TableRules.from_dict(rules)
        if len(seats) < 2:
            raise InvalidSetup("a table needs two or more players (R3.1)", "R3.1")
        if len(set(seats)) != len(seats):
            raise InvalidSetup("each player takes one seat only (R3.1)", "R3.1")
        pack = dict(pack or {"mode": "shuffled"})
        mode = pack.get("mode", "shuffled")
        if mode not in PACK_MODES:
            raise InvalidSetup(f"pack mode must be one of {list(PACK_MODES)} (R1.7)", "R1.7")
        if mode != "ordered" and pack.get("cards") is not None:
            raise InvalidSetup("only an ordered pack takes a list of cards (R1.7)", "R1.7")
        cards = check_ordered_pack(pack.get("cards") or [], table_rules.packs) \
            if mode == "ordered" else None
        cuts: list[dict[str, str]] = []
        if banker is None:
            banker, cuts = cut_for_bank(seed, seats, table_rules.packs)
        elif banker not in seats:
            raise InvalidSetup("the named banker must hold one of the seats (R3.2)", "R3.2")
        table = cls()
        out: list[f.Fact] = [f.TableOpened(table_id, name, list(seats), banker,
                                           table_rules.to_dict(), mode, cuts)]
        if cards is not None:
            out.append(f.PackArranged(cards))
        elif mode == "shuffled":
            out.append(f.PackShuffled(seed, commitment(seed), None, "R1.7"))
        for fact in out:
            table.apply(fact)
        return table, out

    @classmethod
    def replay(cls, history: Iterable[f.Fact]) -> Table:
        table = cls()
        for fact in history:
            table.apply(fact)
        return table

    def seat(self, player_id: str, after: str | None = None) -> list[f.Fact]:
        self._between_deals("players join", "R3.1")
        if player_id in self.seats:
            raise NotNow(f"{player_id} is already seated at this table (R3.1)", "R3.1")
        if after is not None and after not in self.seats:
            raise NotAllowed(f"{after} is not seated here, so no one can sit after them (R3.1)",
                             "R3.1")
        position = len(self.seats) if after is None else self.seats.index(after) + 1
        return self._record(f.PlayerSeated(player_id, position))

    def leave(self, player_id: str) -> list[f.Fact]:
        self._between_deals("players leave", "R3.1")
        if player_id not in self.seats:
            raise NotNow(f"{player_id} is not seated at this table (R3.1)", "R3.1")
        if player_id == self.banker:
            raise NotNow("the banker cannot leave without first passing the bank (R8.2)", "R8.2")
        return self._record(f.PlayerLeft(player_id))

    def put_up_kitty(self, player_id: str, amount: int, chips: int | None = None
                     ) -> list[f.Fact]:
        """R9.1 a new kitty between kitty_min and kitty_max; R9.9 a top-up before a deal."""
        rules = self.rules
        if not rules.shoot:
            raise NotAllowed("this table does not play Shoot Pontoon: it has no kitty (R9.12)",
                             "R9.12")
        self._between_deals("the kitty is put up or topped up", "R9.9")
        if player_id != self.banker:
            raise NotAllowed(f"only the banker, {self.banker}, puts up the kitty (R9.1)", "R9.1")
        check_amount(amount, "a kitty", "R9.1")
        if self.kitty == 0:
            rule = "R9.1"
            if not rules.kitty_min <= amount <= rules.kitty_max:
                raise NotAllowed(f"a kitty must be between {rules.kitty_min} and "
                                 f"{rules.kitty_max} chips (R9.1)", "R9.1")
        else:
            rule = "R9.9"
            if self.kitty + amount > rules.kitty_max:
                raise NotAllowed(f"a top-up may not take the kitty above {rules.kitty_max}: at "
                                 f"most {rules.kitty_max - self.kitty} more (R9.9)", "R9.9")
        check_affordable(player_id, amount, chips)
        words = "puts up a kitty of" if rule == "R9.1" else "tops up the kitty by"
        return self._record(f.KittyPutUp(player_id, amount, self.kitty + amount, rule, Posting(
            player_account(player_id), kitty_account(self.table_id), amount, rule,
            f"the banker {words} {amount}")))

    def sell_bank(self, buyer: str, price: int, chips: int | None = None, *,
                  seller: str | None = None) -> list[f.Fact]:
        """R8.2: after any deal the banker sells the bank to a seated player who holds the price.

        `seller` is who the seller believed held the bank: a sale decided again after a race
        must not sell someone else's bank."""
        self._between_deals("the bank is sold", "R8.2")
        if seller is not None and seller != self.banker:
            raise NotNow(f"{seller} no longer holds the bank; {self.banker} does (R8.2)", "R8.2")
        if buyer not in self.seats or buyer == self.banker:
            raise NotAllowed("the bank is sold to another player seated at this table (R8.2)",
                             "R8.2")
        check_amount(price, "the price of the bank", "R8.2")
        check_affordable(buyer, price, chips)
        return self._record(*self._sale(buyer, price, "R8.2"))

    def open_auction(self, player_id: str) -> list[f.Fact]:
        self._shoot_only()
        self._between_deals("an auction opens", "R9.10")
        if player_id != self.banker:
            raise NotAllowed(f"only the banker, {self.banker}, offers the bank for sale (R9.10)",
                             "R9.10")
        if not self.kitty_emptied:
            raise NotNow("an auction opens only when the kitty ran empty at the end of a deal; "
                         "after a change of banker the new banker puts up a kitty (R9.10, "
                         "R9.11)", "R9.10")
        if self.auction_failed:
            raise NotNow("nobody bid at the last auction: the banker must put up a new kitty "
                         "(R9.10)", "R9.10")
        return self._record(f.AuctionOpened(player_id))

    def bid(self, player_id: str, price: int, chips: int | None = None) -> list[f.Fact]:
        self._shoot_only()
        if self.auction is None:
            raise NotNow("no auction of the bank is open (R9.10)", "R9.10")
        if player_id not in self.seats or player_id == self.banker:
            raise NotAllowed("only seated players other than the banker bid (R9.10)", "R9.10")
        check_amount(price, "a bid", "R9.10")
        check_affordable(player_id, price, chips)
        return self._record(f.BidPlaced(player_id, price))

    def close_auction(self, player_id: str, chips: Mapping[str, int] | None = None
                      ) -> list[f.Fact]:
        """R9.10: the highest bid buys (the earliest of equal bids); a bid not held is passed."""
        self._shoot_only()
        if self.auction is None:
            raise NotNow("no auction of the bank is open (R9.10)", "R9.10")
        if player_id != self.banker:
            raise NotAllowed(f"only the banker, {self.banker}, closes the auction (R9.10)",
                             "R9.10")
        ranked = sorted(enumerate(self.auction), key=lambda item: (-item[1][1], item[0]))
        passed: list[str] = []
        for _, (bidder, price) in ranked:
            if bidder in self.seats and (chips is None or chips.get(bidder, 0) >= price):
                return self._record(f.AuctionClosed(bidder, price, passed),
                                    *self._sale(bidder, price, "R9.10"))
            passed.append(bidder)
        return self._record(f.AuctionClosed(None, None, passed))

    def correct_kitty(self, change: int, dispute_id: str) -> list[f.Fact]:
        """A dispute's correction into or out of the kitty, between deals (R11.4)."""
        if self.deal_id is not None:
            raise NotNow("the kitty is corrected between deals, when no deal holds it (R11.4)",
                          "R11.4")
        if self.kitty + change < 0:
            raise NotAllowed(f"the kitty holds {self.kitty}; a correction cannot take out "
                             f"{-change} (R11.4)", "R11.4")
        return self._record(f.KittyCorrected(change, self.kitty + change, dispute_id))

    def start_deal(self, *, deal_id: str, chips: Mapping[str, int] | None = None,
                   seed: str | None = None, cards: Sequence[str] | None = None
                   ) -> tuple[Deal, list[f.Fact], list[f.Fact]]:
        """R3.4–R3.5: open a deal; returns the deal, the table's facts and the deal's facts.

        `seed` is fresh secret randomness, needed when a shuffled pack must be reshuffled.
        """
        if self.deal_id is not None:
            raise NotNow("a deal is already open at this table; finish it first (R3.4)", "R3.4")
        if self.auction is not None:
            raise NotNow("an auction of the bank is open: nothing else happens until the banker "
                         "closes it (R9.10)", "R9.10")
        if len(self.seats) < 2:
            raise NotNow("a deal needs two or more players seated (R3.1)", "R3.1")
        short = [p for p in self.seats if p != self.banker and chips is not None
                 and chips.get(p, 0) < self.rules.min_stake]
        if self.kitty_needed:
            # R9.10 when the kitty ran empty in play (or a player is short too), R9.11 after
            # a change of banker, R9.1 before the first deal.
            rule = ("R9.10" if short or self.kitty_emptied else
                    "R9.1" if self.deals_played == 0 else "R9.11")
            also = f"; and {', '.join(short)} must buy chips or leave (R3.5)" if short else ""
            raise NotNow(f"the banker must put up a kitty before the deal ({rule}){also}", rule)
        if short:
            raise NotNow(f"{', '.join(short)} hold(s) fewer chips than the minimum stake of "
                         f"{self.rules.min_stake}: buy chips or leave first (R3.5, R11.2)",
                         "R3.5")
        if self.pack_mode != "recorded" and cards is not None:
            raise NotAllowed("this table deals its own cards; send no card unless the table "
                             "is in recorded mode (R1.7)", "R1.7")
        table_facts: list[f.Fact] = []
        if self.needs_shuffle and self.pack_mode != "recorded":
            if self.pack_mode == "ordered":
                seed = derived_seed("pontoon-ordered-table", self.table_id, self.shuffles)
            if seed is None:
                raise ValueError("a reshuffle needs a fresh secret seed")
            table_facts.append(f.PackShuffled(seed, commitment(seed), self.seed, "R1.4"))
        table_facts.append(f.DealOpened(deal_id, self.next_deal_number()))
        pack, committed = self.pack, self.commitment
        for fact in table_facts:
            if isinstance(fact, f.PackShuffled):
                pack, committed = shuffle_pack(fact.seed, self.rules.packs), fact.commitment
        deal, deal_facts = Deal.start(
            deal_id=deal_id, table_id=self.table_id, number=self.next_deal_number(),
            banker=self.banker, seats=self.seats, rules=self.rules, pack=pack,
            kitty=self.kitty, commitment=committed, cards=cards)
        for fact in table_facts:
            self.apply(fact)
        return deal, table_facts, deal_facts

    def end_deal(self, deal: DealState) -> list[f.Fact]:
        """Take back what a finished deal changed: banker, kitty, pack (R1.4, R1.6, R8.1)."""
        assert deal.is_over and deal.deal_id == self.deal_id, "only the open deal ends"
        if deal.phase == VOID:
            return self._record(f.DealEnded(deal.deal_id, VOID, self.banker, deal.kitty, None,
                                            True))
        settled = deal.settlement
        assert settled is not None
        return self._record(f.DealEnded(deal.deal_id, deal.phase, settled.next_banker,
                                        settled.kitty_after, settled.pack_after,
                                        settled.pontoon_held))

    # --- helpers -----------------------------------------------------------------------

    def _shoot_only(self) -> None:
        if not self.rules.shoot:
            raise NotAllowed("auctions belong to Shoot Pontoon, which this table does not play "
                             "(R9.12)", "R9.12")

    def _between_deals(self, what: str, rule: str) -> None:
        if self.deal_id is not None:
            raise NotNow(f"{what} only between deals (R3.1); a deal is open", rule)
        if self.auction is not None:
            raise NotNow("an auction of the bank is open: nothing else happens until the banker "
                         "closes it (R9.10)", "R9.10")

    def _sale(self, buyer: str, price: int, rule: str) -> list[f.Fact]:
        seller = self.banker
        postings = [Posting(player_account(buyer), player_account(seller), price, rule,
                            f"the bank is sold for {price}")]
        if self.kitty:
            postings.append(Posting(kitty_account(self.table_id), player_account(seller),
                                    self.kitty, "R9.11", f"the bank is sold: the old banker "
                                    f"takes the {self.kitty} left in the kitty"))
        return [f.BankSold(seller, buyer, price, rule, postings)]

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
            self.revealed.append({"commitment": self.commitment, "seed": self.seed})
        self.seed, self.commitment = e.seed, e.commitment
        self.pack = shuffle_pack(e.seed, self.rules.packs)
        self.shuffles += 1
        self.needs_shuffle = False

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
        assert self.auction is not None
        self.auction.append((e.player_id, e.price))

    def _auction_closed(self, e: f.AuctionClosed) -> None:
        self.auction = None
        self.auction_failed = e.sold_to is None

    def _kitty_corrected(self, e: f.KittyCorrected) -> None:
        self.kitty = e.kitty_after

    def _deal_opened(self, e: f.DealOpened) -> None:
        self.deal_id = e.deal_id

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


_APPLY: dict[type[f.Fact], Callable[[Table, Any], None]] = {
    f.TableOpened: Table._opened, f.PackArranged: Table._arranged,
    f.PackShuffled: Table._shuffled, f.PlayerSeated: Table._seated, f.PlayerLeft: Table._left,
    f.KittyPutUp: Table._kitty, f.BankSold: Table._sold, f.AuctionOpened: Table._auction_opened,
    f.BidPlaced: Table._bid, f.AuctionClosed: Table._auction_closed,
    f.DealOpened: Table._deal_opened, f.DealEnded: Table._deal_ended,
    f.KittyCorrected: Table._kitty_corrected,
}
