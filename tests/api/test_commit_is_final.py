"""A commit is final, and the store's refusals are told apart (issue 22).

Every failure here is real: the test sabotages its own store (a trigger refusing every
snapshot, a hash-chain row already sitting at the next position), never a mock. On both
stores (`store_settings`):

- with every snapshot write refused, 250 buy-ins crossing the snapshot points (versions 100
  and 200 of the account) are each answered 201 and recorded exactly once; the failed
  snapshots are logged once each, with the request id, and counted in /metrics;
- a command whose events the store refuses for another reason than a lost race (the
  hash-chain row of its position exists already) is tried once, answered 500 with the
  request id, logged with the constraint's name and counted; nothing is recorded.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from flask import Flask

from api.observability import RequestIdFilter
from config import Settings
from tests.api.helpers import PROBLEM, Club, build_app, close_app
from tests.api.test_operations import metric
from tests.integration.ledger_views import events_of, head

pytestmark = pytest.mark.timeout(240)

BUY_INS = 250  # the account's versions 2..251: snapshots due at 100 and 200


@pytest.fixture
def app(store_settings: Settings) -> Iterator[Flask]:
    flask_app = build_app(store_settings)
    yield flask_app
    close_app(flask_app)


@pytest.fixture
def club(app: Flask) -> Club:
    return Club(app.test_client())


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Log records with the request id the service's handlers add to each."""
    caplog.handler.addFilter(RequestIdFilter())
    caplog.set_level(logging.INFO)
    return caplog


def run_sql(settings: Settings, *statements: str) -> list[Any]:
    """Statements on the store itself, outside the service; the last one's rows."""
    if settings.store == "sqlite":
        with sqlite3.connect(settings.sqlite_path) as conn:
            rows: list[Any] = []
            for sql in statements:
                rows = conn.execute(sql).fetchall()
            return rows
    base, _, schema = settings.database_url.partition("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        for sql in statements:
            cursor = conn.execute(sql)
        return cursor.fetchall() if cursor.description else []


def refuse_snapshots(settings: Settings) -> None:
    """Every snapshot insert fails, as a constraint violation (the worst case: it used to be
    taken for a lost race and the command decided and saved again)."""
    if settings.store == "sqlite":
        run_sql(settings, "CREATE TRIGGER refuse_snapshots BEFORE INSERT ON stored_snapshots "
                          "BEGIN SELECT RAISE(ABORT, 'snapshots refused'); END")
        return
    run_sql(settings,
            "CREATE FUNCTION refuse_snapshots() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'snapshots refused' USING ERRCODE = 'unique_violation'; END $$",
            "CREATE TRIGGER refuse_snapshots BEFORE INSERT ON ledger_snapshots FOR EACH ROW "
            "EXECUTE FUNCTION refuse_snapshots()")


def snapshots(settings: Settings) -> int:
    table = "stored_snapshots" if settings.store == "sqlite" else "ledger_snapshots"
    return int(run_sql(settings, f"SELECT count(*) FROM {table}")[0][0])  # noqa: S608


def test_every_acknowledged_buy_in_is_recorded_once_while_every_snapshot_write_fails(
        app: Flask, club: Club, store_settings: Settings,
        logged: pytest.LogCaptureFixture) -> None:
    """R11.1 and issue 22: the balance is the sum of the buy-ins acknowledged, each 201; the
    account holds one event per buy-in; the two snapshots due failed, each logged once with
    the id of the request whose commit it followed, and counted; no race was lost."""
    pat = club.player("Pat", 0)
    refuse_snapshots(store_settings)
    retried: list[str] = []
    app.extensions["pontoon"].ledger.race_lost = retried.append

    answers = [club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 1},
                                headers={**club.treasurer, "X-Request-Id": f"buy-{n}"})
               for n in range(1, BUY_INS + 1)]

    assert [a.status_code for a in answers] == [201] * BUY_INS
    acknowledged = sum(1 for a in answers if a.status_code == 201)  # of 1 chip each
    assert club.balance(pat) == acknowledged == BUY_INS
    events = events_of(app.extensions["pontoon"].ledger, pat.id)
    assert [e.originator_version for e in events] == list(range(1, BUY_INS + 2))
    assert retried == []
    assert snapshots(store_settings) == 0
    failed = [r for r in logged.records if getattr(r, "stage", None) == "snapshots"]
    # Version v is the (v - 1)th buy-in: the account was opened at version 1.
    assert [r.request_id for r in failed] == ["buy-99", "buy-199"]  # type: ignore[attr-defined]
    assert all(r.levelno == logging.ERROR and r.exc_info for r in failed)
    text = club.client.get("/metrics").get_data(as_text=True)
    assert (metric(text, "pontoon_after_commit_failures_total", stage="snapshots") or 0) >= 2


def stale_hash_rows(settings: Settings) -> None:
    """Hash-chain rows at the next positions of the log, as a restore gone wrong would leave
    them: the next command's events cannot be hashed, whatever their versions."""
    if settings.store == "sqlite":
        run_sql(settings, "INSERT INTO event_hashes SELECT max(rowid) + 1, originator_id, 0, "
                          "x'00', x'00' FROM stored_events")
        return
    run_sql(settings, "INSERT INTO event_hashes SELECT s.last_value + n, gen_random_uuid(), 0, "
                      "'\\x00', '\\x00' FROM ledger_events_notification_id_seq s, "
                      "generate_series(1, 5) n")


def test_a_refusal_of_the_store_that_is_no_lost_race_is_a_500_tried_once(
        app: Flask, club: Club, store_settings: Settings,
        logged: pytest.LogCaptureFixture) -> None:
    """Issue 22: only a version conflict is decided again. A buy-in whose hash-chain row
    cannot be written is answered 500 at once, with the request id, naming nothing of the
    store; the log names the constraint; /metrics counts it; nothing is recorded."""
    pat = club.player("Pat", 10)
    ledger = app.extensions["pontoon"].ledger
    retried: list[str] = []
    ledger.race_lost = retried.append
    before = head(ledger)
    stale_hash_rows(store_settings)
    constraint = "event_hashes_pkey" if store_settings.store == "postgres" \
        else "event_hashes.notification_id (UNIQUE)"

    answer = club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 5},
                              headers={**club.treasurer, "X-Request-Id": "refused-1"})

    assert answer.status_code == 500 and answer.mimetype == PROBLEM
    body = answer.get_json()
    assert body["request_id"] == "refused-1" == answer.headers["X-Request-Id"]
    assert "event_hashes" not in body["detail"]
    assert retried == []
    [line] = [r for r in logged.records if getattr(r, "constraint", None) is not None]
    assert line.constraint == constraint and line.request_id == "refused-1"  # type: ignore[attr-defined]
    assert head(ledger) == before
    assert len(events_of(ledger, pat.id)) == 2  # opened, and the first buy-in only
    text = club.client.get("/metrics").get_data(as_text=True)
    assert (metric(text, "pontoon_store_refusals_total", constraint=constraint) or 0) >= 1

