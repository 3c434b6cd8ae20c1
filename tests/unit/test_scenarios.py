"""The public scenarios (tests/scenarios/data) played through the rules engine alone."""

import pytest

from tests.scenarios.runner import load, play, scenario_files


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.stem)
def test_scenario_plays_to_its_expected_chips(path):
    play(load(path))
