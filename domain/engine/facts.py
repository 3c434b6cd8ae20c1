"""What the engine decided, as facts: applying the same facts again rebuilds the same state.

The ledger persists each fact as a domain event of the same name and fields. Facts hold only
JSON-safe values (str, int, bool, None, lists, dicts) and postings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any, Self

from domain.engine.postings import Posting

FACT_TYPES: dict[str, type[Fact]] = {}


class Fact:
    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        FACT_TYPES[cls.__name__] = cls

    @property
    def type(self) -> str:
        return type(self).__name__

    def carried_postings(self) -> list[Posting]:
        """The chip movements this fact records, in order (none for most facts)."""
        posting = getattr(self, "posting", None)
        if posting is not None:
            return [posting]
        return list(getattr(self, "postings", ()))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name == "posting":
                value = value.to_dict() if value is not None else None
            elif f.name == "postings":
                value = [p.to_dict() for p in value]
            data[f.name] = value
        return data

    @staticmethod
    def from_dict(type_name: str, data: dict[str, Any]) -> Fact:
        cls = FACT_TYPES[type_name]
        values = dict(data)
        if values.get("posting") is not None:
            values["posting"] = Posting.from_dict(values["posting"])
        if "postings" in values:
            values["postings"] = [Posting.from_dict(p) for p in values["postings"]]
        return cls(**values)


class FactState:
    """A state that facts build: `apply` changes it by one fact; replaying every fact of its
    history, in order, on a fresh state rebuilds it (deals and tables alike)."""

    def apply(self, fact: Fact) -> None:
        raise NotImplementedError

    @classmethod
    def replay(cls, history: Iterable[Fact]) -> Self:
        state = cls()
        for fact in history:
            state.apply(fact)
        return state


# --- Deal facts --------------------------------------------------------------------------

@dataclass(slots=True)
class DealStarted(Fact):
    deal_id: str
    table_id: str
    number: int
    banker: str
    players: list[str]  # turn order: the banker's left first (R3.1)
    rules: dict[str, Any]
    pack: list[str] | None  # top first; None in recorded mode (R1.7)
    kitty: int
    commitment: str | None


@dataclass(slots=True)
class CardDealt(Fact):
    player: str  # the banker's id for the banker's own cards
    hand: int
    card: str
    face_up: bool
    rule: str


@dataclass(slots=True)
class StakePlaced(Fact):
    player: str
    amount: int
    posting: Posting


@dataclass(slots=True)
class BankerDoubled(Fact):
    banker: str


@dataclass(slots=True)
class BankerDeclinedToDouble(Fact):
    banker: str


@dataclass(slots=True)
class ShootBetPlaced(Fact):
    player: str
    hand: int
    amount: int
    window: str  # first_round (R9.3) | fourth_card (R9.5) | split (R9.6)
    posting: Posting


@dataclass(slots=True)
class ShootPassed(Fact):
    player: str
    automatic: bool  # passed over once nothing was left to shoot (R9.3)


@dataclass(slots=True)
class CardBought(Fact):
    player: str
    hand: int
    amount: int
    posting: Posting


@dataclass(slots=True)
class HandTwisted(Fact):
    player: str
    hand: int


@dataclass(slots=True)
class HandSplit(Fact):
    player: str
    hand: int
    stake: int
    posting: Posting


@dataclass(slots=True)
class HandBurned(Fact):
    player: str
    hand: int
    cards: list[str]


@dataclass(slots=True)
class HandStuck(Fact):
    player: str
    hand: int
    automatic: bool
    rule: str


@dataclass(slots=True)
class HandFinished(Fact):
    player: str
    hand: int
    status: str  # pontoon | five_card_trick | royal_pontoon
    rule: str


@dataclass(slots=True)
class HandBusted(Fact):
    player: str
    hand: int
    postings: list[Posting]


@dataclass(slots=True)
class BankerTurnBegan(Fact):
    banker: str


@dataclass(slots=True)
class BankerStayed(Fact):
    banker: str
    automatic: bool
    rule: str


@dataclass(slots=True)
class DealSettled(Fact):
    postings: list[Posting]
    results: list[dict[str, Any]]  # per hand: player, hand, cards, outcome, multiplier, rule
    banker_hand: str
    next_banker: str
    bank_passed_by: str | None  # "R8.1" when a pontoon took the bank
    kitty_after: int
    pontoon_held: bool
    pack_after: list[str] | None


@dataclass(slots=True)
class DealVoided(Fact):
    postings: list[Posting]
    kitty_after: int
    reason: str


# --- Table facts -------------------------------------------------------------------------

@dataclass(slots=True)
class TableOpened(Fact):
    table_id: str
    name: str
    seats: list[str]
    banker: str
    rules: dict[str, Any]
    pack_mode: str  # shuffled | ordered | recorded
    cuts: list[dict[str, str]] = field(default_factory=list)  # R3.2, empty if named


@dataclass(slots=True)
class PackArranged(Fact):
    cards: list[str]


@dataclass(slots=True)
class PackShuffled(Fact):
    seed: str  # secret until the next shuffle reveals it (R1.7)
    commitment: str
    revealed_seed: str | None  # the previous pack's seed, now public
    rule: str


@dataclass(slots=True)
class PlayerSeated(Fact):
    player_id: str
    position: int


@dataclass(slots=True)
class PlayerLeft(Fact):
    player_id: str


@dataclass(slots=True)
class KittyPutUp(Fact):
    banker: str
    amount: int
    kitty_after: int
    rule: str  # R9.1 (a new kitty) or R9.9 (a top-up)
    posting: Posting


@dataclass(slots=True)
class BankSold(Fact):
    seller: str
    buyer: str
    price: int
    rule: str  # R8.2, or R9.10 at an auction
    postings: list[Posting]


@dataclass(slots=True)
class AuctionOpened(Fact):
    banker: str


@dataclass(slots=True)
class BidPlaced(Fact):
    player_id: str
    price: int


@dataclass(slots=True)
class AuctionClosed(Fact):
    sold_to: str | None
    price: int | None
    passed_over: list[str]  # bidders who no longer held their price (R9.10)


@dataclass(slots=True)
class KittyCorrected(Fact):
    """A dispute's correction moved chips into or out of the kitty (R11.4)."""

    change: int
    kitty_after: int
    dispute_id: str


@dataclass(slots=True)
class DealOpened(Fact):
    deal_id: str
    number: int


@dataclass(slots=True)
class DealEnded(Fact):
    deal_id: str
    phase: str  # settled | void
    next_banker: str
    kitty_after: int
    pack_after: list[str] | None
    shuffle_needed: bool


@dataclass(slots=True)
class PlayersTurnsBegan(Fact):
    """Second cards are out and the banker holds no pontoon: players play in turn (R4)."""

    first_player: str | None
