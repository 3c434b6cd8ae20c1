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


@pytest.mark.parametrize(("name", "value"), [
    ("PONTOON_PORT", "abc"), ("PONTOON_POOL_SIZE", "-2"), ("PONTOON_READY_MAX_LAG", "lots"),
    ("PONTOON_WEBHOOK_RETRY_BASE", "0"), ("PONTOON_WEBHOOK_TIMEOUT", "nan"),
    ("PONTOON_WEBHOOK_RETRY_FOR", "inf"), ("PONTOON_PROJECTIONS", "sometimes"),
    ("PONTOON_DATABASE_URL", "mysql://db/pontoon"), ("PONTOON_LOG_LEVEL", "verbose"),
    ("PONTOON_WEBHOOK_ALLOW_PRIVATE", "yes")])
def test_a_setting_that_makes_no_sense_is_refused_by_its_name(name, value):
    with pytest.raises(ValueError, match=name):
        Settings.from_env({name: value})


def test_a_treasurer_token_of_fewer_than_32_characters_is_refused_by_name():
    """README, tokens: a token chosen outside is at least 32 characters, never guessable."""
    for short in ("pt_e2e", "x" * 31, "  " + "x" * 31 + "  "):
        with pytest.raises(ValueError, match="PONTOON_TREASURER_TOKEN must be at least 32"):
            Settings.from_env({"PONTOON_TREASURER_TOKEN": short})
    chosen = "pt_" + "k" * 29

    assert Settings.from_env({"PONTOON_TREASURER_TOKEN": chosen}).treasurer_token == chosen
    assert Settings.from_env({"PONTOON_TREASURER_TOKEN": ""}).treasurer_token is None


def test_a_log_level_is_taken_in_any_case():
    assert Settings.from_env({"PONTOON_LOG_LEVEL": "debug"}).log_level == "debug"


def test_numbers_in_settings_are_read_as_numbers():
    settings = Settings.from_env({"PONTOON_PORT": "8123", "PONTOON_WEBHOOK_RETRY_BASE": "0.5",
                                  "PONTOON_POOL_OVERFLOW": ""})

    assert (settings.port, settings.webhook_retry_base, settings.pool_overflow) == \
        (8123, 0.5, 10)


def test_webhooks_reach_private_addresses_only_when_told():
    assert Settings.from_env({}).webhook_allow_private is False
    assert Settings.from_env({"PONTOON_WEBHOOK_ALLOW_PRIVATE": "true"}).webhook_allow_private
    assert not Settings.from_env({"PONTOON_WEBHOOK_ALLOW_PRIVATE": "False"}
                                 ).webhook_allow_private
