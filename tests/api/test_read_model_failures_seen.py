"""A read model's failure is seen (issue 22): by readiness, by /metrics and in the log.

Two real failures at once, on both stores: the balances and statements tables refuse every
write (a trigger on each, as a broken deploy or a full disk might), and the tables model's
own code raises (a bug, injected by replacing that one model's `statements`). Each failing
model stops alone: the others reach the head of the log. GET /v1/health/ready answers 503
naming each failing model with its error, /metrics names each with its error's class, and
each failure's traceback is logged once however often it is tried again; "cannot use the
store" is never said, since the store answers. Mended, every model catches up and ready is
200 again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from config import Settings
from tests.api.helpers import PROBLEM, Club, build_app, close_app, eventually, ok
from tests.api.test_commit_is_final import run_sql
from tests.api.test_operations import metric

pytestmark = pytest.mark.timeout(120)

REFUSING = ("accounts", "postings")


class TablesModelBug(Exception):
    """What the injected bug raises."""


@pytest.fixture
def app(store_settings: Settings) -> Iterator[Flask]:
    flask_app = build_app(store_settings)
    failures = flask_app.extensions["pontoon"].projections.failures
    failures.first, failures.most = 0.05, 0.2  # tried again often: quick to see, to recover
    yield flask_app
    close_app(flask_app)


def refuse_writes(settings: Settings) -> None:
    if settings.store == "sqlite":
        run_sql(settings, *(f"CREATE TRIGGER refuse_{table}_{verb} BEFORE {verb} ON {table} "
                            f"BEGIN SELECT RAISE(ABORT, '{table} refuses writes'); END"
                            for table in REFUSING for verb in ("INSERT", "UPDATE")))
        return
    run_sql(settings,
            "CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION '% refuses writes', TG_TABLE_NAME; END $$",
            *(f"CREATE TRIGGER refuse_writes BEFORE INSERT OR UPDATE ON {table} "
              "FOR EACH ROW EXECUTE FUNCTION refuse_writes()" for table in REFUSING))


def mend(settings: Settings) -> None:
    if settings.store == "sqlite":
        run_sql(settings, *(f"DROP TRIGGER refuse_{table}_{verb}"
                            for table in REFUSING for verb in ("INSERT", "UPDATE")))
        return
    run_sql(settings, *(f"DROP TRIGGER refuse_writes ON {table}" for table in REFUSING))


def test_failing_read_models_are_named_by_readiness_metrics_and_log_until_mended(
        app: Flask, store_settings: Settings, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.INFO, logger="pontoon.projections")
    club = Club(app.test_client())
    projections = app.extensions["pontoon"].projections
    tables = next(m for m in projections.models if m.name == "tables")

    def bug(event: Any, position: int) -> Any:
        raise TablesModelBug("the tables model failed on an event it should apply")

    monkeypatch.setattr(tables, "statements", bug)
    refuse_writes(store_settings)
    bea, pat = club.player("Bea", 20), club.player("Pat", 20)
    club.table([bea, pat])

    def failing_all() -> Any:
        answer = club.client.get("/v1/health/ready")
        said = (answer.get_json().get("errors") or {}).get("failing", "")
        return answer if all(f"{m} cannot apply" in said
                             for m in ("balances", "statements", "tables")) else None
    ready = eventually(failing_all, "ready naming the three failing models")
    eventually(lambda: sum("tables" in r.getMessage() and "attempt 3" in r.getMessage()
                           for r in caplog.records), "the bug tried again twice")
    text = club.client.get("/metrics").get_data(as_text=True)
    lags = {name: s["lag"] for name, s in projections.status().items()}

    assert ready.status_code == 503 and ready.mimetype == PROBLEM
    failing = ready.get_json()["errors"]["failing"]
    assert "TablesModelBug: the tables model failed" in failing
    assert "accounts refuses writes" in failing and "postings refuses writes" in failing
    assert metric(text, "pontoon_projection_failure_info", model="tables",
                  error="TablesModelBug") == 1
    for model in ("balances", "statements"):
        assert metric(text, "pontoon_projection_failing", model=model) == 1
        assert re.search(rf'^pontoon_projection_failure_info{{error="\w+",model="{model}"}} 1',
                         text, re.MULTILINE)
    assert {lags[m] for m in ("audit", "disputes", "tokens")} == {0}  # the others go on
    tracebacks = [r for r in caplog.records if "Traceback" in r.getMessage()]
    assert sorted(r.model for r in tracebacks) == ["balances", "statements", "tables"]  # type: ignore[attr-defined]
    assert "TablesModelBug" in next(r.getMessage() for r in tracebacks
                                    if r.model == "tables")  # type: ignore[attr-defined]
    assert not any("cannot use the store" in r.getMessage() for r in caplog.records)

    mend(store_settings)
    monkeypatch.undo()

    eventually(lambda: club.client.get("/v1/health/ready").status_code == 200,
               "ready again once mended")
    assert ok(club.client.get("/v1/health/ready")) == {"status": "ready"}
    assert club.balance(pat) == 20
    assert {s["lag"] for s in projections.status().values()} == {0}
