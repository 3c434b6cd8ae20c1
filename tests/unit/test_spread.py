"""api/spread.py: a worker holding more than its even share of the keep-alive connections
closes the one it is serving; at or under its share it never does."""

from __future__ import annotations

from types import SimpleNamespace

from api.spread import Spread


def _workers(spread: Spread, count: int) -> list[SimpleNamespace]:
    server = SimpleNamespace(WORKERS={})
    made = []
    for pid in range(100, 100 + count):
        worker = SimpleNamespace(nr_conns=0)
        spread.pre_fork(server, worker)
        spread.post_fork(server, worker)  # in the worker, as gunicorn calls it
        spread._write(worker.spread_slot, pid, 0)  # its own pid, as if forked
        server.WORKERS[pid] = worker
        made.append(worker)
    return made


def _closes(spread: Spread, worker: SimpleNamespace, held: int) -> bool:
    worker.nr_conns = held
    request = SimpleNamespace(must_close=False)
    spread.pre_request(worker, request)
    return request.must_close


def test_each_worker_takes_a_slot_of_its_own() -> None:
    spread = Spread(3)
    assert [w.spread_slot for w in _workers(spread, 3)] == [0, 1, 2]


def test_a_worker_above_its_share_closes_and_at_its_share_keeps() -> None:
    """8 clients on 2 workers: 6+2 and 5+3 close on the busier worker only; 4+4 closes
    nothing; with 9 clients 5+4 is as even as it gets."""
    spread = Spread(2)
    a, b = _workers(spread, 2)
    for busy, idle, closes in ((6, 2, True), (5, 3, True), (4, 4, False), (5, 4, False)):
        _closes(spread, a, busy)  # each has told the other its count
        assert not _closes(spread, b, idle)
        assert _closes(spread, a, busy) is closes, (busy, idle)


def test_a_worker_not_yet_heard_from_counts_as_holding_none() -> None:
    spread = Spread(2)
    a, _ = _workers(spread, 2)
    assert not _closes(spread, a, 1)  # one client: nothing to even out
    assert _closes(spread, a, 2)  # two on one worker, none on the other


def test_a_dead_workers_slot_is_freed_and_counts_for_nothing() -> None:
    spread = Spread(2)
    a, b = _workers(spread, 2)
    _closes(spread, b, 7)
    spread.child_exit(None, b)
    assert not _closes(spread, a, 3)  # alone: no share to exceed
    replacement = SimpleNamespace(nr_conns=0)
    spread.pre_fork(SimpleNamespace(WORKERS={1: a}), replacement)
    assert replacement.spread_slot == b.spread_slot


def test_a_sync_worker_is_left_alone() -> None:
    spread = Spread(2)
    worker = SimpleNamespace(spread_slot=0)  # no nr_conns: gunicorn's sync worker
    request = SimpleNamespace(must_close=False)
    spread.pre_request(worker, request)
    assert not request.must_close
    assert spread._slots() == [(0, 0), (0, 0)]  # nothing written for it
