"""Double-entry postings (R11): every chip movement names its accounts, amount and rule."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.errors import InsufficientChips, InvalidPosting, NotAllowed

TREASURY = "treasury"
# A limit on everything: no single movement of chips is larger than this.
CHIPS_MAX = 1_000_000_000


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def kitty_account(table_id: str) -> str:
    return f"kitty:{table_id}"


def escrow_account(deal_id: str) -> str:
    """Stakes and shoot bets wait here between being placed and being settled."""
    return f"escrow:{deal_id}"


# The one spelling of an account a client may name: ids in canonical lower-case hyphenated
# UUID form, so that one account never goes by two names (API.md, Input limits).
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_REFERENCE = re.compile(f"(?:(player|kitty):({_UUID})|(treasury))")


def parse_account(name: str) -> tuple[str, str | None]:
    """`player:<id>`, `kitty:<table id>` or `treasury` as (kind, owner id); ValueError for
    anything else (an escrow, another spelling of an id, stray text)."""
    found = _REFERENCE.fullmatch(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"{name!r} is not player:<id>, kitty:<table id> or treasury, with "
                         "ids in lower-case hyphenated UUID form")
    if found[3]:
        return TREASURY, None
    return found[1], found[2]


@dataclass(frozen=True, slots=True)
class Posting:
    """A positive whole amount moved from one account to another, for a rule (R11.1).
    Frozen: deals, facts and the process's cache share postings (application/cache.py)."""

    from_account: str
    to_account: str
    amount: int
    rule: str
    reason: str
    hand: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.amount, int) or self.amount <= 0:
            raise InvalidPosting(f"a posting moves a positive whole number of chips, not "
                                 f"{self.amount!r}: {self}", "R11.1")
        if self.from_account == self.to_account:
            raise InvalidPosting(f"a posting moves chips between two accounts, not from "
                                 f"{self.from_account} to itself: {self}", "R11.1")

    def to_dict(self) -> dict[str, Any]:
        return {"from_account": self.from_account, "to_account": self.to_account,
                "amount": self.amount, "rule": self.rule, "reason": self.reason,
                "hand": self.hand}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Posting:
        return cls(data["from_account"], data["to_account"], data["amount"], data["rule"],
                   data["reason"], data.get("hand"))


_HAND = re.compile(r"\bhand (\d+)\b")


def reason_in_words(reason: str, hand: int | None) -> str:
    """A recorded reason as people count hands: from 1 ("hand 1 is bust").

    The engine records a hand by its index, from 0, as the API's `hand` is; its reasons are
    evidence that verification decides again and compares, so they are kept as recorded
    and put in words where they are shown (decision 144). Only a posting about a hand (its
    `hand` given) is renumbered: the words of any other, a buy-in's player name or a
    correction's note, are left as written."""
    if hand is None:
        return reason
    return _HAND.sub(lambda found: f"hand {int(found.group(1)) + 1}", reason)


def correction_reason(dispute_id: str, note: str, allow_debt: bool) -> str:
    """The reason of a posting that corrects a deal: its dispute and the treasurer's note."""
    debt = "; the resolution allows a debt (R11.3)" if allow_debt else ""
    return f"correction decided in dispute {dispute_id}: {note}{debt}"


def check_amount(amount: object, what: str, rule: str) -> int:
    """A whole, positive amount of chips, at most CHIPS_MAX, or a refusal naming `rule`."""
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= CHIPS_MAX:
        raise NotAllowed(f"{what} must be a whole number of chips from 1 to {CHIPS_MAX:,} "
                         f"({rule})", rule)
    return amount


def check_affordable(player: str, needed: int, chips: int | None) -> None:
    """R11.2: nobody stakes, buys, shoots or pays with chips they do not hold."""
    if chips is not None and needed > chips:
        raise InsufficientChips(f"{player} holds {chips} chips and cannot pay {needed} (R11.2); "
                                "buy chips first")


def net_changes(postings: Iterable[Posting]) -> dict[str, int]:
    """How each account's balance moves; the values always sum to zero."""
    changes: dict[str, int] = {}
    for posting in postings:
        changes[posting.from_account] = changes.get(posting.from_account, 0) - posting.amount
        changes[posting.to_account] = changes.get(posting.to_account, 0) + posting.amount
    return changes
