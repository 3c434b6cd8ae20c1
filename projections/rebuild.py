"""`pontoon projections rebuild` on both cores, for a long log.

A rebuild applies the whole log to every read model: sequential Python, one core. From
`HELPER_FROM` events a helper process is spawned (never forked: decisions.md 88) that opens
the store again and rebuilds the deals' audit, the tables and the disputes (deal and table
events, about two thirds of the log), while this process rebuilds the balances, the
statements, the tokens and whatever else there is from the account events. Each process
reads the log's pages and decodes only the events its own models read. The models keep
their own tracking positions, so they never wait for each other; this process then catches
up every model once more, which finishes whatever a helper that failed left undone
(decisions.md 116).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
from collections.abc import Callable
from typing import Any

from config import Settings
from domain.errors import present
from projections.base import EventLog
from projections.collector import without_cyclic_collection
from projections.runner import Progress, Projections
from projections.store import TABLES, read_store

# The models the helper rebuilds: about the same work as all the others together.
HELPER_MODELS = frozenset({"audit", "tables", "disputes"})
HELPER_FROM = 100_000  # events; below, starting a process costs about what it saves
# Pages of a rebuild: five times the runner's, so five times fewer commits and per-page
# reads (measured: a fifth less CPU, and less waiting on the disk).
PAGE = 10_000
log = logging.getLogger("pontoon.projections")


def rebuild(projections: Projections, reopen: Callable[[], EventLog] | None = None,
            settings: Settings | None = None, progress: Progress | None = None, *,
            helper_from: int = HELPER_FROM) -> int:
    """Drop every read model's rows and apply the whole log again (as
    `Projections.rebuild`), sharing a log of `helper_from` events or more with a helper
    process when `reopen` (a picklable way to open the store again) and `settings` are
    given. Returns the events of the log applied."""
    head = projections.head()
    if reopen is None or settings is None or head < helper_from or head == 0:
        with without_cyclic_collection():
            done = Projections(projections.ledger, projections.store, PAGE).rebuild(progress)
        projections.catch_up()  # it reads the positions afresh
        return done
    projections.store.clear(TABLES, [m.tracking_name for m in projections.read_models])
    context = multiprocessing.get_context("spawn")
    reached = context.Value("q", 0, lock=False)
    helper = context.Process(target=_helper, args=(reopen, settings, PAGE, reached),
                             name="pontoon-rebuild-helper", daemon=True)
    helper.start()
    mine = Projections(projections.ledger, projections.store, PAGE)
    mine.models = [m for m in mine.models if m.name not in HELPER_MODELS]

    def told(position: int, _: int) -> None:
        if progress:
            progress(min(position, reached.value), head)

    try:
        with without_cyclic_collection():
            mine.catch_up(told)
        while helper.is_alive():
            helper.join(0.2)
            told(head, head)
    finally:
        if helper.is_alive():
            helper.kill()
        helper.join(5)
    if helper.exitcode != 0:
        log.warning("the rebuild's helper process ended with exit code %s; its read models "
                    "are caught up here", helper.exitcode)
    projections.catch_up(progress)  # whatever is left, whoever left it
    return head


def _helper(reopen: Callable[[], EventLog], settings: Settings, page: int, reached: Any
            ) -> None:
    ledger = reopen()
    try:
        store = present(read_store(ledger, settings), "the read store a rebuild helper fills")
        runner = Projections(ledger, store, page)
        runner.models = [m for m in runner.models if m.name in HELPER_MODELS]
        parent = multiprocessing.parent_process()

        def told(position: int, _: int) -> None:
            reached.value = position
            if parent is not None and not parent.is_alive():
                raise SystemExit(1)  # the main process is gone: nobody waits for this

        with without_cyclic_collection():
            runner.catch_up(told)
    finally:
        with contextlib.suppress(Exception):
            ledger.close()  # type: ignore[attr-defined]
