"""The hash chains as recorded (R11.4): written with every save on both stores, also when
saves race from two application instances; back-filled by `pontoon migrate` for events
recorded before the chain existed; sealed by `pontoon checkpoint` and checked by
`pontoon verify --checkpoint`."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID, uuid4

import pytest
from yoyo import get_backend, read_migrations

from application import Ledger
from application.store import MIGRATIONS, _yoyo_url, build_ledger, migrate
from config import Settings
from domain.aggregates import Account
from tests.integration.ledger_views import notifications, race, topic
from tests.integration.projection_session import play_session, pontoon
from tests.integration.tampering import delete_event, fetch
from verification.verify import verify


def test_every_recorded_event_has_its_hashes(store_settings: Settings, ledger: Ledger) -> None:
    """R11.4: one hash row per event, in the same positions, written by the same save."""
    play_session(ledger)

    [(events,)] = fetch(store_settings, "SELECT COUNT(*) FROM {events}")
    [(hashes,)] = fetch(store_settings, "SELECT COUNT(*) FROM {hashes}")

    assert events == hashes == ledger.recorder.max_notification_id()


def test_saves_racing_from_two_workers_keep_both_chains_whole(store_settings: Settings,
                                                              ledger: Ledger) -> None:
    """R11.4: the log chain follows position order even when two application instances (two
    workers) save at once: PostgreSQL's insert lock makes position order commit order."""
    other = build_ledger(store_settings)
    try:
        players = [str(ledger.register_player(f"P{i}").result["id"]) for i in range(8)]
        calls = [lambda p=p, app=app: app.buy_in(p, 5)
                 for p in players for app in (ledger, other)]

        results = race(calls)

        assert not [r for r in results if isinstance(r, BaseException)]
        report = verify(ledger)
        assert report.ok, report.failures
    finally:
        other.close()


def test_migrate_hashes_the_events_recorded_before_the_chain(
        store_settings: Settings, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """R11.4: a store written before the chain existed is hashed by `pontoon migrate`,
    once, in position order; events recorded after it join the same chain."""
    settings = unchained_store(store_settings, tmp_path, request)
    plain = Ledger(env={**settings.ledger_env(), "APPLICATION_RECORDER_TOPIC": ""})
    play_session(plain)
    plain.close()

    migrate(settings)
    ledger = build_ledger(settings)
    try:
        ledger.register_player("After the chain")
        report = verify(ledger)
    finally:
        ledger.close()

    assert report.ok, report.failures
    assert report.checkpoint is not None and report.checkpoint.position == report.events


def unchained_store(store_settings: Settings, tmp_path: Path,
                    request: pytest.FixtureRequest) -> Settings:
    """A fresh store (file or schema) migrated up to, not including, the chain."""
    if store_settings.store == "sqlite":
        settings = Settings(database_url=f"sqlite:///{tmp_path}/old.sqlite3")
    else:  # a schema of its own beside the fixture's, dropped afterwards
        import psycopg

        base = store_settings.database_url.partition("?")[0]
        schema = f"old_{uuid4().hex[:12]}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')

        def drop() -> None:
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        request.addfinalizer(drop)
        settings = Settings(database_url=f"{base}?schema={schema}")
    build_ledger(settings, create_tables=True).close()
    backend = get_backend(_yoyo_url(settings))
    try:
        earlier = read_migrations(str(MIGRATIONS)).filter(lambda m: m.id < "0003")
        with backend.lock():
            backend.apply_migrations(backend.to_apply(earlier))
    finally:
        backend.connection.close()
    return settings


def test_verify_checks_a_checkpoint_kept_outside(store_settings: Settings, ledger: Ledger,
                                                 tmp_path: Path) -> None:
    """R11.4: `pontoon checkpoint` prints `POSITION HASH`; `pontoon verify --checkpoint`
    passes while the log extends it, and fails (exit 1) once its newest events are deleted,
    hashes and all."""
    session = play_session(ledger)
    printed = pontoon(store_settings, "checkpoint", cwd=tmp_path)
    line = printed.stdout.strip()

    extended = pontoon(store_settings, "verify", "--checkpoint", line, cwd=tmp_path)
    ann = UUID(session.ids["Sam"])
    delete_event(store_settings, ann, ledger.player_account(str(ann)).version)
    cut = pontoon(store_settings, "verify", "--checkpoint", line, cwd=tmp_path)

    assert printed.returncode == 0 and len(line.split()) == 2
    assert extended.returncode == 0, extended.stdout + extended.stderr
    assert f"extends checkpoint {line}" in extended.stdout
    assert f"checkpoint: {line}" in extended.stdout
    assert cut.returncode == 1, cut.stdout + cut.stderr
    assert f"checkpoint {line}" in cut.stdout and "deleted" in cut.stdout


@pytest.mark.parametrize("text", ["12", "x " + "0" * 64, "12 " + "g" * 64, "12 abc"])
def test_a_malformed_checkpoint_is_refused_as_a_usage_error(
        store_settings: Settings, tmp_path: Path, text: str) -> None:
    refused = pontoon(store_settings, "verify", "--checkpoint", text, cwd=tmp_path)

    assert refused.returncode == 2
    assert "POSITION HASH" in refused.stderr or "not hex" in refused.stderr


def test_an_export_keeps_the_checkpoint_of_the_log_beside_the_csv(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    """R11.4, decision 147: `pontoon export` keeps `POSITION HASH`, the log as sealed when
    the export was made, in a file beside the CSV (on stderr when the CSV goes to standard
    output), never as a row a spreadsheet would read as data."""
    play_session(ledger)
    sealed = str(ledger.recorder.checkpoint())

    as_of = ("--kind", "balances", "--to", "2099-01-01")  # the same rows each time
    piped = pontoon(store_settings, "export", *as_of, cwd=tmp_path)
    filed = pontoon(store_settings, "export", *as_of, "--output",
                    str(tmp_path / "balances.csv"), cwd=tmp_path)

    assert piped.returncode == filed.returncode == 0, piped.stderr + filed.stderr
    assert "checkpoint" not in piped.stdout and "#" not in piped.stdout
    assert piped.stderr.strip() == f"checkpoint: {sealed}"
    assert (tmp_path / "balances.csv").read_text() == piped.stdout
    assert (tmp_path / "balances.csv.checkpoint").read_text() == sealed + "\n"
    kept = (tmp_path / "balances.csv.checkpoint").read_text().strip()  # as "$(cat F)" reads
    checked = pontoon(store_settings, "verify", "--checkpoint", kept, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_store_after_every_scenario_verifies_whole(ledger: Ledger) -> None:
    """R11.4: every public scenario (splits, shoot rounds, busts, bank changes) played on
    one store leaves both chains whole and every check passing."""
    from tests.ledger_club import LedgerClub
    from tests.scenarios.runner import load, play, scenario_files

    for path in scenario_files():
        play(load(path), LedgerClub(ledger))
    for account in notifications(ledger, topics=[topic(Account.Opened)])[:3]:
        ledger.take_snapshot(account.originator_id)

    report = verify(ledger)

    assert report.ok, report.failures
    assert report.chained and report.snapshots == 3 and report.deals >= len(scenario_files())
