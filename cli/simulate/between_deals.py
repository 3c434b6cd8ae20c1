"""The table between deals: chips for the short, now and then a bank sale, and the kitty.

The treasurer buys chips for players who run short (R3.5, R11.1); the banker sells the bank
now and then (R8.2) and puts up or tops up the kitty (R9.1, R9.9, R9.10), offering the bank
at an auction instead, now and then, when the kitty ran empty in play (R9.10).
"""

from __future__ import annotations

from cli.simulate.client import ApiError
from cli.simulate.session import START_CHIPS, Session

KITTIES = (20, 30, 40, 50)  # a new kitty, clamped to the table's kitty_min..kitty_max (R9.1)
AUCTION_CHANCE = 0.3  # an empty kitty is offered at an auction this often (R9.10)
SALE_CHANCE = 0.02  # the banker sells the bank after a deal this often (R8.2)


class BetweenDeals(Session):
    """What happens at the table between two deals; `Simulation` plays the deals."""

    def between_deals(self) -> None:
        """Chips for the short, now and then a bank sale, and the kitty (R3.5, R8.2, R9)."""
        self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)
        rules = self.table["rules"]
        floor = max(rules["min_stake"], 3 * rules["max_stake"])
        balances = {p: self.balance_of(p) for p in self.table["seats"]}
        stack = max(START_CHIPS, 2 * floor)
        for player_id, chips in balances.items():
            if player_id != self.table["banker"] and chips < floor:
                self.buy_in(player_id, stack - chips)  # a debt is paid off first (R11.3)
                balances[player_id] = stack
        if self.rng.random() < SALE_CHANCE:
            self._sell_bank(balances)
        if self.shoot:
            self._kitty(balances)

    def _sell_bank(self, balances: dict[str, int]) -> None:
        banker = self.table["banker"]
        price = self.rng.randint(1, 10)
        buyers = [p for p in self.table["seats"] if p != banker and balances[p] >= price]
        if not buyers:
            return
        buyer = self.rng.choice(buyers)
        try:
            self.table = self.api.post(f"/v1/tables/{self.table_id}/bank-sales",
                                       {"buyer_id": buyer, "price": price}, self.token_for(banker))
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            self.log_refusal(self.name_of(banker), f"sell the bank to {self.name_of(buyer)}", error)
            return
        self.tally.sales += 1
        balances[buyer] -= price
        balances[banker] += price

    def _kitty(self, balances: dict[str, int]) -> None:
        rules = self.table["rules"]
        kitty_min, kitty_max = rules["kitty_min"], rules["kitty_max"]
        # The kitty ran empty in play (not handed back at a change of banker): the banker
        # may offer the bank to the highest bidder instead of a new kitty (R9.10, R9.11).
        if self.table["kitty"] == 0 and self.table["banker"] == self.dealt_by \
                and self.rng.random() < AUCTION_CHANCE:
            self._auction(balances)
        banker = self.table["banker"]
        kitty = self.table["kitty"]
        if kitty == 0:  # a new kitty: after a change of banker, or the kitty ran empty
            amount = min(max(self.rng.choice(KITTIES), kitty_min), kitty_max)
        elif kitty < max(kitty_min, kitty_max // 5):  # running low: top it up (R9.9)
            amount = min(kitty_max - kitty, max(KITTIES) - kitty)
        else:
            return
        if amount <= 0:
            return
        chips = balances.get(banker, 0)
        if chips < amount:
            self.buy_in(banker, amount - chips + START_CHIPS)
        try:
            self.table = self.api.post(f"/v1/tables/{self.table_id}/kitty", {"amount": amount},
                                       self.token_for(banker))
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            self.log_refusal(self.name_of(banker), f"put up a kitty of {amount}", error)
            return
        if kitty == 0:
            self.tally.kitties += 1
        else:
            self.tally.top_ups += 1

    def _auction(self, balances: dict[str, int]) -> None:
        """R9.10: the kitty ran empty; the banker offers the bank to the highest bidder."""
        banker = self.table["banker"]
        base = f"/v1/tables/{self.table_id}/auction"
        try:
            self.api.post(base, {}, self.token_for(banker))
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            return  # no auction now (the kitty did not run empty in play): put one up
        self.tally.auctions += 1
        for player_id in self.table["seats"]:
            chips = balances.get(player_id, 0)
            if player_id == banker or chips < 5 or self.rng.random() < 0.4:
                continue
            price = self.rng.randint(5, min(30, chips))
            try:
                self.api.post(base + "/bids", {"player_id": player_id, "price": price},
                              self.token_for(player_id))
            except ApiError as error:
                if error.status not in (409, 422):
                    raise
                self.log_refusal(self.name_of(player_id), f"bid {price}", error)
        closed = self.api.post(base + "/close", {}, self.token_for(banker))
        if closed.get("sold_to"):
            self.tally.auctions_sold += 1
            buyer = closed["sold_to"]
            balances[buyer] = balances.get(buyer, 0) - int(closed.get("price") or 0)
            balances[banker] = balances.get(banker, 0) + int(closed.get("price") or 0)
        self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)
