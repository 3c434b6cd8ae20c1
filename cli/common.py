"""What the `pontoon` subcommands share: one way to fail, the store opened only when it is
ready, and the environment each command reads (cli/output.py: what it prints).

Every command belongs to `Group` (cli/main.py), so what is said here holds for each, and
for any command added later: a mistake of the user's or of the environment ends in one line
naming the cause and the fix, with the exit code of its kind (EXIT_CODES), never a
traceback. A traceback is left only for a fault of the program itself.
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:  # for annotations: each command imports config when it runs
    from config import Settings

EXIT_FAILED, EXIT_USAGE, EXIT_STORE, EXIT_INTERRUPTED = 1, 2, 3, 130
EXIT_CODES = ("0 done; 1 a check failed (verify, an unbalanced report) or the ledger refused; "
              "2 usage (an option, a path, a number or a setting); 3 the store (missing, "
              "not migrated, not a database, unreachable); 130 interrupted")
CONNECT_TIMEOUT = 5  # seconds to reach PostgreSQL before a command gives up

ENVIRONMENT = {
    "PONTOON_DATABASE_URL": "the store: sqlite:///PATH (default sqlite:///var/pontoon."
                            "sqlite3) or postgresql://USER:PASS@HOST:5432/DB[?schema=S]; "
                            f"PostgreSQL must answer within {CONNECT_TIMEOUT} s",
    "PONTOON_POOL_SIZE": "PostgreSQL connections kept (5)",
    "PONTOON_POOL_OVERFLOW": "PostgreSQL connections beyond those (10)",
    "PONTOON_LOG_LEVEL": "DEBUG, INFO (default), WARNING, ERROR or CRITICAL",
    "PONTOON_TREASURER_TOKEN": "the first treasurer's token",
    "PONTOON_HOST": "the address to listen on (127.0.0.1)",
    "PONTOON_PORT": "the port to listen on (8000)",
    "PONTOON_PROJECTIONS": "auto (default) or off: stand in the read models' election",
    "PONTOON_AUTH_FAILURE_LIMIT": "failed sign-ins a client may make (20 per minute)",
    "PONTOON_TRUSTED_PROXIES": "reverse proxies whose X-Forwarded-* headers count (0)",
    "PONTOON_READY_MAX_LAG": "events a read model may lag and be ready (1000)",
    "PONTOON_WEBHOOK_RETRY_BASE": "seconds before a delivery's first retry (5)",
    "PONTOON_WEBHOOK_RETRY_FOR": "seconds a delivery is retried (86400)",
    "PONTOON_WEBHOOK_TIMEOUT": "seconds one delivery may take (5)",
    "PONTOON_WEBHOOK_ALLOW_PRIVATE": "true lets webhooks reach private addresses (false)",
    "PONTOON_METRICS_DIR": "where the workers keep their metrics (a temporary folder)",
    "PONTOON_SIGNING_KEY_FILE": "the key that signs checkpoints (var/signing-key)",
    "PONTOON_LOG_ORIGIN": "the log's name in signed checkpoints (the key's name)",
    "PONTOON_WITNESS_TOKEN": "the witness's token, to post its cosignatures",
    "PONTOON_READ_TOKEN": "a club member's token, to read the proofs",
}
STORE = ("PONTOON_DATABASE_URL", "PONTOON_POOL_SIZE", "PONTOON_POOL_OVERFLOW")
SIGNING = ("PONTOON_SIGNING_KEY_FILE", "PONTOON_LOG_ORIGIN")
WITNESS = ("PONTOON_WITNESS_TOKEN", "PONTOON_READ_TOKEN")
SERVICE = (*STORE, *(name for name in ENVIRONMENT if name not in (*STORE, *WITNESS)))


class StoreError(click.ClickException):
    """The store cannot be used as it is: missing, not migrated, not a database, or out of
    reach. Its message names the fix."""

    exit_code = EXIT_STORE


class Described:
    """A command or group whose --help ends with the environment it reads (`environment`,
    names of ENVIRONMENT) and the exit codes."""

    def __init__(self, *args: Any, environment: tuple[str, ...] = STORE, **kwargs: Any
                 ) -> None:
        super().__init__(*args, **kwargs)
        self.environment = environment

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)  # type: ignore[misc]
        described(self.environment, formatter)


class Command(Described, click.Command):
    """Every `pontoon` command."""


class Group(Described, click.Group):
    """`pontoon` and its groups: their commands are `Command`s, their groups `Group`s, and
    the outermost turns every failure it knows into one line and its exit code."""

    command_class = Command
    group_class = type  # a group's groups are of its own class

    def invoke(self, ctx: click.Context) -> Any:
        if ctx.parent is not None:  # only the outermost group translates, once
            return super().invoke(ctx)
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except OSError as error:  # a file of the user's: unwritable, a full disk
            if store_fault(error):
                raise store_error(error) from None
            raise click.ClickException(_os_words(error)) from None
        except Exception as error:
            if store_fault(error):
                raise store_error(error) from None
            raise

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            done = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as error:  # one line: what is wrong, and where help is
            hint = f" (see `{error.ctx.command_path} --help`)" if error.ctx else ""
            fail(f"{error.format_message()}{hint}", error.exit_code)
        except click.ClickException as error:
            fail(error.format_message(), error.exit_code)
        except click.Abort:
            fail("interrupted", EXIT_INTERRUPTED)
        sys.exit(done if isinstance(done, int) else 0)


def described(environment: tuple[str, ...], formatter: click.HelpFormatter) -> None:
    with formatter.section("Environment"):
        if environment:
            formatter.write_dl([(name, ENVIRONMENT[name]) for name in environment])
        else:
            formatter.write_text("none: this command keeps nothing")
    with formatter.section("Exit codes"):
        formatter.write_text(EXIT_CODES)


def fail(message: str, code: int) -> NoReturn:
    """The one line a failure prints on stderr, and its exit code."""
    click.echo(f"Error: {' '.join(message.split())}", err=True)
    sys.exit(code)


def _os_words(error: OSError) -> str:
    where = f" {error.filename}" if error.filename else ""
    return f"cannot use{where}: {error.strerror or error}"


def store_fault(error: BaseException) -> bool:
    """Whether an error is the store's (its driver's or the event store library's)."""
    if isinstance(error, sqlite3.Error):
        return True
    module = type(error).__module__
    return module.startswith(("psycopg", "psycopg_pool", "eventsourcing"))


def store_error(error: BaseException) -> StoreError:
    from config import Settings

    settings = Settings.from_env()
    reason = (str(error).strip() or type(error).__name__).splitlines()[0]
    return StoreError(f"cannot use the {settings.store} store at {where(settings)}: {reason}; "
                      "check PONTOON_DATABASE_URL, and run `pontoon migrate` if the store "
                      "is new")


def where(settings: Settings) -> str:
    """Where the store is, for messages: the SQLite file, or host and database."""
    if settings.store == "sqlite":
        return str(settings.sqlite_path)
    return settings.database_url.split("@")[-1]


# --- the store, opened only when it is ready ----------------------------------------------

def ready_store(settings: Any, *, migrated: bool = True) -> None:
    """Refuse a store that cannot be used, naming the fix, before anything opens it (so a
    command that reads never creates one): a SQLite file that is missing or no database, a
    PostgreSQL out of reach (within CONNECT_TIMEOUT), and, when `migrated`, a store whose
    migrations are not all applied. `migrated=False` is for `pontoon migrate` itself."""
    from application.store import migration_ids, not_applied

    if settings.store == "memory":
        return
    if settings.store == "sqlite" and not settings.sqlite_path.exists():
        if not migrated:
            return
        raise StoreError(f"there is no store at {settings.sqlite_path}: run `pontoon migrate` "
                         "to make it, or set PONTOON_DATABASE_URL to the store you mean")
    applied = _applied_sqlite(settings) if settings.store == "sqlite" \
        else _applied_postgres(settings)
    pending = not_applied(applied)
    if migrated and pending:
        raise StoreError(f"the {settings.store} store at {where(settings)} is not migrated "
                         f"({len(pending)} of {len(migration_ids())} migrations to apply): "
                         "run `pontoon migrate`")


def _applied_sqlite(settings: Any) -> set[str]:
    from urllib.parse import quote

    from application.store import APPLIED_MIGRATIONS

    path = settings.sqlite_path
    try:  # mode=rw never creates the file
        connection = sqlite3.connect(f"file:{quote(str(path))}?mode=rw", uri=True, timeout=10)
        try:
            return {row[0] for row in connection.execute(APPLIED_MIGRATIONS)}
        finally:
            connection.close()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return set()
        raise StoreError(f"cannot open the sqlite store at {path}: {error}; check "
                         "PONTOON_DATABASE_URL") from None
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{path} is not a SQLite store ({error}): set PONTOON_DATABASE_URL "
                         "to the store's file") from None


def _applied_postgres(settings: Any) -> set[str]:
    import psycopg
    from psycopg import sql

    env = settings.ledger_env()
    try:
        with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
                             dbname=env["POSTGRES_DBNAME"], user=env["POSTGRES_USER"],
                             password=env["POSTGRES_PASSWORD"], autocommit=True,
                             connect_timeout=CONNECT_TIMEOUT) as connection:
            try:
                rows = connection.execute(sql.SQL("SELECT migration_id FROM {}").format(
                    sql.Identifier(settings.postgres_schema, "_yoyo_migration"))).fetchall()
            except psycopg.errors.UndefinedTable:
                return set()
    except psycopg.OperationalError as error:
        reason = (str(error).strip() or type(error).__name__).splitlines()[0]
        raise StoreError(f"cannot open the postgres store at {where(settings)}: {reason}; "
                         "check that PostgreSQL runs there and PONTOON_DATABASE_URL (a "
                         f"connection is given {CONNECT_TIMEOUT} s)") from None
    return {row[0] for row in rows}


@contextlib.contextmanager
def opened_ledger() -> Iterator[tuple[Any, Any]]:
    """Settings and the ledger on the configured store, once it is ready; closed after."""
    from application.store import build_ledger
    from config import Settings

    settings = Settings.from_env()
    ready_store(settings)
    ledger = build_ledger(settings)
    try:
        yield settings, ledger
    finally:
        ledger.close()


def open_projections() -> tuple[Any, Any, Any]:
    """Settings, the ledger and the read models' runner on the configured store, once it
    is ready (the caller closes the ledger)."""
    from application.store import build_ledger
    from config import Settings
    from projections.runner import Projections
    from projections.store import read_store

    settings = Settings.from_env()
    ready_store(settings)
    ledger = build_ledger(settings)
    store = read_store(ledger, settings)
    if store is None:
        ledger.close()
        raise click.UsageError("the in-memory store keeps no read models")
    return settings, ledger, Projections(ledger, store)


def player_named(store: Any, given: str) -> str:
    """`--player`: an id, or a name that exactly one player has (any case); a name that
    several players share is refused, naming each of them by id."""
    from uuid import UUID

    from projections.export import players_named

    try:
        return str(UUID(given))
    except ValueError:
        found = players_named(store, given)
    if len(found) != 1:
        raise click.BadParameter(f"{len(found)} players are named {given!r}"
                                 + (f": {', '.join(found)}; give the id" if found else ""),
                                 param_hint="--player")
    return found[0]
