"""Long passes over the log without Python's cyclic garbage collector.

`pontoon verify` and a rebuild keep hundreds of thousands of objects alive at once (the
postings to match, the deals in play, a page of decoded events) and make almost no
reference cycles (a verify of 289,000 events left 52 objects for the collector). The
collector's full collections walk every live object, so they cost such a pass an eighth
of its time; reference counting still frees everything else as it goes, and what cycles
there were are collected when the pass ends (docs/decisions.md 117).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def without_cyclic_collection() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
