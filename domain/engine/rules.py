"""A table's rules (R3.3) and the variations of R10, validated once when the table opens."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from domain.engine.sealed import FLAT, SHARED
from domain.errors import InvalidSetup

SPLIT_OPTIONS = ("pairs", "aces", "none")
PONTOON_KINDS = ("plain", "picture_beats_ten", "ace_ten_not_pontoon", "royal_naturals")
BURN_OPTIONS = ("off", "13", "14")


@dataclass(frozen=True, slots=True)
class TableRules:
    """Every field has the default of API.md; the first value of each R10 option."""

    min_stake: int = 1
    max_stake: int = 10
    shoot: bool = False
    kitty_min: int = 10
    kitty_max: int = 100
    packs: int = 1
    split: str = "pairs"
    stick_minimum: int = 15
    banker_may_double: bool = False
    pontoon_pays: int = 2
    banker_pontoon_collects: int = 2
    no_fifth_card_buy_on_low_four: bool = False
    royal_pontoon: bool = False
    pontoon_kinds: str = "plain"
    burn: str = "off"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> TableRules:
        """Build and validate rules; unknown fields and impossible values are refused (R3.3)."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidSetup(f"unknown table rules {unknown}; known rules are {sorted(known)}",
                               "R3.3")
        if "burn" in data and not isinstance(data["burn"], bool):
            data["burn"] = str(data["burn"])
        rules = cls(**data)
        rules.check()
        return rules

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _FIELDS}

    def __deepcopy__(self, memo: dict[int, Any]) -> TableRules:
        return self  # frozen, and every field a str, int or bool: a copy would be the same

    def check(self) -> None:
        def refuse(message: str, rule: str) -> None:
            raise InvalidSetup(message, rule)

        for name in ("min_stake", "max_stake", "kitty_min", "kitty_max"):
            value = getattr(self, name)
            if not _is_int(value) or value < 1:
                refuse(f"{name} must be a whole number of chips, at least 1 (R3.3)", "R3.3")
        if self.min_stake > self.max_stake:
            refuse("min_stake may not exceed max_stake (R3.3)", "R3.3")
        if self.kitty_min > self.kitty_max:
            refuse("kitty_min may not exceed kitty_max (R3.3)", "R3.3")
        for name in ("shoot", "banker_may_double", "no_fifth_card_buy_on_low_four",
                     "royal_pontoon"):
            if not isinstance(getattr(self, name), bool):
                refuse(f"{name} must be true or false (R10)", "R10")
        if self.packs not in (1, 2) or not _is_int(self.packs):
            refuse("packs must be 1 or 2 (R1.1)", "R1.1")
        if self.split not in SPLIT_OPTIONS:
            refuse(f"split must be one of {list(SPLIT_OPTIONS)} (R10.1)", "R10.1")
        if self.stick_minimum not in (15, 16) or not _is_int(self.stick_minimum):
            refuse("stick_minimum must be 15 or 16 (R10.2)", "R10.2")
        if self.pontoon_pays not in (1, 2, 3) or not _is_int(self.pontoon_pays):
            refuse("pontoon_pays must be 1, 2 or 3 (R10.4)", "R10.4")
        if self.banker_pontoon_collects not in (1, 2) or not _is_int(self.banker_pontoon_collects):
            refuse("banker_pontoon_collects must be 1 or 2 (R10.4)", "R10.4")
        if self.pontoon_kinds not in PONTOON_KINDS:
            refuse(f"pontoon_kinds must be one of {list(PONTOON_KINDS)} (R10.7)", "R10.7")
        if self.burn not in BURN_OPTIONS:
            refuse(f"burn must be one of {list(BURN_OPTIONS)} (R10.8)", "R10.8")

    @property
    def burn_total(self) -> int | None:
        """The hard total a hand must make to burn (R10.8), or None when burning is off."""
        return None if self.burn == "off" else int(self.burn)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_FIELDS = tuple(f.name for f in fields(TableRules))
SHARED.add(TableRules)  # frozen: sealed state and its copies share one
FLAT.add(TableRules)
