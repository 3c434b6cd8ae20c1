"""The field types every request schema uses for what a client writes: text, whole numbers
and account references, each refused at the edge when the ledger could not keep it true.

A value of the right type that the contract does not accept (a control character in a
name, an amount above its bound, an account spelled another way) is 422 naming the field
(API.md, Input limits); a value of the wrong type stays 400. The messages of these refusals
are `Refusal` strings, so that api/errors.py can tell the two apart in webargs' messages.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from marshmallow import ValidationError, fields, validate

from domain.engine.postings import parse_account

# Every integer a client sends has at most this many digits before it is converted: Python
# refuses more than 4300 (ValueError) and converting is quadratic below that.
DIGITS_MAX = 20

# Line breaks and tabs are kept in free text (a dispute's reason, a resolution's note), where
# a treasurer writes sentences; nowhere else.
MULTILINE = frozenset("\t\n\r")
# Bidirectional controls let a name display as another (the "Trojan Source" trick).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class Refusal(str):
    """A field message meaning "well-formed, but refused" (422), not "malformed" (400)."""

    __slots__ = ()


class QueryRefusal(Refusal):
    """A query value well-formed but refused (422), where every other fault of a query is
    400: a date that names no club day, or one the ledger cannot hold (API.md, "The club's
    calendar")."""

    __slots__ = ()


class Oversized:
    """Stands for a JSON integer with more than DIGITS_MAX digits, never converted."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"


def bounded_int(text: str) -> int | Oversized:
    """json.loads' `parse_int`: an integer is converted only once its length is known."""
    digits = len(text) - text.startswith("-")
    return int(text) if digits <= DIGITS_MAX else Oversized(digits)


def text_problem(value: str, *, multiline: bool = False) -> str | None:
    """Why `value` cannot be stored as text, or None: NUL and other control characters,
    lone surrogates (unencodable), line or paragraph separators and bidi controls."""
    for index, char in enumerate(value):
        if multiline and char in MULTILINE:
            continue
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Zl", "Zp") or char in BIDI_CONTROLS:
            kind = "a lone surrogate" if category == "Cs" else "a control character"
            return (f"{kind} (U+{ord(char):04X}) at character {index + 1} is not allowed "
                    "in text" + ("" if multiline else "; text here is one line"))
    return None


class Bounds(validate.Range):
    """validate.Range whose message is a refusal (422); the bounds go into the OpenAPI."""

    def _format_error(self, value: Any, message: str) -> str:
        return Refusal(super()._format_error(value, message))


class Length(validate.Length):
    """validate.Length whose message is a refusal (422)."""

    def _format_error(self, value: Any, message: str) -> str:
        return Refusal(super()._format_error(value, message))


class Whole(fields.Integer):
    """A whole number a client sends (never "5" or 5.0), within documented bounds."""

    def __init__(self, *, minimum: int | None = None, maximum: int, **options: Any) -> None:
        super().__init__(strict=True, validate=Bounds(min=minimum, max=maximum), **options)
        self.bounds = f"from {minimum} to {maximum}" if minimum is not None else \
            f"at most {maximum}"

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, Oversized):
            raise ValidationError(Refusal(f"Must be a whole number {self.bounds}."))
        return super()._deserialize(value, attr, data, **kwargs)  # type: ignore[no-any-return]


class Text(fields.String):
    """Text a client writes: no control characters (tab and line breaks only where
    `multiline`), no lone surrogates, and a visible character unless `blank` is allowed."""

    def __init__(self, *, length_max: int, length_min: int = 1, multiline: bool = False,
                 blank: bool = False, **options: Any) -> None:
        super().__init__(validate=Length(min=length_min, max=length_max), **options)
        self.multiline, self.blank = multiline, blank

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        problem = text_problem(text, multiline=self.multiline)
        if problem is not None:
            raise ValidationError(Refusal(problem))
        if text and not self.blank and not text.strip():
            raise ValidationError(Refusal("Write at least one visible character."))
        return text


class HexDigits(fields.String):
    """`digits` hex digits a client sends (a contribution's 32 random bytes, R1.7): of
    another length or with another character, a refusal (422) naming the field."""

    def __init__(self, digits: int, **options: Any) -> None:
        super().__init__(metadata={"pattern": f"^[0-9a-fA-F]{{{digits}}}$", **options.pop(
            "metadata", {})}, **options)
        self.digits = digits

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        if len(text) != self.digits or not all(c in "0123456789abcdefABCDEF" for c in text):
            raise ValidationError(Refusal(f"Must be {self.digits} hex digits."))
        return text.lower()


class AccountReference(fields.String):
    """`player:<id>`, `kitty:<table id>` or `treasury`, parsed, never matched as text."""

    def __init__(self, **options: Any) -> None:
        super().__init__(validate=Length(max=100), metadata={
            "description": "player:<id>, kitty:<table id> or treasury; ids in canonical "
                           "lower-case hyphenated UUID form",
            "pattern": "^(player:|kitty:)[0-9a-f-]{36}$|^treasury$"}, **options)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name: str = super()._deserialize(value, attr, data, **kwargs)
        try:
            parse_account(name)
        except ValueError as error:
            raise ValidationError(Refusal(str(error))) from None
        return name
