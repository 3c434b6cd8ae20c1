"""The bots' HTTP client: JSON over urllib (the standard library only), bearer tokens.

Every POST carries an `Idempotency-Key` and is sent once more, with the same key, after a 409
or a dropped connection, so a retried command is never applied twice; a GET is tried again
while the read models catch up (503).
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Mapping
from typing import Any

RETRY_PAUSE = 0.05
TIMEOUT = 30.0

# What a dropped or refused connection raises (HTTPError, a URLError, is answered first).
TRANSIENT = (urllib.error.URLError, ConnectionError, TimeoutError, http.client.HTTPException)


class ApiError(Exception):
    """A problem+json answer (or any non-2xx answer) of the service."""

    def __init__(self, method: str, path: str, status: int, problem: Mapping[str, Any]) -> None:
        self.method, self.path, self.status = method, path, status
        self.problem = dict(problem)
        detail = self.problem.get("detail") or self.problem.get("title") or ""
        super().__init__(f"{method} {path.split('?')[0]}: {status} {detail}")

    @property
    def detail(self) -> str:
        return str(self.problem.get("detail") or self.problem.get("title") or self.status)


class Api:
    """JSON over urllib: bearer tokens, an Idempotency-Key on every POST, one retry."""

    def __init__(self, base_url: str, *, timeout: float = TIMEOUT) -> None:
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.requests = 0
        self.retries = 0
        self.position = 0  # the highest log position a command answered (read-your-writes)

    def get(self, path: str, token: str | None, **query: Any) -> Any:
        if query:
            path += "?" + urllib.parse.urlencode(query)
        for attempt in range(3):
            try:
                return self._send("GET", path, None, token, None)
            except ApiError as error:
                if error.status != 503 or attempt == 2:  # 503: read models catching up
                    raise
            except TRANSIENT:
                if attempt == 2:
                    raise
            self.retries += 1
            time.sleep(RETRY_PAUSE * (attempt + 1) * 4)
        raise AssertionError("unreachable")

    def post(self, path: str, body: Mapping[str, Any], token: str | None, *,
             key: str | None = None) -> Any:
        """Send once; on a 409 or a lost connection send again with the same key, once.
        `key`: the Idempotency-Key, a new one unless given."""
        key = key or uuid.uuid4().hex
        try:
            return self._send("POST", path, body, token, key)
        except ApiError as error:
            if error.status != 409:
                raise
        except TRANSIENT:
            pass
        self.retries += 1
        time.sleep(RETRY_PAUSE)
        return self._send("POST", path, body, token, key)

    def _send(self, method: str, path: str, body: Mapping[str, Any] | None,
              token: str | None, key: str | None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if data is not None:
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["Idempotency-Key"] = key
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=headers)
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            with error:
                raw = error.read()
            try:
                problem = json.loads(raw) if raw else {}
            except ValueError:
                problem = {"detail": raw.decode(errors="replace")[:200]}
            raise ApiError(method, path, error.code,
                           problem if isinstance(problem, dict) else {}) from None
        answer = json.loads(raw) if raw else None
        if isinstance(answer, dict) and isinstance(answer.get("position"), int):
            self.position = max(self.position, answer["position"])
        return answer
