"""A store played by `pontoon simulate --start` says so on every page and in
`GET /v1/club` (API.md "The club's calendar"; decision 114)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from flask import Flask

from config import Settings
from tests.api.helpers import send_sign_in
from tests.conftest import TREASURER_TOKEN, UNLIMITED
from tests.integration.test_rebuild_helper import played

BANNER = "Simulated history."
TREASURER = {"Authorization": f"Bearer {TREASURER_TOKEN}"}
PAGES = ("/web/", "/web/balances", "/web/players", "/web/tables", "/web/disputes",
         "/web/reports/period", "/web/sign-in")


def app_on(settings: Settings) -> Flask:
    from api import create_app

    return create_app(replace(settings, treasurer_token=TREASURER_TOKEN,
                              projections="in-process", auth_failure_limit=UNLIMITED))


@pytest.fixture
def simulated_app(store_settings: Settings) -> Iterator[Flask]:
    played(store_settings)
    flask_app = app_on(store_settings)
    yield flask_app
    flask_app.extensions["pontoon"].close()


def pages_seen(flask_app: Flask) -> dict[str, str]:
    browser = flask_app.test_client()
    signed_out = browser.get("/web/sign-in").get_data(as_text=True)
    assert send_sign_in(browser, TREASURER_TOKEN, "/web/").status_code == 303
    seen = {path: browser.get(path).get_data(as_text=True) for path in PAGES}
    return {**seen, "signed out": signed_out}


def test_every_page_of_a_simulated_store_shows_the_banner(simulated_app: Flask) -> None:
    seen = pages_seen(simulated_app)

    club = simulated_app.test_client().get("/v1/club", headers=TREASURER).get_json()

    assert {path for path, html in seen.items() if BANNER not in html} == set()
    assert club["simulated"] is True


def test_a_store_of_real_play_shows_no_banner(app: Flask) -> None:
    seen = pages_seen(app)

    club = app.test_client().get("/v1/club", headers=TREASURER).get_json()

    assert {path for path, html in seen.items() if BANNER in html} == set()
    assert club["simulated"] is False
