"""`fudge sim --batch`: a run's fights played as arrays by its ruleset's batch kernel, with the batch's keyed dice.

A ruleset serves batch runs with a `batch` module in its package (`engine.rulesets.fudge.batch`,
`engine.rulesets.fate.batch`): its
`plan(setup, opening)` (the duel, or None where the kernel was not proven), `play_many(duel, fights,
dice)` (each fight's winner, rounds and final wound levels, as arrays) and `LEVELS` (the names of
those levels). Both need numpy, the `batch` extra; without it `--batch` is refused in one line.

The dice (docs/sim.md, "Batch runs"): the fights of a run are cut in chunks of `CHUNK` in index
order, whatever the machine. Chunk c's dice come from Random123's Philox4x64-10 counter-based
generator (`numpy.random.Philox(key=K)`, its raw 64-bit words: blocks at counters 1, 2, ...), K the
first 16 bytes, little-endian, of HMAC-SHA256(key = the run's --seed in decimal ASCII, message =
"fudge-sim-batch:v1:" + c in decimal). The kernel asks for the dice of every fight still on at once, in the engine's order
(first fighter's roll, second's, then the damage rolls of the blows), fights in index order; each roll
of n Fudge dice takes the high 32 bits of one 64-bit output w, rejected while w >= 3^n * floor(2^32 / 3^n)
(the next output replaces it) and read as the base-3 digits of w mod 3^n, each digit less 1 a die.
So each roll is exactly that of n fair Fudge dice, a seed gives the same run on any machine, and
anyone with the seed can re-derive every die: the run is reproducible and auditable. They are not
the engine's dice (an HMAC a roll, per fight): a batch run is the same distribution of outcomes as
a run without --batch, not the same fights (tests/test_sim_batch.py checks both).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterator
from typing import Any

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.registry import ruleset_part
from fudge_combat.sim.runner import Opening, Setup
from fudge_combat.sim.stats import Tally

CHUNK = 65_536  # fights played at once: a chunk's arrays are a few MB, whatever -n
LABEL = b"fudge-sim-batch:v1:"
NEEDS_NUMPY = ("--batch needs numpy: pip install numpy, or install fudge with its batch extra (pip install "
               "'.[batch]' in fudge's source folder); or run without --batch")


def chunk_key(master: int, chunk: int) -> int:
    """The Philox key of chunk `chunk` of the run with this seed (the derivation in the module's docstring)."""
    digest = hmac.new(str(master).encode(), LABEL + str(chunk).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:16], "little")


class KeyedDice:
    """A chunk's dice, from its keyed generator: `Rolls` of `engine.rulesets.fudge.batch`."""

    def __init__(self, key: int) -> None:
        import numpy as np

        self.np = np
        self.bits = np.random.Philox(key=key)
        self.sums: dict[int, Any] = {}  # n -> the sum of the base-3 digits, less n, of each number below 3^n

    def roll(self, fights: Any, count: int) -> Any:
        np = self.np
        size = 3 ** count
        words = self.bits.random_raw(len(fights)) >> np.uint64(32)
        limit = np.uint64((2 ** 32 // size) * size)  # below it, w mod 3^n is uniform
        bad = np.flatnonzero(words >= limit)
        while len(bad):
            words[bad] = self.bits.random_raw(len(bad)) >> np.uint64(32)
            bad = bad[words[bad] >= limit]
        sums = self.sums.get(count)
        if sums is None:
            digits = np.arange(size)
            sums = np.zeros(size, np.int64) - count
            for _ in range(count):
                sums += digits % 3
                digits //= 3
            self.sums[count] = sums
        return sums[(words % np.uint64(size)).astype(np.intp)]


def kernel(setup: Setup, opening: Opening) -> tuple[Any, Any] | None:
    """(the ruleset's batch module, the duel it plays), or None when the setup is not one it takes."""
    try:
        import numpy  # noqa: F401  (the batch kernels' one dependency: refused in one line without it)
    except ModuleNotFoundError:
        raise InputError(NEEDS_NUMPY) from None
    part = ruleset_part(opening.state.options.ruleset, "batch")
    if part is None:
        return None
    duel = part.plan(setup, opening)
    return (part, duel) if duel is not None else None


def outcomes(part: Any, duel: Any, master: int, n: int) -> Iterator[Any]:
    """Fights 0..n-1 of the run, a chunk's `Outcomes` at a time (at most `CHUNK` fights: memory does not
    grow with n)."""
    for chunk, start in enumerate(range(0, n, CHUNK)):
        yield part.play_many(duel, min(CHUNK, n - start), KeyedDice(chunk_key(master, chunk)))


def play(part: Any, duel: Any, master: int, n: int, tally: Tally,
         progress: Callable[[int], None] | None = None) -> None:
    """Fights 0..n-1 of the run counted into `tally`, chunk by chunk (each dropped once counted)."""
    import numpy as np

    names = part.LEVELS
    for out in outcomes(part, duel, master, n):
        size = len(out.winner)
        tally.fights += size
        winners = np.bincount(out.winner.astype(np.int64) + 1, minlength=3)
        tally.winners.update({who: int(c) for who, c in zip((None, 0, 1), winners) if c})
        tally.rounds.update({int(r): int(c) for r, c in enumerate(np.bincount(out.rounds)) if c})
        for counter, levels in zip(tally.levels, (out.first, out.second)):
            counter.update({names[k]: int(c) for k, c in enumerate(np.bincount(levels.astype(np.int64))) if c})
        if progress:
            progress(size)
