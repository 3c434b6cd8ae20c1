"""The one place that reads the environment (README, Configuration)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

DEFAULT_DATABASE_URL = "sqlite:///var/pontoon.sqlite3"
# What PONTOON_LOG_LEVEL may name (any case): the logging module's levels, which the server
# takes too.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The event store's recorders that keep the log's hash chains (named, not imported: config
# imports nothing of the project).
SQLITE_RECORDER = "application.eventstore.recorders:SQLiteChainRecorder"
POSTGRES_RECORDER = "application.eventstore.recorders:PostgresChainRecorder"


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    treasurer_token: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "INFO"
    pool_size: int = 5
    pool_overflow: int = 10
    # auto (or in-process): one process among all that serve the store runs the read models
    # and webhook deliveries, elected by a lock; off: this process stays out of the election.
    projections: str = "auto"
    # Failed authentications a client address may make in a moving window (api/limits.py).
    auth_failure_limit: str = "20 per minute"
    # Reverse proxies in front of the service whose X-Forwarded-For and X-Forwarded-Proto
    # are trusted (0: none, the peer's address is the client's).
    trusted_proxies: int = 0
    # Webhooks: the first retry's delay, how long a delivery is retried before its
    # subscription is disabled, and how long one attempt may take (seconds).
    webhook_retry_base: float = 5.0
    webhook_retry_for: float = 86_400.0
    webhook_timeout: float = 5.0
    # Whether webhooks may be delivered to loopback, private, link-local or multicast
    # addresses (the service's own network): off, unless a receiver lives there on purpose.
    webhook_allow_private: bool = False
    # GET /v1/health/ready: the most events a read model may lag and still be ready.
    ready_max_lag: int = 1000
    # Where the server's workers keep their metrics (Prometheus multiprocess mode); a fresh
    # temporary folder when unset.
    metrics_dir: str | None = None
    # The Ed25519 key that signs the log's checkpoints: a file outside the store, made once
    # by `pontoon migrate` (projections/signing_key.py). Every host that may run the read
    # models needs the same file.
    signing_key_file: str = "var/signing-key"
    # The first line of every checkpoint (the log's name); None: the club's name.
    log_origin: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Raises ValueError naming the variable whose value makes no sense."""
        env = os.environ if environ is None else environ

        def whole(name: str, default: str) -> int:
            return _count(env.get(name) or default, name)

        def seconds(name: str, default: str) -> float:
            text = env.get(name) or default
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a number of seconds above 0, not {text!r}")
            return value

        def flag(name: str) -> bool:
            text = (env.get(name) or "false").strip().lower()
            if text not in ("true", "false"):
                raise ValueError(f"{name} must be true or false, not {text!r}")
            return text == "true"

        return cls(
            database_url=env.get("PONTOON_DATABASE_URL", DEFAULT_DATABASE_URL),
            treasurer_token=_treasurer_token(env.get("PONTOON_TREASURER_TOKEN") or None),
            host=env.get("PONTOON_HOST", "127.0.0.1"),
            port=whole("PONTOON_PORT", "8000"),
            log_level=env.get("PONTOON_LOG_LEVEL", "INFO"),
            pool_size=whole("PONTOON_POOL_SIZE", "5"),
            pool_overflow=whole("PONTOON_POOL_OVERFLOW", "10"),
            projections=env.get("PONTOON_PROJECTIONS", "auto"),
            auth_failure_limit=env.get("PONTOON_AUTH_FAILURE_LIMIT", "20 per minute"),
            trusted_proxies=whole("PONTOON_TRUSTED_PROXIES", "0"),
            webhook_retry_base=seconds("PONTOON_WEBHOOK_RETRY_BASE", "5"),
            webhook_retry_for=seconds("PONTOON_WEBHOOK_RETRY_FOR", "86400"),
            webhook_timeout=seconds("PONTOON_WEBHOOK_TIMEOUT", "5"),
            webhook_allow_private=flag("PONTOON_WEBHOOK_ALLOW_PRIVATE"),
            ready_max_lag=whole("PONTOON_READY_MAX_LAG", "1000"),
            metrics_dir=env.get("PONTOON_METRICS_DIR") or None,
            signing_key_file=env.get("PONTOON_SIGNING_KEY_FILE") or "var/signing-key",
            log_origin=env.get("PONTOON_LOG_ORIGIN") or None,
        )

    def __post_init__(self) -> None:
        """The store and the read models' mode are checked when settings are made, naming
        their variable, not when a worker first needs them as it boots."""
        _ = self.store  # raises for a URL of no store
        if self.projections not in ("auto", "in-process", "off"):
            raise ValueError("PONTOON_PROJECTIONS must be auto, in-process or off")
        if self.log_origin is not None and (not self.log_origin.strip() or any(
                ord(c) < 0x20 or c == "\x7f" for c in self.log_origin)):
            raise ValueError("PONTOON_LOG_ORIGIN must be one line of text (the checkpoints' "
                             "first line)")
        if self.log_level.upper() not in LOG_LEVELS:
            raise ValueError(f"PONTOON_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, "
                             f"not {self.log_level!r}")

    @property
    def store(self) -> str:
        """`sqlite`, `postgres` or `memory` (tests only)."""
        scheme = urlsplit(self.database_url).scheme
        if scheme == "sqlite":
            return "sqlite"
        if scheme in ("postgresql", "postgres"):
            return "postgres"
        if scheme == "memory":
            return "memory"
        raise ValueError(f"PONTOON_DATABASE_URL must start with sqlite:/// or postgresql://, "
                         f"not {self.database_url!r}")

    @property
    def projections_in_process(self) -> bool:
        """Whether this process stands in the election for running the read models (on
        every store: a file lock with SQLite, an advisory lock with PostgreSQL)."""
        return self.projections != "off"

    @property
    def lock_path(self) -> Path:
        """SQLite: the processes of the one host that serves the file race for this lock."""
        return self.sqlite_path.with_suffix(".projections.lock")

    @property
    def postgres_schema(self) -> str:
        return _query(urlsplit(self.database_url).query).get("schema", "public")

    @property
    def sqlite_path(self) -> Path:
        # sqlite:///var/x.sqlite3 is relative to the working directory; sqlite:////abs is absolute.
        return Path(self.database_url[len("sqlite:///"):])

    def ledger_env(self, *, create_tables: bool = False) -> dict[str, str]:
        """The eventsourcing library's settings for this store.

        Tables are created only by `pontoon migrate` (create_tables=True): several workers
        creating them at once was seen to fail (docs/architecture.md).
        """
        create = "y" if create_tables else "n"
        if self.store == "memory":
            return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
        if self.store == "sqlite":
            return {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                    "SQLITE_DBNAME": str(self.sqlite_path), "SQLITE_LOCK_TIMEOUT": "10",
                    "APPLICATION_RECORDER_TOPIC": SQLITE_RECORDER, "CREATE_TABLE": create}
        parts = urlsplit(self.database_url)
        return {"PERSISTENCE_MODULE": "eventsourcing.postgres",
                "POSTGRES_DBNAME": parts.path.lstrip("/"),
                "POSTGRES_HOST": parts.hostname or "127.0.0.1",
                "POSTGRES_PORT": str(parts.port or 5432),
                "POSTGRES_USER": unquote(parts.username or "postgres"),
                "POSTGRES_PASSWORD": unquote(parts.password or ""),
                "POSTGRES_POOL_SIZE": str(self.pool_size),
                "POSTGRES_MAX_OVERFLOW": str(self.pool_overflow),
                "POSTGRES_LOCK_TIMEOUT": "5",
                "POSTGRES_SCHEMA": self.postgres_schema,
                "APPLICATION_RECORDER_TOPIC": POSTGRES_RECORDER, "CREATE_TABLE": create}


INSERT_LOCK = "ledger-insert"  # every insert into the event log takes it (decision 93)


def advisory_key(purpose: str, schema: str) -> int:
    """A PostgreSQL advisory lock of one store: a signed 64-bit key named by what it is for
    and the store's schema (the read models' election; the event log's insert lock)."""
    digest = hashlib.sha256(f"pontoon-{purpose}:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


TOKEN_LENGTH_MIN = 32  # a bearer token someone chose: long enough not to be guessed


def _treasurer_token(token: str | None) -> str | None:
    """The first treasurer's token, chosen outside: at least 32 characters (the tokens the
    service makes are 46), never something a person can guess in a few tries."""
    if token is not None and len(token.strip()) < TOKEN_LENGTH_MIN:
        raise ValueError(f"PONTOON_TREASURER_TOKEN must be at least {TOKEN_LENGTH_MIN} "
                         f"characters, not {len(token.strip())}: make one with `pontoon tokens "
                         "create --role treasurer`, or `python3 -c 'import secrets; "
                         "print(\"pt_\" + secrets.token_urlsafe(32))'`")
    return token


def _query(query: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in query.split("&") if "=" in item)


def _count(text: str, name: str) -> int:
    if not text.strip().isdigit():
        raise ValueError(f"{name} must be a whole number (0 or more), not {text!r}")
    return int(text)
