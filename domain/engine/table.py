"""A table between deals: seats, banker, pack and shuffles, and opening and closing deals.

Like `Deal`, each command checks, then records facts that `apply` replays (R1.4, R1.7, R3,
R8, R9.1, R9.9–R9.11). A deal itself is decided by `Deal`; the table opens and closes it.
The table's state and how facts change it are in table_state.py; the kitty, the bank's sale
and auctions in table_bank.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.engine import facts as f
from domain.engine.cards import check_ordered_pack
from domain.engine.deal import Deal
from domain.engine.deal_state import VOID, DealState
from domain.engine.rules import TableRules
from domain.engine.shuffle import (
    check_contribution,
    commitment,
    cut_for_bank,
    derived_seed,
    shuffle_pack,
)
from domain.engine.table_bank import BankAndKitty
from domain.errors import InvalidSetup, InvariantBroken, NotAllowed, NotNow, present

PACK_MODES = ("shuffled", "ordered", "recorded")


class Table(BankAndKitty):
    """Decides a table's commands: seats, the pack, and opening and ending its deals."""

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

    def start_deal(self, *, deal_id: str, chips: Mapping[str, int] | None = None,
                   seed: str | None = None, cards: Sequence[str] | None = None
                   ) -> tuple[Deal, list[f.Fact], list[f.Fact]]:
        """R3.4–R3.5: open a deal; returns the deal, the table's facts and the deal's facts.

        `seed` is fresh secret randomness, needed when a shuffled pack must be reshuffled.
        """
        self._check_deal_may_start(chips, cards)
        table_facts: list[f.Fact] = []
        pack, committed, mixed = self.pack, self.commitment, self.contributions
        if self.needs_shuffle and self.pack_mode != "recorded":
            # A pack whose last deal ended before shuffles were committed at once (end_deal).
            shuffled = self._reshuffle(seed)
            table_facts.append(shuffled)
            pack, committed, mixed = shuffle_pack(shuffled.seed, self.rules.packs), \
                shuffled.commitment, []
        table_facts.append(f.DealOpened(deal_id, self.next_deal_number()))
        deal, deal_facts = Deal.start(
            deal_id=deal_id, table_id=self.table_id, number=self.next_deal_number(),
            banker=self.banker, seats=self.seats, rules=self.rules, pack=pack,
            kitty=self.kitty, commitment=committed, contributions=mixed, cards=cards)
        for fact in table_facts:
            self.apply(fact)
        return deal, table_facts, deal_facts

    def end_deal(self, deal: DealState, seed: str | None = None) -> list[f.Fact]:
        """Take back what a finished deal changed: banker, kitty, pack (R1.4, R1.6, R8.1).

        `seed` is fresh secret randomness: when the pack must be shuffled the next one is
        committed to at once, so that players may add to it before its first card (R1.7,
        docs/decisions.md 135). Without it the shuffle waits for the next deal's start."""
        if not deal.is_over or deal.deal_id != self.deal_id:
            raise InvariantBroken(f"table {self.table_id} cannot end deal {deal.deal_id}: its "
                                  f"open deal is {self.deal_id}, and only a finished deal ends",
                                  invariant="only the table's open deal ends, once finished")
        if deal.phase == VOID:
            voided = present(deal.voided, "the voiding of a void deal")
            ended = self._record(f.DealEnded(deal.deal_id, VOID, self.banker, deal.kitty,
                                             voided.pack_after, voided.shuffle_needed))
        else:
            settled = present(deal.settlement, "the settlement of a settled deal")
            ended = self._record(f.DealEnded(deal.deal_id, deal.phase, settled.next_banker,
                                             settled.kitty_after, settled.pack_after,
                                             settled.pontoon_held))
        if seed is not None and self.needs_shuffle and self.pack_mode != "recorded":
            ended += self._record(self._reshuffle(seed))
        return ended

    def contribute(self, player_id: str, value: str) -> list[f.Fact]:
        """A seated player's randomness for the pack, between its commitment and its first
        card; once per player and pack (R1.7's December Decision, docs/decisions.md 135)."""
        if self.pack_mode != "shuffled":
            raise NotNow(f"a table in {self.pack_mode} mode takes no contributions: only a "
                         "shuffled pack is mixed with the players' randomness (R1.7)", "R1.7")
        if player_id not in self.seats:
            raise NotAllowed(f"{player_id} is not seated at this table: only its seated "
                             "players add to its pack (R1.7)", "R1.7")
        value = check_contribution(player_id, value)
        if not self.contributions_open or self.commitment is None:
            raise NotNow("this pack's first card is dealt: contributions are taken between "
                         "a pack's commitment and its first card (R1.7)", "R1.7")
        if any(c["player_id"] == player_id for c in self.contributions):
            raise NotNow(f"{player_id} has already added to this pack; one contribution a "
                         "player and pack (R1.7)", "R1.7")
        return self._record(f.ContributionAdded(player_id, value, self.commitment))

    def _check_deal_may_start(self, chips: Mapping[str, int] | None,
                              cards: Sequence[str] | None) -> None:
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

    def _reshuffle(self, seed: str | None) -> f.PackShuffled:
        """R1.4: the pack is shuffled before the next deal, revealing the last seed (R1.7).

        An ordered table's seed is derived from the table, so its deals stay repeatable."""
        if self.pack_mode == "ordered":
            seed = derived_seed("pontoon-ordered-table", self.table_id, self.shuffles)
        if seed is None:
            raise ValueError("a reshuffle needs a fresh secret seed")
        return f.PackShuffled(seed, commitment(seed), self.seed, "R1.4")
