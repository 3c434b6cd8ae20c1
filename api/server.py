"""`pontoon serve`: the API under gunicorn, one Ledger built in each worker after fork."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gunicorn.app.base import BaseApplication

from config import Settings


class Server(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, *, workers: int, threads: int) -> None:
        self.settings = settings
        self.options = {"bind": f"{settings.host}:{settings.port}", "workers": workers,
                        "threads": threads, "worker_class": "gthread" if threads > 1 else "sync",
                        "accesslog": "-", "loglevel": settings.log_level.lower(),
                        "preload_app": False, "timeout": 60, "graceful_timeout": 10}
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        # Called in each worker after fork (preload_app is off): never share a store
        # connection pool across a fork.
        from api import create_app

        return create_app(self.settings)


def serve(settings: Settings, *, host: str | None, port: int | None, workers: int,
          threads: int) -> None:
    settings = replace(settings, host=host or settings.host, port=port or settings.port)
    Server(settings, workers=workers, threads=threads).run()
