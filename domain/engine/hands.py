"""Hand values and ranking (R2), with the pontoon variations of R10.6 and R10.7."""

from __future__ import annotations

from collections.abc import Sequence

from domain.engine.cards import PICTURES, POINTS, RANK, TEN_CARDS
from domain.engine.rules import TableRules

# Hand statuses as the deal view shows them (API.md).
OPEN = "open"
STUCK = "stuck"
BUST = "bust"
FIVE_CARD_TRICK = "five_card_trick"
PONTOON = "pontoon"
ROYAL_PONTOON = "royal_pontoon"

# Ranking categories (R2.2), best last so tuples compare naturally.
_BUST, _ORDINARY, _TRICK, _PONTOON, _ROYAL = range(5)


def hard_total(cards: Sequence[str]) -> int:
    """Every ace counted as 1 (R2.1)."""
    return sum(POINTS[card] for card in cards)


def value(cards: Sequence[str]) -> int:
    """The highest total not over 21 the aces allow; the hard total when bust (R2.1)."""
    hard = hard_total(cards)
    if hard <= 11 and any(RANK[card] == "A" for card in cards):
        return hard + 10
    return hard


def pontoon_grade(cards: Sequence[str], rules: TableRules) -> int | None:
    """None unless `cards` are a pontoon (R2.2, R10.7); else its grade (higher beats lower).

    plain: every ace + ten-card is an equal pontoon. picture_beats_ten: ace + picture (1)
    beats ace + 10 (0). ace_ten_not_pontoon: only ace + picture is a pontoon. royal_naturals:
    ace + K or Q (1) beats ace + J or 10 (0).
    """
    if len(cards) != 2:
        return None
    first, second = RANK[cards[0]], RANK[cards[1]]
    if first == "A":
        other = second
    elif second == "A":
        other = first
    else:
        return None
    if other not in TEN_CARDS:
        return None
    kinds = rules.pontoon_kinds
    if kinds == "plain":
        return 0
    if kinds == "picture_beats_ten":
        return 1 if other in PICTURES else 0
    if kinds == "ace_ten_not_pontoon":
        return 0 if other in PICTURES else None
    return 1 if other in ("K", "Q") else 0  # royal_naturals


def is_royal_pontoon(cards: Sequence[str], rules: TableRules) -> bool:
    """R10.6: three sevens held by a player, when the table plays it."""
    return rules.royal_pontoon and len(cards) == 3 and all(RANK[c] == "7" for c in cards)


def finished_status(cards: Sequence[str], rules: TableRules, *, banker: bool = False) -> str | None:
    """The status a hand takes by itself as soon as it is formed, or None if it plays on.

    Pontoon (R4.1), royal pontoon (R10.6), bust (R4.7, R6.4), five card trick (R4.8, R6.4),
    and a hard 21 which is stuck at once (R4.10, R6.3).
    """
    hard = hard_total(cards)
    if hard > 21:
        return BUST
    if len(cards) == 5:
        return FIVE_CARD_TRICK
    if not banker and is_royal_pontoon(cards, rules):
        return ROYAL_PONTOON
    if pontoon_grade(cards, rules) is not None:
        return PONTOON
    if hard == 21:
        return STUCK
    return None


def rank(cards: Sequence[str], rules: TableRules, *, banker: bool = False) -> tuple[int, int]:
    """A key that orders hands by R2.2: compare with `>`; equal keys are a tie (R2.4)."""
    hard = hard_total(cards)
    if hard > 21:
        return (_BUST, 0)
    if not banker and is_royal_pontoon(cards, rules):
        return (_ROYAL, 0)
    grade = pontoon_grade(cards, rules)
    if grade is not None:
        return (_PONTOON, grade)
    if len(cards) == 5:
        return (_TRICK, 0)
    return (_ORDINARY, value(cards))


def describe(cards: Sequence[str], rules: TableRules, *, banker: bool = False) -> str:
    """Words a treasurer reads in an audit: "9-8-4 (21)", "A-J (pontoon)"."""
    shown = "-".join(RANK[card] for card in cards) or "no cards"
    category, detail = rank(cards, rules, banker=banker)
    if category == _BUST:
        return f"{shown} (bust at {hard_total(cards)})"
    if category == _ROYAL:
        return f"{shown} (royal pontoon)"
    if category == _PONTOON:
        return f"{shown} (pontoon)"
    if category == _TRICK:
        return f"{shown} (five card trick, {value(cards)})"
    return f"{shown} ({detail})"


def can_split(cards: Sequence[str], rules: TableRules) -> bool:
    """R5.1 and R10.1: a pair of equal rank (Q-Q, not Q-J); aces only on `aces` tables."""
    if rules.split == "none" or len(cards) != 2 or RANK[cards[0]] != RANK[cards[1]]:
        return False
    return rules.split == "pairs" or RANK[cards[0]] == "A"
