"""What the engine decided, as facts: applying the same facts again rebuilds the same state.

The ledger persists each fact as a domain event of the same name and fields. Facts hold only
JSON-safe values (str, int, bool, None, lists, dicts) and postings.

A fact is declared by its class and its fields, nothing else: `Fact`'s metaclass makes each
class a frozen slotted dataclass and registers it by name. Fields several facts open with (the
player and hand, the banker, a seated player) come from a shared base declared
`abstract=True`, which is not a fact of its own; base fields come first, as stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any, Self, dataclass_transform

from domain.engine.postings import Posting
from domain.engine.sealed import FLAT, SHARED, opened, seal_attributes, sealed, thawed

SHARED.add(Posting)
FLAT.add(Posting)

FACT_TYPES: dict[str, type[Fact]] = {}


@dataclass_transform(field_specifiers=(field,))
class _FactMeta(type):
    """Turns each fact class into a slotted dataclass and registers it (see the module)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], *,
                abstract: bool = False, **kwargs: Any) -> Any:
        # Typed Any: `dataclass(slots=True)` returns a new class, a type mypy cannot follow.
        cls: Any = super().__new__(mcls, name, bases, namespace, **kwargs)
        if "__slots__" in namespace:  # `Fact` itself, or the slotted copy dataclass makes
            return cls
        cls = dataclass(slots=True, frozen=True)(cls)
        if not abstract:
            FACT_TYPES[name] = cls
            SHARED.add(cls)
        return cls


class Fact(metaclass=_FactMeta):
    __slots__ = ()

    @property
    def type(self) -> str:
        return type(self).__name__

    def carried_postings(self) -> list[Posting]:
        """The chip movements this fact records, in order (none for most facts)."""
        posting = getattr(self, "posting", None)
        if posting is not None:
            return [posting]
        return list(getattr(self, "postings", ()))

    def seal(self) -> None:
        """A fact is frozen, but the lists and dicts it holds are not: the process's cache
        shares the facts its deals hold (a settlement), so those are made read-only too."""
        for f in fields(self):
            value = getattr(self, f.name)
            if type(value) in (list, dict, tuple):
                object.__setattr__(self, f.name, sealed(value))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for f in fields(self):
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

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """An independent copy, as `copy.deepcopy` would make it but ten times cheaper: the
        ledger copies a deal or table for every command it decides (to decide on, and from
        its cache), and the generic walk cost more than deciding. Containers are copied
        (open again when the state was sealed); facts, postings and rules are shared, since
        they are frozen."""
        clone: Self = object.__new__(opened(type(self)))
        clone.__dict__.update({name: value if type(value) in _ATOMS else thawed(value, memo)
                               for name, value in self.__dict__.items()})
        return clone

    def seal(self) -> None:
        """Make this state read-only in place (domain/engine/sealed.py): the process's
        cache shares it between threads."""
        seal_attributes(self)

    @classmethod
    def replay(cls, history: Iterable[Fact]) -> Self:
        state = cls()
        for fact in history:
            state.apply(fact)
        return state


_ATOMS = frozenset({str, int, bool, float, type(None)})


# --- Shared openings: not facts of their own ---------------------------------------------

class PlayerFact(Fact, abstract=True):
    player: str


class HandFact(PlayerFact, abstract=True):
    hand: int


class BankerFact(Fact, abstract=True):
    banker: str


class SeatFact(Fact, abstract=True):
    player_id: str


# --- Deal facts --------------------------------------------------------------------------

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
    # The players' contributions mixed into the pack's seed, in the order recorded (R1.7);
    # every deal dealt from the pack carries them.
    contributions: list[dict[str, str]] = field(default_factory=list)


class CardDealt(HandFact):
    """`player` is the banker's id for the banker's own cards (whose `hand` is 0)."""

    card: str
    face_up: bool
    rule: str


class StakePlaced(PlayerFact):
    amount: int
    posting: Posting


class PlayerSatOut(PlayerFact):
    """R3.5: holding less than the minimum stake when their turn to stake came, the player
    sits this deal out; their first card (in its `CardDealt` only) went under the pack."""

    reason: str
    rule: str


class BankerDoubled(BankerFact): ...


class BankerDeclinedToDouble(BankerFact): ...


class ShootBetPlaced(HandFact):
    amount: int
    window: str  # first_round (R9.3) | fourth_card (R9.5) | split (R9.6)
    posting: Posting


class ShootPassed(PlayerFact):
    automatic: bool  # passed over once nothing was left to shoot (R9.3)


class CardBought(HandFact):
    amount: int
    posting: Posting


class HandTwisted(HandFact): ...


class HandSplit(HandFact):
    stake: int
    posting: Posting


class HandBurned(HandFact):
    cards: list[str]


class HandStuck(HandFact):
    automatic: bool
    rule: str


class HandFinished(HandFact):
    status: str  # pontoon | five_card_trick | royal_pontoon
    rule: str


class HandBusted(HandFact):
    postings: list[Posting]


class PlayersTurnsBegan(Fact):
    """Second cards are out and the banker holds no pontoon: players play in turn (R4)."""

    first_player: str | None


class BankerTurnBegan(BankerFact): ...


class BankerStayed(BankerFact):
    automatic: bool
    rule: str


class DealSettled(Fact):
    postings: list[Posting]
    results: list[dict[str, Any]]  # per hand: player, hand, cards, outcome, multiplier, rule
    banker_hand: str
    next_banker: str
    bank_passed_by: str | None  # "R8.1" when a pontoon took the bank
    kitty_after: int
    pontoon_held: bool
    pack_after: list[str] | None


class DealVoided(Fact):
    postings: list[Posting]
    kitty_after: int
    reason: str
    # R1.6 (the pack ran out) shuffles next; R3.5 (nobody but the banker left) keeps the pack.
    pack_after: list[str] | None = None
    shuffle_needed: bool = True


# --- Table facts -------------------------------------------------------------------------

class TableOpened(Fact):
    table_id: str
    name: str
    seats: list[str]
    banker: str
    rules: dict[str, Any]
    pack_mode: str  # shuffled | ordered | recorded
    cuts: list[dict[str, str]] = field(default_factory=list)  # R3.2, empty if named


class PackArranged(Fact):
    cards: list[str]


class PackShuffled(Fact):
    seed: str  # secret until the next shuffle reveals it (R1.7)
    commitment: str
    revealed_seed: str | None  # the previous pack's seed, now public
    rule: str


class ContributionAdded(SeatFact):
    """A seated player's randomness for the pack committed to and not yet dealt from (R1.7)."""

    value: str  # 64 hex digits
    commitment: str  # the pack it is mixed into


class PlayerSeated(SeatFact):
    position: int


class PlayerLeft(SeatFact): ...


class KittyPutUp(BankerFact):
    amount: int
    kitty_after: int
    rule: str  # R9.1 (a new kitty) or R9.9 (a top-up)
    posting: Posting


class BankSold(Fact):
    seller: str
    buyer: str
    price: int
    rule: str  # R8.2, or R9.10 at an auction
    postings: list[Posting]


class AuctionOpened(BankerFact): ...


class BidPlaced(SeatFact):
    price: int


class AuctionClosed(Fact):
    sold_to: str | None
    price: int | None
    passed_over: list[str]  # bidders who no longer held their price (R9.10)


class KittyCorrected(Fact):
    """A dispute's correction moved chips into or out of the kitty (R11.4)."""

    change: int
    kitty_after: int
    dispute_id: str


class DealOpened(Fact):
    deal_id: str
    number: int


class DealEnded(Fact):
    deal_id: str
    phase: str  # settled | void
    next_banker: str
    kitty_after: int
    pack_after: list[str] | None
    shuffle_needed: bool
