"""Builders for rule tests: a club with players, chips and a table whose pack is stacked."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.engine.cards import full_pack
from domain.engine.club import Club


def stacked_pack(top: Sequence[str], packs: int = 1) -> list[str]:
    """A complete ordered pack (R1.7) with `top` dealt first, the rest in new-pack order."""
    rest = Counter(full_pack(packs))
    rest.subtract(top)
    assert all(n >= 0 for n in rest.values()), f"{top} holds more cards than {packs} pack(s)"
    pack = list(top)
    for card in full_pack(packs):
        if rest[card] > 0:
            pack.append(card)
            rest[card] -= 1
    return pack


@dataclass
class Game:
    """A club with one table; players are referred to by name."""

    club: Club
    ids: dict[str, str]
    table_id: str
    deal_id: str | None = None
    names: dict[str, str] = field(default_factory=dict)

    def start(self) -> str:
        self.deal_id = self.club.start_deal(self.table_id)
        return self.deal_id

    def act(self, name: str, action: str, **kwargs: Any) -> list[Any]:
        assert self.deal_id is not None, "start a deal first"
        return self.club.act(self.deal_id, self.ids[name], action, **kwargs)

    @property
    def deal(self):  # type: ignore[no-untyped-def]
        assert self.deal_id is not None
        return self.club.deal(self.deal_id)

    @property
    def table(self):  # type: ignore[no-untyped-def]
        return self.club.table(self.table_id)

    def chips(self, name: str) -> int:
        return self.club.chips(self.ids[name])

    def hand(self, name: str, index: int = 0):  # type: ignore[no-untyped-def]
        return self.deal.hands[self.ids[name]][index]


def make_game(players: Sequence[str] = ("Banker", "Pat"), *, top: Sequence[str] = (),
              rules: dict[str, Any] | None = None, chips: int | dict[str, int] = 100,
              banker: str | None = "Banker", pack: dict[str, Any] | None = None) -> Game:
    """Seats `players` clockwise; the first card dealt is `top[0]` (to the banker's left)."""
    club = Club()
    ids = {name: club.register_player(name) for name in players}
    for name in players:
        amount = chips if isinstance(chips, int) else chips.get(name, 0)
        if amount:
            club.buy_in(ids[name], amount)
    packs = (rules or {}).get("packs", 1)
    table_id = club.open_table(
        "test", [ids[n] for n in players], banker=ids[banker] if banker else None, rules=rules,
        pack=pack or {"mode": "ordered", "cards": stacked_pack(top, packs)})
    game = Game(club, ids, table_id)
    game.names = {v: k for k, v in ids.items()}
    return game
