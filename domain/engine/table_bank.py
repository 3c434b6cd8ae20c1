"""The bank between deals: its kitty put up or topped up (R9.1, R9.9), corrected by a
dispute (R11.4), and the bank sold privately (R8.2) or at an auction (R9.10, R9.11)."""

from __future__ import annotations

from collections.abc import Mapping

from domain.engine import facts as f
from domain.engine.postings import (
    Posting,
    check_affordable,
    check_amount,
    kitty_account,
    player_account,
)
from domain.engine.table_state import TableState
from domain.errors import NotAllowed, NotNow


class BankAndKitty(TableState):
    """The table commands about the bank's money and who holds the bank."""

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

    def correct_kitty(self, change: int, dispute_id: str) -> list[f.Fact]:
        """A dispute's correction into or out of the kitty, between deals (R11.4)."""
        if self.deal_id is not None:
            raise NotNow("the kitty is corrected between deals, when no deal holds it (R11.4)",
                          "R11.4")
        if self.kitty + change < 0:
            raise NotAllowed(f"the kitty holds {self.kitty}; a correction cannot take out "
                             f"{-change} (R11.4)", "R11.4")
        return self._record(f.KittyCorrected(change, self.kitty + change, dispute_id))

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

    def _shoot_only(self) -> None:
        if not self.rules.shoot:
            raise NotAllowed("auctions belong to Shoot Pontoon, which this table does not play "
                             "(R9.12)", "R9.12")

    def _sale(self, buyer: str, price: int, rule: str) -> list[f.Fact]:
        seller = self.banker
        postings = [Posting(player_account(buyer), player_account(seller), price, rule,
                            f"the bank is sold for {price}")]
        if self.kitty:
            postings.append(Posting(kitty_account(self.table_id), player_account(seller),
                                    self.kitty, "R9.11", f"the bank is sold: the old banker "
                                    f"takes the {self.kitty} left in the kitty"))
        return [f.BankSold(seller, buyer, price, rule, postings)]
