"""The public scenarios played through the event-sourced Ledger on both stores."""

import pytest

from tests.ledger_club import LedgerClub
from tests.scenarios.runner import load, play, scenario_files


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.stem)
def test_scenario_plays_to_its_expected_chips_on_the_store(ledger, path):
    play(load(path), LedgerClub(ledger))
