"""Operations over HTTP (API.md, Operations; issue 10): health for anyone and for staff,
readiness, request ids, metrics, and a read model that fails for real then recovers."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask

from tests.api.helpers import PROBLEM, TREASURER, Club, build_app, close_app, eventually, ok
from tests.conftest import TREASURER_TOKEN
from tests.integration.test_failing_read_model import POISON, cure, poison


@pytest.fixture
def app(store_settings: Any) -> Iterator[Flask]:
    flask_app = build_app(replace(store_settings, ready_max_lag=3))
    yield flask_app
    close_app(flask_app)


@pytest.fixture
def club(app: Flask) -> Club:
    return Club(app.test_client())


def metric(text: str, name: str, **labels: str) -> float | None:
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    pattern = rf"^{re.escape(name)}(\{{{re.escape(wanted)}\}})? (\S+)$" if labels else \
        rf"^{re.escape(name)} (\S+)$"
    for line in text.splitlines():
        found = re.match(pattern, line)
        if found:
            return float(found.groups()[-1])
    return None


# --- health and readiness ----------------------------------------------------------------------

def test_health_without_a_token_says_only_that_the_service_is_up(club: Club) -> None:
    """API.md Operations: GET /v1/health without a token is only `{"status"}`."""
    answer = club.client.get("/v1/health")

    assert ok(answer) == {"status": "ok"}


def test_health_for_a_player_token_is_the_same_as_without_one(club: Club) -> None:
    pat = club.player("Pat", 0)

    assert ok(club.client.get("/v1/health", headers=pat.headers)) == {"status": "ok"}


def test_health_for_staff_names_the_store_position_lags_and_no_failures(
        club: Club, store_settings: Any) -> None:
    operator = club.operator
    bought = club.buy_in(club.player("Pat", 0), 5)

    health = ok(club.client.get("/v1/health", headers=operator))

    assert health["status"] == "ok" and health["store"] == store_settings.store
    assert health["position"] == bought["position"] and health["failures"] == []
    assert {"balances", "statements", "audit", "disputes", "tables", "webhooks"} \
        <= health["projections"].keys()


def test_ready_answers_200_once_the_read_models_are_within_their_lag_limit(club: Club) -> None:
    position = club.buy_in(club.player("Pat", 0), 5)["position"]
    ok(club.client.get(f"/v1/balances?min_position={position}", headers=club.treasurer))

    assert ok(club.client.get("/v1/health/ready")) == {"status": "ready"}


def test_ready_answers_503_naming_the_read_models_too_far_behind(store_settings: Any) -> None:
    """API.md Operations: 503 naming what is not ready (here nothing runs the read models,
    and the log is more events ahead than PONTOON_READY_MAX_LAG allows)."""
    from api import create_app

    app = create_app(replace(store_settings, ready_max_lag=3, projections="off",
                             treasurer_token=TREASURER_TOKEN))
    try:
        club = Club(app.test_client())
        for name in ("Pat", "Quinn", "Rex"):
            club.player(name, 5)

        answer = app.test_client().get("/v1/health/ready")

        assert answer.status_code == 503 and answer.mimetype == PROBLEM
        body = answer.get_json()
        assert set(body["errors"]) == {"projections"}
        assert "balances is" in body["errors"]["projections"] and "limit is 3" in body["detail"]
        assert answer.headers["Retry-After"]
    finally:
        close_app(app)


# --- request ids -------------------------------------------------------------------------------

def test_every_response_carries_the_request_id_the_client_sent(club: Club) -> None:
    for path, headers in (("/v1/health", {}), ("/v1/balances", TREASURER),
                          ("/v1/players/not-a-player", TREASURER), ("/v1/balances", {}),
                          ("/nowhere", {})):
        answer = club.client.get(path, headers={**headers, "X-Request-Id": "client-42"})

        assert answer.headers["X-Request-Id"] == "client-42", (path, answer.status_code)


def test_a_response_to_a_request_without_an_id_carries_a_new_one_each_time(club: Club) -> None:
    first = club.client.get("/v1/health").headers["X-Request-Id"]
    second = club.client.get("/v1/health").headers["X-Request-Id"]
    spaced = club.client.get("/v1/health", headers={"X-Request-Id": "a b c"})
    too_long = club.client.get("/v1/health", headers={"X-Request-Id": "x" * 201})

    assert first and second and first != second
    assert re.fullmatch(r"[0-9a-f]{32}", first), first  # 128 bits, as a uuid4's hex
    assert spaced.headers["X-Request-Id"] not in ("a b c", first, second)
    assert len(too_long.headers["X-Request-Id"]) < 201


def test_each_request_is_logged_once_with_its_id_and_no_token(
        club: Club, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pontoon.access")

    club.client.get("/v1/balances", headers={**TREASURER, "X-Request-Id": "r-1"})

    [line] = [r for r in caplog.records if r.name == "pontoon.access"
              and getattr(r, "request_id", None) == "r-1"]
    assert (line.method, line.path, line.status) == ("GET", "/v1/balances", 200)  # type: ignore[attr-defined]
    assert "Bearer" not in caplog.text and TREASURER["Authorization"][7:] not in caplog.text


# --- metrics -----------------------------------------------------------------------------------

def test_metrics_count_commands_by_outcome_and_report_each_read_models_lag(club: Club) -> None:
    pat = club.player("Pat", 5)
    refused = club.client.post(f"/v1/players/{pat.id}/cash-outs", json={"amount": 50},
                               headers=club.treasurer)
    assert refused.status_code == 422
    position = club.buy_in(pat, 5)["position"]
    ok(club.client.get(f"/v1/balances?min_position={position}", headers=club.treasurer))

    answer = club.client.get("/metrics")

    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    text = answer.get_data(as_text=True)
    commands = [line for line in text.splitlines() if line.startswith("pontoon_commands_total")]
    assert any('outcome="refused"' in line for line in commands), commands
    assert any('outcome="accepted"' in line for line in commands), commands
    assert "pontoon_request_duration_seconds_bucket" in text
    assert metric(text, "pontoon_projection_lag_events", model="balances") == 0
    assert metric(text, "pontoon_projection_failing", model="balances") == 0
    assert metric(text, "pontoon_webhook_backlog") == 0
    assert metric(text, "pontoon_store_up") == 1


# --- a read model that fails for real (issue 10) ----------------------------------------------

def test_a_failing_read_model_is_named_by_health_reads_metrics_and_logs_then_recovers(
        app: Flask, club: Club, store_settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pontoon.projections")
    services = app.extensions["pontoon"]
    services.projections.failures.most = 0.2  # retried often, so recovery is quick here
    poison(services.store, store_settings.store)
    poisoned = club.client.post("/v1/players", json={"name": POISON}, headers=TREASURER)
    position = ok(poisoned, 201)["position"]

    health = eventually(lambda: (h := ok(club.client.get("/v1/health", headers=TREASURER)))
                        ["failures"] and h, "health naming the failure")
    read = club.client.get(f"/v1/balances?min_position={position}", headers=TREASURER)
    text = club.client.get("/metrics").get_data(as_text=True)

    assert health["status"] == "degraded"
    [failure] = health["failures"]
    # The player's account is opened at or before the command's last event (its token).
    assert failure["model"] == "balances" and failure["position"] <= position
    assert "no_poison" in failure["error"] or "poisoned row" in failure["error"]
    assert read.status_code == 503 and read.headers["Retry-After"]
    assert f"balances cannot apply the event at position {failure['position']}" \
        in read.get_json()["detail"]
    assert metric(text, "pontoon_projection_failing", model="balances") == 1
    assert metric(text, "pontoon_projection_failing", model="statements") == 0
    assert any(r.levelno == logging.ERROR and "balances" in r.getMessage()
               and str(failure["position"]) in r.getMessage() for r in caplog.records)

    cure(services.store, store_settings.store)

    eventually(lambda: ok(club.client.get("/v1/health", headers=TREASURER))["failures"] == [],
               "the failure cleared")
    names = [a["name"] for a in ok(club.client.get(
        f"/v1/balances?min_position={position}", headers=TREASURER))["accounts"]]
    assert POISON in names
