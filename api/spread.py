"""Keep-alive connections spread evenly over the workers.

Each worker listens on a socket of its own (SO_REUSEPORT) and the kernel gives a new
connection to one of them by a hash of its addresses: eight clients were seen to land
6+2 and 7+1, the busier worker's threads then queueing behind its one GIL while the other
worker idled (docs/benchmarks.md). A keep-alive connection stays where it landed.

So the workers tell each other how many connections they hold, in a few bytes of memory
the master maps before it forks them, and a worker holding more than its even share closes
the connection of the request it is serving after answering it (`Connection: close`, which
every HTTP client honours by connecting again): the client's next connection is hashed
afresh, and the counts settle at an even split. A worker at or under its share never closes
one, so with an even split nothing is closed at all.
"""

from __future__ import annotations

import math
import mmap
import os
import struct
from typing import Any

_SLOT = struct.Struct("=ii")  # a worker's pid and the connections it holds


class Spread:
    """Made in the master, before the workers are forked: one slot a worker."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.memory = mmap.mmap(-1, _SLOT.size * workers)  # shared with the forked workers

    # --- gunicorn's hooks ------------------------------------------------------------------

    def pre_fork(self, server: Any, worker: Any) -> None:
        """In the master: the worker about to be forked takes the first slot no live
        worker has."""
        taken = {getattr(w, "spread_slot", None) for w in server.WORKERS.values()}
        worker.spread_slot = next((i for i in range(self.workers) if i not in taken), None)

    def post_fork(self, server: Any, worker: Any) -> None:
        """In the new worker."""
        if worker.spread_slot is not None:
            self._write(worker.spread_slot, os.getpid(), 0)

    def child_exit(self, server: Any, worker: Any) -> None:
        """In the master: a dead worker holds no connections."""
        if getattr(worker, "spread_slot", None) is not None:
            self._write(worker.spread_slot, 0, 0)

    def pre_request(self, worker: Any, request: Any) -> None:
        """In a worker, before each request: note its connections; above its share, close
        this one after the answer."""
        slot, held = getattr(worker, "spread_slot", None), getattr(worker, "nr_conns", None)
        if slot is None or held is None:
            return  # a sync worker closes every connection anyway
        self._write(slot, os.getpid(), held)
        counts = [count for pid, count in self._slots() if pid]
        if len(counts) > 1 and held > math.ceil(sum(counts) / len(counts)):
            request.must_close = True

    # --- the shared memory --------------------------------------------------------------------

    def _write(self, slot: int, pid: int, count: int) -> None:
        _SLOT.pack_into(self.memory, slot * _SLOT.size, pid, count)

    def _slots(self) -> list[tuple[int, int]]:
        return [_SLOT.unpack_from(self.memory, i * _SLOT.size) for i in range(self.workers)]
