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


_ONE_SHOT: list[bool] = []


def one_shot() -> None:
    """This process runs one command and exits (`fudge` run as the program: cli.main.start_up)."""
    _ONE_SHOT.append(True)


@contextmanager
def paused_gc(lasting: bool = False) -> Iterator[None]:
    """The cyclic collector off inside the block (as it was before, after it).

    `lasting`: what the block builds lives as long as the command (the state a command starts from). In a
    process that runs one command and exits, it is then frozen out of later collections (`gc.freeze`), as
    the command's modules are: the collector's pass over it when switched back on, and every later full
    one, walked tens of thousands of objects of a large roster's state to find nothing. A process that goes
    on (a server, `fudge play`, a test) lets the collector see it as before."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if lasting and _ONE_SHOT:
            gc.freeze()
        gc.enable()
