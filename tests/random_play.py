"""What the random tests share: how long they run, and the strategies that draw table rules.

Two hypothesis profiles, chosen by PONTOON_HYPOTHESIS_PROFILE:
- `ci` (the default): derandomized, so every run plays the same examples (a failure in CI
  fails again on a laptop), and bounded, so the random tests stay a small part of the suite;
- `long` (`make test-long`): PONTOON_HYPOTHESIS_FACTOR (default 10) times the examples and
  twice the steps of each stateful run, from fresh random seeds every time, with failures
  kept in `.hypothesis/` so the next run tries them first.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from domain.engine.rules import BURN_OPTIONS, PONTOON_KINDS, SPLIT_OPTIONS

PROFILES = ("ci", "long")
PROFILE = os.environ.get("PONTOON_HYPOTHESIS_PROFILE", "ci")
if PROFILE not in PROFILES:
    raise ValueError(f"PONTOON_HYPOTHESIS_PROFILE must be one of {PROFILES}, not {PROFILE!r}")
FACTOR = int(os.environ.get("PONTOON_HYPOTHESIS_FACTOR", "10")) if PROFILE == "long" else 1

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True, suppress_health_check=_SLOW)
settings.register_profile("long", derandomize=False, deadline=None, print_blob=True,
                          suppress_health_check=_SLOW)


def budget(examples: int, *, steps: int | None = None, shrink: bool = True) -> settings:
    """The settings of one random test: `examples` runs (of `steps` commands each, for a
    state machine), as the profile scales them. Without `shrink` the CI profile reports a
    failing run as it found it (it replays: the blob printed reproduces it), rather than
    spending minutes on a store shrinking it; the long profile always shrinks."""
    more: dict[str, Any] = {}
    if steps is not None:
        more["stateful_step_count"] = steps * (2 if PROFILE == "long" else 1)
    phases = [Phase.explicit, Phase.reuse, Phase.generate]
    if shrink or PROFILE == "long":
        phases.append(Phase.shrink)
    return settings(settings.get_profile(PROFILE), max_examples=examples * FACTOR,
                    phases=phases, **more)


@st.composite
def table_rules(draw: st.DrawFn) -> dict[str, Any]:
    """Every option of TableRules (R3.3, R9, R10)."""
    min_stake = draw(st.integers(1, 10))
    kitty_min = draw(st.integers(1, 60))
    return {
        "min_stake": min_stake,
        "max_stake": draw(st.integers(min_stake, 30)),
        "shoot": draw(st.booleans()),
        "kitty_min": kitty_min,
        "kitty_max": draw(st.integers(kitty_min, 200)),
        "packs": draw(st.sampled_from((1, 2))),
        "split": draw(st.sampled_from(SPLIT_OPTIONS)),
        "stick_minimum": draw(st.sampled_from((15, 16))),
        "banker_may_double": draw(st.booleans()),
        "pontoon_pays": draw(st.sampled_from((1, 2, 3))),
        "banker_pontoon_collects": draw(st.sampled_from((1, 2))),
        "no_fifth_card_buy_on_low_four": draw(st.booleans()),
        "royal_pontoon": draw(st.booleans()),
        "pontoon_kinds": draw(st.sampled_from(PONTOON_KINDS)),
        "burn": draw(st.sampled_from(BURN_OPTIONS)),
    }
