"""Every `pontoon` subcommand against a store it cannot use: missing, never migrated, a file
that is no database, a PostgreSQL that is down. Each says so in one line naming the cause
and the fix, with the exit code of a store's fault (3), and a command that only reads
creates nothing (README, The pontoon command; cli/common.py).

The subcommands are found in the command group itself, so one added later is held to the
same rule as soon as it exists (give it its arguments in ARGS if it needs some). Most runs
are in process (click's runner: the same code, a fraction of the time); one per state runs
the installed console script, to see exactly what a shell sees.
"""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cli.main import main
from config import Settings
from projections.notes import Signer
from tests.integration.projection_session import PONTOON, pontoon_env


def closed_port() -> int:
    """A port nothing listens on: bound, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def leaves(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from leaves(command, (*path, name))
        else:
            yield (*path, name)


COMMANDS = [" ".join(path) for path in leaves(main)]
VKEY = Signer.generate("test.example/log").verifier.vkey  # a key, for `pontoon witness`
NO_STORE = {"demo"}  # plays through the rules engine alone


def args_of(command: str, tmp_path: Path) -> list[str]:
    """What each command needs besides the store, so only the store can stop it."""
    return {"backup": [str(tmp_path / "copy.sqlite3")],
            "export": ["--kind", "balances"],
            "serve": ["--port", str(closed_port())],
            "simulate": ["--url", f"http://127.0.0.1:{closed_port()}", "--token", "pt_x",
                         "--deals", "1"],
            "tokens create": ["--role", "operator"],
            "tokens revoke": ["no-such-token"],
            "night": ["2026-12-05"],
            "witness": ["--url", f"http://127.0.0.1:{closed_port()}", "--vkey", VKEY,
                        "--state", str(tmp_path / "witness.json"),
                        "--key", str(tmp_path / "witness-key")]}.get(command, [])


# The state of the store, and what each command must say of it (a part of its one line).
SAID = {"missing": "run `pontoon migrate`", "unmigrated": "is not migrated",
        "not-a-database": "is not a SQLite store", "postgres-down": "cannot open the postgres "
        "store", "postgres-unmigrated": "is not migrated"}


def store_in(state: str, tmp_path: Path, postgres: str | None = None) -> str:
    """PONTOON_DATABASE_URL for a store in `state`, made in `tmp_path`."""
    path = tmp_path / "store" / "pontoon.sqlite3"
    if state == "unmigrated":
        path.parent.mkdir()
        sqlite3.connect(path).close()
    elif state == "not-a-database":
        path.parent.mkdir()
        path.write_text("the treasurer's notes, not a database\n" * 20)
    elif state == "postgres-down":
        return f"postgresql://postgres@127.0.0.1:{closed_port()}/pontoon"
    elif state == "postgres-unmigrated":
        assert postgres is not None
        return postgres
    return f"sqlite:///{path}"


def expected(command: str, state: str) -> tuple[int, str]:
    if command in ("simulate", "witness"):  # their store is the service, which is not there
        return 3, "cannot reach the service"
    if command == "migrate" and state in ("missing", "unmigrated", "postgres-unmigrated"):
        return 0, "migrated the"
    if command == "backup" and state.startswith("postgres"):
        return 2, "pg_dump"
    return 3, SAID[state]


def run_everywhere(state: str, tmp_path: Path, postgres: str | None = None) -> None:
    """Each command on a fresh store in `state`: its exit code and its one line (migrate
    last: on the one PostgreSQL schema, it would leave a store the others could use)."""
    for command in sorted(COMMANDS, key=lambda name: name == "migrate"):
        if command in NO_STORE:
            continue
        folder = tmp_path / command.replace(" ", "-")
        folder.mkdir()
        url = store_in(state, folder, postgres)
        began = time.monotonic()

        # `migrate` makes the signing key: in the folder, never the checkout's var/.
        done = CliRunner().invoke(main, [*command.split(), *args_of(command, folder)],
                                  env={"PONTOON_DATABASE_URL": url,
                                       "PONTOON_SIGNING_KEY_FILE": str(folder / "key")})

        code, said = expected(command, state)
        where = f"`pontoon {command}` on a {state} store"
        assert done.exit_code == code, f"{where}: {done.exit_code}\n{done.output}"
        assert time.monotonic() - began < 15, f"{where} took {time.monotonic() - began:.0f}s"
        if code == 0:
            continue
        assert done.exception is None or isinstance(done.exception, SystemExit), \
            f"{where} raised {done.exception!r}"
        assert done.stdout == "", f"{where} printed {done.stdout!r}"
        assert len(done.stderr.strip().splitlines()) == 1, f"{where}:\n{done.stderr}"
        assert done.stderr.startswith("Error: ") and said in done.stderr, done.stderr
        if state == "missing":
            assert not (folder / "store").exists(), f"{where} made {folder / 'store'}"


@pytest.mark.parametrize("state", ["missing", "unmigrated", "not-a-database",
                                   "postgres-down"])
def test_every_command_refuses_a_store_it_cannot_use_in_one_line(
        state: str, tmp_path: Path) -> None:
    run_everywhere(state, tmp_path)


@pytest.mark.postgres
def test_every_command_refuses_a_postgresql_schema_never_migrated(
        postgres_schema: str, tmp_path: Path) -> None:
    """A migrate among them migrates the schema, so each command gets a schema of its own
    only up to migrate, which runs last."""
    run_everywhere("postgres-unmigrated", tmp_path, postgres_schema)


@pytest.mark.parametrize("state", ["not-a-database", "postgres-down"])
def test_a_simulated_history_refuses_a_store_it_cannot_make(state: str, tmp_path: Path
                                                            ) -> None:
    """`simulate --start` plays into the store, making and migrating it as it needs, but
    not over a file that is no database nor through a PostgreSQL that is down."""
    done = CliRunner().invoke(main, ["simulate", "--start", "2026-01-02", "--nights", "1"],
                              env={"PONTOON_DATABASE_URL": store_in(state, tmp_path)})

    assert done.exit_code == 3, done.output
    assert len(done.stderr.strip().splitlines()) == 1 and SAID[state] in done.stderr


@pytest.mark.parametrize("state", ["missing", "unmigrated", "not-a-database",
                                   "postgres-down"])
def test_the_console_script_prints_one_line_and_no_traceback(state: str,
                                                             tmp_path: Path) -> None:
    """What a shell sees: one line on stderr, nothing on stdout, exit 3; a read makes no
    file, not even the default var/pontoon.sqlite3 in the current folder."""
    url = store_in(state, tmp_path)
    env = pontoon_env(Settings(database_url=url))
    if state == "missing":
        del env["PONTOON_DATABASE_URL"]  # the default store, in the current folder

    done = subprocess.run([str(PONTOON), "report"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 3, done.stderr
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert SAID[state] in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "var").exists()


def test_the_demo_needs_no_store_and_makes_none(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["demo", "--seed", "s", "--players", "2"],
                              env={"PONTOON_DATABASE_URL": f"sqlite:///{tmp_path}/x.sqlite3"})

    assert done.exit_code == 0, done.output
    assert "Pontoon demo" in done.stdout and not (tmp_path / "x.sqlite3").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_each_commands_help_names_the_environment_it_reads_and_the_exit_codes(
        command: str) -> None:
    done = CliRunner().invoke(main, [*command.split(), "--help"])

    assert done.exit_code == 0, done.output
    assert "Environment:" in done.stdout and "Exit codes:" in done.stdout
    assert "3 the store" in done.stdout
    if command == "demo":
        assert "none: this command keeps nothing" in done.stdout
    elif command == "simulate":
        assert "PONTOON_TREASURER_TOKEN" in done.stdout
    elif command == "witness":
        assert "PONTOON_WITNESS_TOKEN" in done.stdout
    else:
        assert "PONTOON_DATABASE_URL" in done.stdout and "5 s" in done.stdout


@pytest.mark.parametrize("args, complaint", [
    (["demo", "--players", "9"], "'--players': 9 is not in the range 2<=x<=8"),
    (["demo", "--players", "1"], "'--players': 1 is not in the range 2<=x<=8"),
    (["serve", "--workers", "0"], "'--workers': 0 is not in the range"),
    (["serve", "--port", "70000"], "'--port': 70000 is not in the range"),
    (["export", "--kind", "balances", "--from", "2026-12-01"], "--from has no meaning"),
    (["export", "--kind", "kitty", "--player", "Ann"], "--player has no meaning"),
    (["export", "--kind", "statements", "--output", "no/such/folder/x.csv"],
     "the folder no/such/folder does not exist"),
    (["report", "--output", "."], "is a folder"),
    (["report", "--from", "2026-12-06", "--to", "2026-12-05"], "is not before --to"),
    (["export", "--kind", "statements", "--from", "someday"], "give a date"),
    (["verify", "--checkpoint", "12"], "POSITION HASH"),
    (["days", "--from", "2026-12-06", "--to", "2026-12-05"], "is not before --to"),
    (["days", "--output", "no/such/folder/days.json"], "does not exist"),
    (["night", "2026-12-05", "--count", "Ann=3"], "--count goes with --close"),
], ids=["demo-9", "demo-1", "workers-0", "port", "balances-from", "kitty-player",
        "no-folder", "a-folder", "reversed", "not-a-date", "checkpoint",
        "days-reversed", "days-output", "night-count"])
def test_an_option_a_command_cannot_honour_is_refused_in_one_line(
        args: list[str], complaint: str, tmp_path: Path) -> None:
    """Refused as usage (2), before the store is opened (none exists here): never ignored,
    clamped or left to fail later."""
    done = CliRunner().invoke(main, args,
                              env={"PONTOON_DATABASE_URL": f"sqlite:///{tmp_path}/x.sqlite3"})

    assert done.exit_code == 2, done.output
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert complaint in done.stderr and "--help" in done.stderr
    assert not (tmp_path / "x.sqlite3").exists()
