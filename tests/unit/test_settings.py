"""Settings read from the environment: a value that makes no sense stops the service at
start with the variable's name, rather than running it some other way."""

from __future__ import annotations

import pytest

from config import Settings


def test_trusted_proxies_are_a_whole_number_and_none_by_default():
    assert Settings.from_env({}).trusted_proxies == 0
    assert Settings.from_env({"PONTOON_TRUSTED_PROXIES": ""}).trusted_proxies == 0
    assert Settings.from_env({"PONTOON_TRUSTED_PROXIES": "2"}).trusted_proxies == 2


@pytest.mark.parametrize("value", ["-1", "one", "1.5"])
def test_a_trusted_proxies_value_that_is_no_count_is_refused_by_name(value):
    with pytest.raises(ValueError, match="PONTOON_TRUSTED_PROXIES"):
        Settings.from_env({"PONTOON_TRUSTED_PROXIES": value})
