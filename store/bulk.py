"""Reading a whole log at once with Python's cyclic garbage collector paused.

Loading a fight builds tens of thousands of small objects (records, events, states). Each
allocation counts towards the collector's thresholds, so a replay set off dozens of
collections, and every full one walks every object still alive, records already built
included: about half of parsing a 10,000-event log and of unpickling its cached state went to
collections that found nothing (records and states hold no reference cycles). Reference
counting still frees everything as usual while paused; the collector runs again afterwards.
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
