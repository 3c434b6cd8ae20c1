"""The real `pontoon` console command, run as a subprocess against each store."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import pytest
from eventsourcing.persistence import PersistenceError

from config import Settings
from tests.integration.ledger_views import fresh_ledger, head

PONTOON = Path(sys.executable).parent / "pontoon"


def pontoon(database_url: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_DATABASE_URL"] = database_url
    return subprocess.run([str(PONTOON), *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.fixture
def fresh_store(store_settings: Settings, tmp_path: Path) -> Iterator[Settings]:
    """A store of the same kind that nobody has migrated: a new SQLite file, or a new
    schema on the same PostgreSQL database."""
    if store_settings.store == "sqlite":
        yield Settings(database_url=f"sqlite:///{tmp_path}/fresh/pontoon.sqlite3")
        return
    import psycopg

    base = store_settings.database_url.partition("?")[0]
    schema = f"cli_{uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield Settings(database_url=f"{base}?schema={schema}", pool_size=2)
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_the_console_command_is_installed():
    """`pontoon` is the project's console script (pyproject [project.scripts])."""
    assert PONTOON.exists(), f"{PONTOON} is missing: install the project (make install)"


def test_a_setting_that_makes_no_sense_stops_a_command_by_its_name(tmp_path):
    """`pontoon serve` with PONTOON_PORT=abc says which variable is wrong in one line and
    exits 2 (usage), without a traceback or a worker that fails to boot."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_PORT"] = "abc"
    done = subprocess.run([str(PONTOON), "serve"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 2
    assert "PONTOON_PORT must be a whole number (0 or more), not 'abc'" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["serve"], ["migrate"], ["verify"], ["tokens", "list"],
                                     ["simulate", "--deals", "1"]])
def test_a_short_treasurer_token_stops_every_command_by_its_name(tmp_path, command):
    """README, tokens: PONTOON_TREASURER_TOKEN of fewer than 32 characters is refused at
    the start of any command, before it touches a store or the network."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_TREASURER_TOKEN"] = "pt_too_short"
    done = subprocess.run([str(PONTOON), *command], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 2, done.stdout + done.stderr  # a setting: usage
    assert "PONTOON_TREASURER_TOKEN must be at least 32 characters" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "var").exists()


def test_a_worker_cannot_write_to_a_store_that_was_never_migrated(fresh_store):
    """Tables are created by `pontoon migrate` only, never by a worker (docs/architecture.md)."""
    with fresh_ledger(fresh_store) as worker, pytest.raises(PersistenceError):
        worker.register_player("Pat")


def test_migrate_creates_the_tables_of_a_fresh_store_and_can_run_again(fresh_store, tmp_path):
    """`pontoon migrate` is the deploy step: it makes a fresh store usable, and running it
    again keeps what was stored."""
    migrated = pontoon(fresh_store.database_url, "migrate", cwd=tmp_path)

    assert migrated.returncode == 0, migrated.stderr
    assert f"migrated the {fresh_store.store} store" in migrated.stdout
    with fresh_ledger(fresh_store) as worker:
        pat = str(worker.register_player("Pat").result["id"])
        worker.buy_in(pat, 25)
    again = pontoon(fresh_store.database_url, "migrate", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    with fresh_ledger(fresh_store) as worker:
        assert worker.player_account(pat).balance == 25


@pytest.mark.parametrize("role", ["treasurer", "operator"])
def test_tokens_create_prints_a_token_whose_principal_has_the_role(
        store_settings, tmp_path, role):
    """`pontoon tokens create --role R` prints a new bearer token once; the store knows its
    principal by the token's hash only."""
    created = pontoon(store_settings.database_url, "tokens", "create", "--role", role,
                      cwd=tmp_path)

    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    assert token and len(token.split()) == 1
    with fresh_ledger(store_settings) as ledger:
        principal = ledger.principal(token)
        assert principal is not None
        assert (principal.role, principal.player_id) == (role, None)


@pytest.mark.parametrize("args, complaint", [
    (["--role", "bogus"], "Invalid value for '--role'"),
    (["--role", "player"], "--player names the player of a player token"),
    (["--role", "operator", "--player", "Pat"], "--player names the player of a player"),
    ([], "Missing option '--role'"),
])
def test_tokens_create_with_an_unknown_role_is_a_usage_error(
        store_settings, tmp_path, args, complaint):
    """Roles are treasurer, operator, player and witness, and only a player token names its
    player (`--player`); a usage error is one line pointing to --help, exits 2 and records
    nothing."""
    with fresh_ledger(store_settings) as ledger:
        before = head(ledger)

    refused = pontoon(store_settings.database_url, "tokens", "create", *args, cwd=tmp_path)

    assert refused.returncode == 2
    assert len(refused.stderr.splitlines()) == 1 and complaint in refused.stderr
    assert "`pontoon tokens create --help`" in refused.stderr
    assert refused.stdout == ""
    with fresh_ledger(store_settings) as ledger:
        assert head(ledger) == before


def test_the_demo_plays_five_deals_through_the_ledger_and_a_seed_repeats_it(tmp_path):
    """`pontoon demo` plays through the Ledger on the in-memory store (no file is written):
    five deals, each settled or void, every chip the treasury issued still held by a player
    or the kitty (R11.1); the same seed plays the same game."""
    runs = [subprocess.run([str(PONTOON), "demo", "--seed", "s1", "--players", "3"],
                           env={**os.environ, "COLUMNS": "200"}, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60, check=False)
            for _ in range(2)]

    first = runs[0]
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("Pontoon demo (seed s1): Alice, Bob, Carol;")
    assert [f"Deal {n}:" in first.stdout for n in range(1, 6)] == [True] * 5
    ended = [line for line in first.stdout.splitlines()
             if line.startswith(("  banker holds ", "  void: "))]
    assert len(ended) == 5
    assert "held in all 300, the 300 the treasury issued (R11.1)" in first.stdout
    assert runs[1].stdout == first.stdout
    assert list(tmp_path.iterdir()) == []
