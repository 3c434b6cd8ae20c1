"""`pontoon verify`'s checks of the packs (R1.4, R1.7): every seed against its commitment,
every contribution within its window, and every deal started from the pack its table's
shuffle, the players' contributions and the earlier deals give.

A table's expected pack follows its events: the shuffle of a seed mixed with the
contributions recorded so far (domain/engine/shuffle.py `mixed_seed`), or an ordered pack,
then each deal's `pack_after`. A deal's `DealStarted` and its table's `DealOpened` may be
read in either order (they are in different streams); whichever comes second is compared.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain.engine import facts as f
from domain.engine.shuffle import mixed_seed, shuffle_pack

Fail = Callable[[str], None]


@dataclass
class _Pack:
    """A table's current pack as verify follows it."""

    packs: int = 1  # R1.1: one or two packs shuffled together
    shuffled: bool = True  # the mode that takes contributions (not ordered or recorded)
    seed: str | None = None
    contributions: list[dict[str, str]] = field(default_factory=list)
    open: bool = False  # contributions are taken (R1.7)
    expected: list[str] | None = None


@dataclass
class PackChecks:
    fail: Fail
    seeds: int = 0
    tables: dict[str, _Pack] = field(default_factory=dict)
    deals: dict[str, tuple[str, Any]] = field(default_factory=dict)  # the first side read

    def table_fact(self, table_id: str, fact: f.Fact) -> None:
        if isinstance(fact, f.TableOpened):
            self.tables[table_id] = _Pack(packs=int(fact.rules.get("packs", 1)),
                                          shuffled=fact.pack_mode == "shuffled")
            return
        pack = self.tables.setdefault(table_id, _Pack())
        if isinstance(fact, f.PackArranged):
            pack.expected = list(fact.cards)
        elif isinstance(fact, f.PackShuffled):
            self.seeds += 1
            if hashlib.sha256(bytes.fromhex(fact.seed)).hexdigest() != fact.commitment:
                self.fail(f"table {table_id}: a seed does not match its commitment (R1.7)")
            pack.seed, pack.contributions, pack.open = fact.seed, [], pack.shuffled
            pack.expected = shuffle_pack(fact.seed, pack.packs)
        elif isinstance(fact, f.ContributionAdded):
            self._contributed(table_id, pack, fact)
        elif isinstance(fact, f.DealOpened):
            pack.open = False
            self.match(fact.deal_id, expected=(pack.expected, pack.contributions))
        elif isinstance(fact, f.DealEnded):
            pack.expected = list(fact.pack_after) if fact.pack_after is not None else None

    def _contributed(self, table_id: str, pack: _Pack, fact: f.ContributionAdded) -> None:
        """R1.7: a contribution is mixed into the pack it names, before its first card,
        once a player; the pack expected from then on is shuffled with the mixed seed."""
        if not pack.open or pack.seed is None or \
                hashlib.sha256(bytes.fromhex(pack.seed)).hexdigest() != fact.commitment:
            self.fail(f"table {table_id}: {fact.player_id}'s contribution is recorded outside "
                      "its pack's window, between the commitment and the first card (R1.7)")
            return
        if any(c["player_id"] == fact.player_id for c in pack.contributions):
            self.fail(f"table {table_id}: {fact.player_id} added to the same pack twice (R1.7)")
        pack.contributions = [*pack.contributions,
                              {"player_id": fact.player_id, "value": fact.value}]
        pack.expected = shuffle_pack(mixed_seed(pack.seed, pack.contributions), pack.packs)

    def deal_started(self, deal_id: str, fact: f.DealStarted) -> None:
        self.match(deal_id, started=(fact.pack, fact.contributions))

    def match(self, deal_id: str, *, started: tuple[Any, Any] | None = None,
              expected: tuple[Any, Any] | None = None) -> None:
        """A deal's starting pack and contributions against its table's, whichever is read
        second."""
        if deal_id not in self.deals:
            self.deals[deal_id] = ("started", started) if started else ("expected", expected)
            return
        _, other = self.deals.pop(deal_id)
        pack, contributions = started if started else other
        wanted, mixed = expected if expected else other
        if wanted is not None and pack != wanted:
            self.fail(f"deal {deal_id} did not start from the pack its table's seed, the "
                      "players' contributions and earlier deals give (R1.4, R1.7)")
        if list(contributions) != list(mixed):
            self.fail(f"deal {deal_id} names other contributions than its table recorded for "
                      "its pack (R1.7)")
