"""One family of refusals: each names the rule that refused the command, where one did.

The API maps the family to HTTP in one place: `NotNow` is 409 (the command is not expected at
this moment), `NotAllowed` is 422 (it is expected, but a rule refuses what it asks).
`InvariantBroken` is not a refusal: something the rules guarantee does not hold (a bug, or a
store changed by hand), checked where it must hold and raised under `python -O` too (an
`assert` would be removed); the API answers it 500, naming the invariant.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


class PontoonError(Exception):
    """Base of every refusal (and of `InvariantBroken`). `rule` is a RULES.md id such as
    "R4.3", or None."""

    status = 422

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return self.message


class NotNow(PontoonError):
    """Wrong phase, not this player's turn or hand, no window open, a deal already open."""

    status = 409


class NotAllowed(PontoonError):
    """The command is expected now but a rule refuses what it asks (amount, option, cards)."""

    status = 422


class InsufficientChips(NotAllowed):
    """R11.2: a player may not stake, buy, split, shoot or pay with chips they do not hold."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "R11.2")


class InvalidSetup(NotAllowed):
    """A table, pack or rules object that cannot be played (R1.7, R3.3, R10)."""


class NotFound(PontoonError):
    """An unknown player, table or deal."""

    status = 404


class Conflict(PontoonError):
    """A concurrent change won the race; the command may be sent again."""

    status = 409


class InvariantBroken(PontoonError):
    """Something that always holds does not: never the sender's fault, never a reason to send
    the command again. `invariant` names what should hold."""

    status = 500
    invariant = "an invariant of the ledger"

    def __init__(self, message: str, rule: str | None = None, *,
                 invariant: str | None = None) -> None:
        super().__init__(message, rule)
        if invariant is not None:
            self.invariant = invariant


def present(value: T | None, what: str) -> T:
    """`value`, which always exists here; `what` names it ("an auction in progress"). A check
    rather than `assert ... is not None`, which `python -O` removes."""
    if value is None:
        raise InvariantBroken(f"expected {what}, found none", invariant=f"{what} exists")
    return value


def of_kind(value: object, kind: type[T], what: str) -> T:
    """`value`, which is always a `kind` here; `what` names it ("the deal's opening fact"). A
    check rather than `assert isinstance(...)`, which `python -O` removes."""
    if not isinstance(value, kind):
        raise InvariantBroken(f"expected {what} of type {kind.__name__}, found one of type "
                              f"{type(value).__name__}",
                              invariant=f"{what} is of type {kind.__name__}")
    return value


class ChipsNotConserved(InvariantBroken):
    """R11.1: every chip moved leaves one account and reaches another; the escrow of a settled
    deal is empty and all balances total zero."""

    invariant = "chips are conserved"


class InvalidPosting(InvariantBroken):
    """R11.1: a posting moves a positive whole number of chips between two accounts."""

    invariant = "a posting moves a positive whole amount between two different accounts"


class PackOutOfOrder(InvariantBroken):
    """R1.4, R1.7: a deal deals its pack's cards in the pack's order."""

    invariant = "cards are dealt in the pack's order"


class SharedStateChanged(InvariantBroken):
    """What the process's cache shares between threads is never changed in place."""

    invariant = "shared state is never changed in place"
