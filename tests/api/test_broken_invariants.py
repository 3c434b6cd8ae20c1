"""A broken invariant is a 500 naming it, with the request id, logged and counted (issue 22).

The break is real: the balances read model's table is changed by hand on each store, so the
balances no longer total zero (R11.1). The service says which invariant does not hold,
never a bare 500, and the same holds under `python -O` (the check is no assert:
tests/unit/test_optimised_python.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from config import Settings
from tests.api.helpers import PROBLEM, Club, build_app, close_app, ok
from tests.api.test_commit_is_final import run_sql
from tests.api.test_operations import metric


@pytest.fixture
def app(store_settings: Settings) -> Iterator[Flask]:
    flask_app = build_app(store_settings)
    yield flask_app
    close_app(flask_app)


def test_r11_1_balances_that_do_not_total_zero_are_a_500_naming_the_invariant(
        app: Flask, store_settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    club = Club(app.test_client())
    pat = club.player("Pat", 0)
    position = club.buy_in(pat, 30)["position"]
    ok(club.client.get(f"/v1/balances?min_position={position}", headers=club.treasurer))
    run_sql(store_settings, "UPDATE accounts SET balance = balance + 7 WHERE kind = 'player'")

    answer = club.client.get("/v1/balances", headers={**club.treasurer,
                                                      "X-Request-Id": "broken-1"})

    assert answer.status_code == 500 and answer.mimetype == PROBLEM
    body = answer.get_json()
    assert (body["invariant"], body["rule"], body["request_id"]) == \
        ("chips are conserved", "R11.1", "broken-1")
    assert "the balances total 7 chips, not 0" in body["detail"]
    assert any("invariant broken: chips are conserved" in r.getMessage() and r.exc_info
               for r in caplog.records)
    text = club.client.get("/metrics").get_data(as_text=True)
    assert (metric(text, "pontoon_invariant_failures_total",
                   invariant="chips are conserved") or 0) >= 1
