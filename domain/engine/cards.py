"""Cards and packs in R1.3 notation: rank then suit, e.g. "AS", "10H", "QD".

Cards are plain strings everywhere (events, API, audits); the tables below give their
properties without parsing on the hot path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from domain.errors import InvalidSetup

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
TEN_CARDS = frozenset({"10", "J", "Q", "K"})
PICTURES = frozenset({"J", "Q", "K"})

ONE_PACK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
RANK: dict[str, str] = {card: card[:-1] for card in ONE_PACK}
# R1.2: an ace counts 1 here; hands add 10 for one ace when that helps (R2.1).
POINTS: dict[str, int] = {
    card: 1 if rank == "A" else 10 if rank in TEN_CARDS else int(rank)
    for card, rank in RANK.items()
}
# R3.2: for cutting, aces are high and suits do not rank.
CUT_ORDER: dict[str, int] = {rank: (14 if rank == "A" else RANKS.index(rank) + 1) for rank in RANKS}


def check_card(text: object) -> str:
    """Return `text` if it is a card in R1.3 notation, else refuse naming R1.3."""
    if not isinstance(text, str) or text not in RANK:
        raise InvalidSetup(f"{text!r} is not a card: write rank then suit, e.g. AS, 10H, QD (R1.3)",
                           "R1.3")
    return text


def full_pack(packs: int) -> list[str]:
    """The cards of `packs` standard packs in a fixed new-pack order (R1.1)."""
    return list(ONE_PACK) * packs


def check_ordered_pack(cards: Iterable[object], packs: int) -> list[str]:
    """An explicit pack order must hold every card of its packs exactly as often (R1.7)."""
    checked = [check_card(card) for card in cards]
    expected = Counter(full_pack(packs))
    got = Counter(checked)
    if got != expected:
        missing = sorted((expected - got).elements())
        extra = sorted((got - expected).elements())
        raise InvalidSetup(
            f"an ordered pack must hold each of the {52 * packs} cards of {packs} pack(s) exactly "
            f"as often as the packs do; missing {missing or 'none'}, "
            f"extra {extra or 'none'} (R1.7)",
            "R1.7",
        )
    return checked
