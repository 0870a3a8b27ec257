"""Reading a whole log at once with Python's cyclic garbage collector paused.

Loading a fight builds hundreds of thousands of small objects (records, events, states). Each
allocation counts towards the collector's thresholds, so a replay set off many collections,
and each full one walked every object still alive, the records already built included, to
find nothing (records and states hold no reference cycles). Paused, the collector makes one
pass over what was built when it is switched back on, which costs far less than the walks it
spares, in validating the rows and in decoding a snapshot's state alike (bench/README.md, stored
rows). Reference counting frees objects as usual while paused.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic collector off inside the block (as it was before, after it)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
