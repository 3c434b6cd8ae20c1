"""Making the outbox's deliveries: each subscription's oldest pending delivery is posted,
signed; the next waits until it succeeds, so a receiver gets events in log order. A failed
attempt is retried with exponential backoff; when a delivery has failed for `retry_for`
(a day) since its first attempt, the subscription is disabled.

Attempts run in a pool of threads apart from the read models, each bounded as a whole by
the timeout (projections/webhooks/post.py), at most one a subscription: a slow, failing or
dead receiver delays only its own subscription. When more are due than there are threads,
subscriptions whose last attempt did not fail go first. At least once: a delivery whose
answer is lost (the process dies mid-post) is made again by the next sender.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from projections.failures import describe, rfc3339
from projections.store import ReadStore
from projections.webhooks.addresses import Refused
from projections.webhooks.post import post
from projections.webhooks.signing import message_id, sign

RETRY_MOST = 3600.0  # seconds between two attempts, at most
# Attempts under way at once (one a subscription): the subscriptions are the treasurer's,
# so this many slow receivers at once is not expected; more wait for a thread.
WORKERS = 32
log = logging.getLogger("pontoon.webhooks")

_PENDING = ("SELECT d.webhook_id, d.position, d.body, d.attempts, d.first_attempt_at, "
            "d.next_attempt_at, w.url, w.secret FROM webhook_deliveries d "
            "JOIN webhooks w ON w.webhook_id = d.webhook_id "
            "WHERE d.delivered_at IS NULL AND w.status = 'active' AND d.position = "
            "(SELECT MIN(x.position) FROM webhook_deliveries x "
            "WHERE x.webhook_id = d.webhook_id AND x.delivered_at IS NULL)")


@dataclass(frozen=True)
class Delivery:
    webhook_id: str
    position: int
    body: str
    attempts: int
    first_attempt_at: str | None
    next_attempt_at: str | None
    url: str
    secret: str


class Sender:
    def __init__(self, store: ReadStore, *, retry_base: float, retry_for: float,
                 timeout: float, wake: threading.Event | None = None,
                 workers: int = WORKERS, allow_private: bool = False) -> None:
        self.store, self.retry_base, self.retry_for = store, retry_base, retry_for
        self.timeout, self.workers, self.allow_private = timeout, workers, allow_private
        self.wake = wake or threading.Event()
        # Told each attempt's outcome (delivered, failed, disabled): the API's metrics.
        self.attempted: Callable[[str], None] = lambda outcome: None

    def run(self, stop: threading.Event, idle: float = 0.1, poll: float = 5.0) -> None:
        """Until `stop`: post what is due; look again when woken, when an attempt ends, at
        the next retry, or every `poll` seconds. Attempts under way are finished."""
        sending: dict[str, Future[None]] = {}
        pool = ThreadPoolExecutor(self.workers, thread_name_prefix="webhook")
        look_at = 0.0
        try:
            while not stop.is_set():
                finished = [key for key, future in sending.items() if future.done()]
                for key in finished:
                    sending.pop(key)
                if finished or self.wake.is_set() or time.time() >= look_at:
                    self.wake.clear()
                    look_at = self._start_due(pool, sending, poll)
                stop.wait(idle)
        finally:
            pool.shutdown(wait=True)

    def _start_due(self, pool: ThreadPoolExecutor, sending: dict[str, Future[None]],
                   poll: float) -> float:
        """Start each due head delivery; returns when to look again."""
        now = time.time()
        try:
            heads = [Delivery(**row) for row in self.store.rows(_PENDING)]
        except Exception as error:
            log.error("webhook deliveries cannot be read (%s)", describe(error))
            return now + poll
        look_at = now + poll
        due = []
        for head in heads:
            if head.webhook_id in sending:
                continue
            when = _seconds(head.next_attempt_at) if head.next_attempt_at else now
            if when <= now:
                due.append(head)
            else:
                look_at = min(look_at, when)
        # Healthy subscriptions first: a receiver that keeps failing waits its turn.
        for head in sorted(due, key=lambda d: (d.attempts, d.position)):
            if len(sending) >= self.workers:
                break  # the rest when an attempt ends (which makes the sender look again)
            sending[head.webhook_id] = pool.submit(self.attempt, head)
        return look_at

    def attempt(self, delivery: Delivery) -> None:
        """Post one delivery, signed, and record the answer."""
        identifier = message_id(delivery.webhook_id, delivery.position)
        timestamp = int(time.time())
        headers = {"Content-Type": "application/json", "User-Agent": "pontoon-webhooks/1",
                   "webhook-id": identifier, "webhook-timestamp": str(timestamp),
                   "webhook-signature": sign(delivery.secret, identifier, timestamp,
                                             delivery.body)}
        status: int | None = None
        error: str | None = None
        try:
            status = post(delivery.url, delivery.body.encode(), headers,
                          timeout=self.timeout, allow_private=self.allow_private)
            if not 200 <= status < 300:
                error = f"HTTP {status}"
        except Refused as refused:
            error = str(refused)
        except Exception as failed:  # refused connection, timeout, a broken answer
            error = describe(failed)
        try:
            self._record(delivery, status, error)
        except Exception as failed:  # the attempt is made again: at least once
            log.error("the attempt on webhook %s at position %s cannot be recorded (%s)",
                      delivery.webhook_id, delivery.position, describe(failed))

    def _record(self, delivery: Delivery, status: int | None, error: str | None) -> None:
        now = time.time()
        first = delivery.first_attempt_at or rfc3339(now)
        key = (delivery.webhook_id, delivery.position)
        if status is not None and 200 <= status < 300:
            self.store.run([("UPDATE webhook_deliveries SET attempts = attempts + 1, "
                             "last_status = %s, last_error = NULL, first_attempt_at = %s, "
                             "delivered_at = %s, next_attempt_at = NULL "
                             "WHERE webhook_id = %s AND position = %s",
                             (status, first, rfc3339(now), *key))])
            self.attempted("delivered")
            return
        attempts = delivery.attempts + 1
        give_up = now - _seconds(first) >= self.retry_for
        delay = min(self.retry_base * 2 ** (attempts - 1), RETRY_MOST)
        statements: list[tuple[str, tuple[Any, ...]]] = [(
            "UPDATE webhook_deliveries SET attempts = %s, last_status = %s, last_error = %s, "
            "first_attempt_at = %s, next_attempt_at = %s WHERE webhook_id = %s AND position = %s",
            (attempts, status, error, first, None if give_up else rfc3339(now + delay), *key))]
        if give_up:
            statements.append(("UPDATE webhooks SET status = 'disabled', disabled_at = %s "
                               "WHERE webhook_id = %s AND status = 'active'",
                               (rfc3339(now), delivery.webhook_id)))
            log.warning("webhook %s disabled: the delivery of position %s failed for %.0f s "
                        "(%s attempts, last: %s)", delivery.webhook_id, delivery.position,
                        now - _seconds(first), attempts, error)
        else:
            log.info("webhook %s: delivery of position %s failed (%s); attempt %s, next in "
                     "%.1f s", delivery.webhook_id, delivery.position, error, attempts, delay)
        self.store.run(statements)
        self.attempted("disabled" if give_up else "failed")


def _seconds(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()
