"""The load of `benchmarks/service.py`: client threads, each with one keep-alive connection.

One client is one thread with its own `http.client.HTTPConnection` (kept alive where the
server allows it; gunicorn's sync workers close every connection, and `http.client` opens a
new one for the next request) and its own workload: a Shoot Pontoon table of the service, or
a stream of events of the baseline. There is no think time: a client sends its next request
as soon as it has read the answer to the last.

Only requests that complete inside the measured window count. Every client first sets up
(players, buy-ins, a table: not counted), then all start playing together; the first
`warmup` seconds are not counted either, and after the window each client finishes the unit
it is in (a deal) so the store holds only complete deals, also uncounted. A request's
latency is measured with `time.perf_counter` from sending it to having read the whole
answer, before decoding its JSON.
"""

from __future__ import annotations

import http.client
import json
import math
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

TIMEOUT = 60.0  # seconds a request may take before the client gives up on it
# A connection left idle this long is opened afresh before the next request: a server closes
# idle keep-alive connections (gunicorn's threads after 2 s, `pontoon serve` after 10 s), and
# a request sent on one it has closed would fail.
IDLE_REOPEN = 1.0
RACES = 5  # attempts at a command that keeps losing races with others (409 without a rule)


class Refused(Exception):
    """A 409 or 422: the service refused a command (a correct client makes none)."""

    def __init__(self, status: int, problem: Mapping[str, Any]) -> None:
        super().__init__(f"{status} {problem.get('rule') or ''} {problem.get('detail') or ''}")
        self.status = status


class Failed(Exception):
    """Any other failure: an unexpected status, a dropped connection, a broken client."""


@dataclass
class Window:
    """The measured interval, in `time.perf_counter` seconds (set when every client is ready)."""

    start: float = math.inf
    end: float = math.inf

    def holds(self, moment: float) -> bool:
        return self.start <= moment <= self.end


@dataclass
class Tally:
    """One client's counts: requests that completed inside the window, failures anywhere."""

    posts: int = 0  # successful POSTs
    game: int = 0  # of which game actions (deal starts and deal actions)
    gets: int = 0  # successful GETs (a client reads only to recover; expected none)
    latencies: list[float] = field(default_factory=list)  # seconds, successful POSTs
    units: int = 0  # deals (baseline: runs of events) begun and ended inside the window
    refused: int = 0  # 409 and 422 naming a rule or not expected now, whole run
    conflicts: int = 0  # 409s of a command that lost a race and was sent again, whole run
    errors: int = 0  # other statuses and dropped connections, whole run
    problems: list[str] = field(default_factory=list)  # the first few failures, for the report


class Http:
    """JSON over one connection, with every request timed and counted in `tally`."""

    def __init__(self, host: str, port: int, window: Window, tally: Tally, *,
                 keys: bool = False) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
        self.window, self.tally, self.keys = window, tally, keys
        self.last_used = time.perf_counter()

    def post(self, path: str, body: Mapping[str, Any], token: str, *, game: bool = False
             ) -> Any:
        return self._send("POST", path, body, token, game)

    def get(self, path: str, token: str) -> Any:
        return self._send("GET", path, None, token, False)

    def _send(self, method: str, path: str, body: Mapping[str, Any] | None, token: str,
              game: bool) -> Any:
        """One request; a command that lost a race (409 without a rule) is sent again.

        Its latency runs from the first attempt to the answer that ends it."""
        headers = {"Accept": "application/json", "Authorization": f"Bearer {token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.keys and method == "POST":
            headers["Idempotency-Key"] = uuid.uuid4().hex  # the same key for a resend
        began = time.perf_counter()
        for _ in range(RACES):
            status, answer = self._exchange(method, path, data, headers)
            problem = answer if isinstance(answer, dict) else {}
            if status != 409 or problem.get("rule"):
                break
            self.tally.conflicts += 1  # recorded nothing: the service says to send it again
        ended = self.last_used
        if 200 <= status < 300:
            if self.window.holds(ended):
                if method == "POST":
                    self.tally.posts += 1
                    self.tally.game += game
                    self.tally.latencies.append(ended - began)
                else:
                    self.tally.gets += 1
            return answer
        if status in (409, 422):
            self.tally.refused += 1
            if len(self.tally.problems) < 5:
                self.tally.problems.append(f"refused {method} {path} {body}: {status} "
                                           f"{problem.get('detail')}")
            raise Refused(status, problem)
        self._fail(f"{method} {path}: {status} {problem.get('detail') or answer!r:.200}")
        raise Failed(f"{method} {path}: {status}")

    def _exchange(self, method: str, path: str, data: bytes | None,
                  headers: dict[str, str]) -> tuple[int, Any]:
        if time.perf_counter() - self.last_used > IDLE_REOPEN:
            self.connection.close()  # the next request connects again
        try:
            self.connection.request(method, path, data, headers)
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.connection.close()
            self._fail(f"{method} {path}: {error!r}")
            raise Failed(f"{method} {path}: {error!r}") from None
        self.last_used = time.perf_counter()
        return response.status, json.loads(raw) if raw else None

    def _fail(self, message: str) -> None:
        self.tally.errors += 1
        if len(self.tally.problems) < 5:
            self.tally.problems.append(message)


class Watcher(Protocol):
    """Told when the window opens and closes (CPU counters, a profiler)."""

    def opened(self) -> None: ...

    def closed(self) -> None: ...


class Workload(Protocol):
    def setup(self) -> None:
        """What comes before the measurement (players, buy-ins, a table)."""

    def play(self) -> None:
        """One unit of play (a complete deal); a client repeats it until the window ends."""


@dataclass
class Run:
    """The sum of every client's tally over one measured window."""

    clients: int
    duration: float  # seconds
    posts: int
    game: int
    gets: int
    units: int
    refused: int
    conflicts: int
    errors: int
    latencies: list[float]  # sorted
    problems: list[str]

    @property
    def posts_per_second(self) -> float:
        return self.posts / self.duration

    @property
    def game_per_second(self) -> float:
        return self.game / self.duration

    def percentile_ms(self, q: float) -> float:
        """The nearest-rank `q` percentile of every POST's latency, in milliseconds."""
        if not self.latencies:
            return math.nan
        rank = max(1, math.ceil(q / 100 * len(self.latencies)))
        return self.latencies[rank - 1] * 1000


def run_clients(make: Callable[[Http, int], Workload], clients: int, *, host: str, port: int,
                warmup: float, duration: float, stop: threading.Event,
                watchers: Sequence[Watcher] = (), keys: bool = False) -> Run:
    """`clients` threads, each playing `make(http, index)`; counts over one window."""
    window = Window()
    ready_all = threading.Event()

    def open_window() -> None:  # run by the last client to arrive, before any goes on
        window.start = time.perf_counter() + warmup
        window.end = window.start + duration
        ready_all.set()

    ready = threading.Barrier(clients, action=open_window)
    tallies = [Tally() for _ in range(clients)]

    def client(index: int) -> None:
        tally = tallies[index]
        try:
            workload = make(Http(host, port, window, tally, keys=keys), index)
            workload.setup()
            ready.wait()
            # Clients connect afresh at staggered moments, as independent clients would,
            # not in one burst that a single worker's accept loop could take whole.
            time.sleep(index / clients * min(1.0, warmup / 2))
            while not stop.is_set() and time.perf_counter() < window.end:
                began = time.perf_counter()
                workload.play()
                if window.holds(began) and window.holds(time.perf_counter()):
                    tally.units += 1
        except threading.BrokenBarrierError:
            pass
        except Exception as error:  # noqa: BLE001 - reported, and the others go on
            tally.errors += 1
            tally.problems.append(f"client {index} stopped: {error!r}")
            ready.abort()

    threads = [threading.Thread(target=client, args=(i,), name=f"client-{i}", daemon=True)
               for i in range(clients)]
    for thread in threads:
        thread.start()
    while not ready_all.wait(0.2):
        if not any(thread.is_alive() for thread in threads):
            break
    if ready_all.is_set():
        _sleep_until(window.start)
        for watcher in watchers:
            watcher.opened()
        _sleep_until(window.end)
        for watcher in watchers:
            watcher.closed()
    for thread in threads:
        while thread.is_alive():
            thread.join(0.2)  # short joins, so that Ctrl-C reaches the main thread
    return _sum(clients, duration, tallies)


def _sleep_until(moment: float) -> None:
    while (left := moment - time.perf_counter()) > 0:
        time.sleep(min(left, 0.5))


def _sum(clients: int, duration: float, tallies: Sequence[Tally]) -> Run:
    return Run(clients=clients, duration=duration,
               posts=sum(t.posts for t in tallies), game=sum(t.game for t in tallies),
               gets=sum(t.gets for t in tallies), units=sum(t.units for t in tallies),
               refused=sum(t.refused for t in tallies),
               conflicts=sum(t.conflicts for t in tallies), errors=sum(t.errors for t in tallies),
               latencies=sorted(x for t in tallies for x in t.latencies),
               problems=[p for t in tallies for p in t.problems][:10])
