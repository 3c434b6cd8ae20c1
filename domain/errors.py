"""One family of refusals: each names the rule that refused the command, where one did.

The API maps the family to HTTP in one place: `NotNow` is 409 (the command is not expected at
this moment), `NotAllowed` is 422 (it is expected, but a rule refuses what it asks).
"""

from __future__ import annotations


class PontoonError(Exception):
    """Base of every refusal. `rule` is a RULES.md id such as "R4.3", or None."""

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
