"""What an operator sees of a running service: a request id on every response and log line,
JSON log lines, and Prometheus metrics at /metrics.

Per request this costs a clock read, a histogram and a counter in memory (a mmap'd file
under gunicorn) and one log line: no store round trip. What the store knows (positions,
lags, failing read models, the webhook backlog) is read when /metrics is scraped.

Nothing here logs a body, a header or a query string, so no token, webhook secret or
card reaches a log line; log calls elsewhere pass ids and counts, never payloads.
"""

from __future__ import annotations

import functools
import logging
import random
import re
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from flask import Flask, Response, current_app, g, request

from api.auth import COMMANDS

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
_REQUEST_ID_FORM = re.compile(r"[A-Za-z0-9._:@/+=-]{1,200}")  # else one is made up
LOG_FIELDS = "%(levelname)s %(name)s %(message)s"
log = logging.getLogger("pontoon.access")


class RequestIdFilter(logging.Filter):
    """Adds the id of the request being served (None outside requests) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = REQUEST_ID.get()
        return True


def json_formatter() -> logging.Formatter:
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(LOG_FIELDS, rename_fields={"levelname": "level", "name": "logger"},
                         timestamp="time")  # RFC 3339, UTC


def configure_logging(level: str) -> None:
    """JSON lines on standard error for every logger of this process (`projections run`)."""
    handler = logging.StreamHandler()
    handler.setFormatter(json_formatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def gunicorn_logging(level: str) -> dict[str, Any]:
    """gunicorn's `logconfig_dict`: its own messages and the app's as JSON lines; its access
    log off (the app logs each request itself, with its request id)."""
    handler = {"class": "logging.StreamHandler", "formatter": "json",
               "filters": ["request_id"], "stream": "ext://sys.stderr"}
    return {"version": 1, "disable_existing_loggers": False,
            "root": {"level": level.upper(), "handlers": ["json"]},
            "loggers": {"gunicorn.error": {"level": level.upper(), "handlers": ["json"],
                                           "propagate": False, "qualname": "gunicorn.error"},
                        "gunicorn.access": {"level": "WARNING", "handlers": [],
                                            "propagate": False, "qualname": "gunicorn.access"},
                        # waitress warns of every request that waits for a thread: a
                        # busy service's normal state, not news.
                        "waitress.queue": {"level": "ERROR", "handlers": [],
                                           "propagate": True, "qualname": "waitress.queue"}},
            "handlers": {"json": handler},
            "formatters": {"json": {"()": "api.observability.json_formatter"}},
            "filters": {"request_id": {"()": "api.observability.RequestIdFilter"}}}


@functools.cache
def metrics() -> Any:
    """The process's metrics, made on first use: under gunicorn that is in the worker,
    after PROMETHEUS_MULTIPROC_DIR is set (api/server.py), as multiprocess mode needs."""
    from types import SimpleNamespace

    from prometheus_client import Counter, Histogram

    return SimpleNamespace(
        commands=Counter("pontoon_commands", "Commands by endpoint and outcome (accepted, "
                         "refused, conflict, failed)", ["command", "outcome"], registry=None),
        latency=Histogram("pontoon_request_duration_seconds", "Time to answer a request",
                          ["method", "endpoint"], registry=None),
        retries=Counter("pontoon_command_retries", "Commands decided again after losing a "
                        "race with another command", ["command"], registry=None),
        after_commit=Counter("pontoon_after_commit_failures", "Steps after a command's "
                             "commit that failed (snapshots, notification, cache); the "
                             "command stands and was answered", ["stage"], registry=None),
        integrity=Counter("pontoon_store_refusals", "Commands whose events the store refused "
                          "for a reason other than a lost race, by constraint (answered 500)",
                          ["constraint"], registry=None),
        invariants=Counter("pontoon_invariant_failures", "Requests stopped by a broken "
                           "invariant, by invariant (answered 500)", ["invariant"],
                           registry=None),
        deliveries=Counter("pontoon_webhook_attempts", "Webhook delivery attempts by "
                           "outcome (delivered, failed, disabled)", ["outcome"], registry=None))


def install(app: Flask) -> None:
    """Request ids, the access log line and request metrics; GET /metrics."""
    services = app.extensions["pontoon"]
    counted = metrics()
    services.ledger.race_lost = lambda name: counted.retries.labels(name).inc()
    services.ledger.after_commit_failed = lambda stage: counted.after_commit.labels(stage).inc()
    if services.sender is not None:
        services.sender.attempted = lambda outcome: counted.deliveries.labels(outcome).inc()
    app.before_request(_begin)
    app.after_request(_finish)
    app.teardown_request(_forget)
    app.add_url_rule("/metrics", "metrics", _scrape, methods=["GET"])


def _begin() -> None:
    g.request_started = time.perf_counter()
    g.request_id = _request_id()
    g.request_id_token = REQUEST_ID.set(g.request_id)


def _request_id() -> str:
    sent = request.headers.get("X-Request-Id", "")
    if _REQUEST_ID_FORM.fullmatch(sent):
        return sent
    # 128 random bits, as a uuid4's hex, but from the process's generator: an id only
    # needs to be unique, and `uuid4` reads the kernel's random source, a system call
    # that lets the GIL go and waits to take it back, on every request.
    return f"{random.getrandbits(128):032x}"


def _finish(response: Response) -> Response:
    # A hook that answered before ours ran (input limits) leaves no id yet.
    request_id = g.get("request_id") or _request_id()
    response.headers["X-Request-Id"] = request_id
    elapsed = time.perf_counter() - g.get("request_started", time.perf_counter())
    endpoint = request.endpoint or "unmatched"
    counted = metrics()
    counted.latency.labels(request.method, endpoint).observe(elapsed)
    if request.method in COMMANDS:
        counted.commands.labels(endpoint, _outcome(response.status_code)).inc()
    log.info("%s %s %s", request.method, request.path, response.status_code,
             extra={"method": request.method, "path": request.path,
                    "status": response.status_code, "duration_ms": round(elapsed * 1000, 2),
                    "request_id": request_id})
    return response


def _forget(_: BaseException | None) -> None:
    token = g.pop("request_id_token", None)
    if token is not None:
        REQUEST_ID.reset(token)


def _outcome(status: int) -> str:
    if status < 400:
        return "accepted"
    if status == 409:
        return "conflict"
    return "refused" if status < 500 else "failed"


def _scrape() -> Response:
    """Prometheus text: every worker's counters (multiprocess mode under gunicorn) and what
    the store says now, so each host reports the same positions and backlog."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, values
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    if getattr(values.ValueClass, "_multiprocess", False):
        MultiProcessCollector(registry)
    else:
        for metric in vars(metrics()).values():
            registry.register(metric)
    registry.register(StoreCollector(current_app.extensions["pontoon"]))
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST.split(";")[0],
                    headers={"Content-Type": CONTENT_TYPE_LATEST})


class StoreCollector:
    """Read at scrape time: the log's head, each model's position, lag and failure, and the
    deliveries still to make."""

    def __init__(self, services: Any) -> None:
        self.services = services

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        from projections.failures import failures
        from projections.webhooks.outbox import backlog

        up = GaugeMetricFamily("pontoon_store_up", "1 when the store answered this scrape")
        projections = self.services.projections
        if projections is None:
            up.add_metric([], 1)
            yield up
            return
        try:
            status = projections.status()
            failing = {f.model: f.error.partition(":")[0] for f in failures(projections.store)}
            pending = backlog(projections.store)
        except Exception:  # the store is down: say so, and nothing else
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        families = {
            "position": GaugeMetricFamily("pontoon_projection_position",
                                          "Last event position a read model applied",
                                          labels=["model"]),
            "lag": GaugeMetricFamily("pontoon_projection_lag_events",
                                     "Events recorded that a read model has not applied",
                                     labels=["model"]),
            "failing": GaugeMetricFamily("pontoon_projection_failing",
                                         "1 while a read model cannot apply an event",
                                         labels=["model"]),
            "error": GaugeMetricFamily("pontoon_projection_failure_info",
                                       "1 for each read model failing, with its error's class",
                                       labels=["model", "error"])}
        for name, state in status.items():
            families["position"].add_metric([name], state["position"])
            families["lag"].add_metric([name], state["lag"])
            families["failing"].add_metric([name], 1 if name in failing else 0)
            if name in failing:
                families["error"].add_metric([name, failing[name]], 1)
        yield from families.values()
        yield GaugeMetricFamily("pontoon_webhook_backlog", "Webhook deliveries still to make "
                                "to active subscriptions", value=pending)
