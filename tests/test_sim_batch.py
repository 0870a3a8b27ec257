"""`fudge sim --batch`: the batch kernel (`engine.rulesets.fudge.batch`) against the engine, and its keyed dice.

- Fed the engine's own dice (each fight's HMAC draws from its seed, in the engine's order), the kernel
  plays every fight as the fast path does (`engine.rulesets.fudge.fast.play`) and as the engine does
  (`sim.runner.simulate_one`): same winner, rounds and final wounds, fight for fight, for random
  sheets, options and policies inside what the fast path takes. The fast path is the engine's
  stand-in for thousands of fights: tests/test_sim_fast.py proves it equal to the engine fight for
  fight; a few hundred fights here are compared with the engine itself.
- With its own keyed dice (`sim.vector.KeyedDice`), 10^5 batch fights against 10^5 fights of the
  fast path (the engine's dice): a chi-square test of homogeneity on the outcome as the engine
  reports it (winner and rounds, jointly) and on each fighter's final wound; a kernel with one rule
  left out is rejected by the same test, so the test can tell.
- The dice are re-derived from their documentation (sim/vector.py, docs/sim.md) by a second,
  plain implementation; each roll of 4dF is exactly 4 fair Fudge dice (A-FAIR-1).
- The command: `--json` says `"path": "batch"` and a seed repeats the same bytes; what it cannot
  honour (--keep, --jobs, --engine, a setup beyond the kernel, no numpy) is refused in one line.

Rules restated by the kernel and proven here: F-PACE-2, F-MEL-1, F-MEL-2, F-HIT-1, F-MOD-1, F-MOD-3,
F-MOD-4, F-MOD-6, F-TAC-1, F-TAC-4, F-NPC-1, F-FANCY-2, F-DMG-3, F-DMG-4, F-GRAZE-1, F-GRAZE-2,
F-GRAZE-3, F-DROLL, F-WND-1, F-WND-3, F-WND-5, F-WND-6. A-FAIR-1: the dice.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.engine.rulesets.fate import batch as fate_batch, fast as fate_fast
from fudge_combat.engine.rulesets.fudge import batch, fast
from fudge_combat.sim import vector
from fudge_combat.sim.batch import run_batch
from fudge_combat.sim.runner import Opening, Setup, fight_seed, simulate_one
from fudge_combat.sim.stats import Tally
from tests.fuzzing import fuzz
from tests.processes import fudge
from tests.test_sim_fast import (POLICY, SHEETS, demo, eligible_options, fate_options, fate_sheets, options_of, setup_of,
                                 sheets)


class EngineRolls:
    """The engine's dice for a batch: fight i's draws from its own seed and stream, numbered in the order
    the kernel asks for them (`fast.Dice`, which tests/test_sim_fast.py checks against the engine's)."""

    def __init__(self, seeds: list[bytes]) -> None:
        self.dice = [fast.Dice(seed, fast.stream_of(seed)) for seed in seeds]
        self.next = [0] * len(seeds)

    def roll(self, fights: Any, count: int) -> Any:
        out = []
        for fight in fights.tolist():
            out.append(self.dice[fight].total(self.next[fight], count))
            self.next[fight] += 1
        return np.array(out, np.int64)


def batch_results(duel: Any, seeds: list[bytes], kernel: Any = batch) -> list[tuple[int | None, int, tuple[str, str]]]:
    """The kernel's outcome of each fight, fed each fight's engine dice, as the fast path reports it."""
    out = kernel.play_many(duel, len(seeds), EngineRolls(seeds))
    names = kernel.LEVELS
    return [(None if w < 0 else int(w), int(r), (names[x], names[y]))
            for w, r, x, y in zip(out.winner, out.rounds, out.first, out.second)]


# --- fight for fight, fed the same dice -----------------------------------------------------------------

@fuzz(150)
@given(eligible_options(), st.data(), st.integers(0, 2**40), st.integers(1, 30))
def test_fed_the_engines_dice_the_kernel_plays_the_fast_paths_fights(overrides: dict[str, Any], data: st.DataObject,
                                                                     master: int, max_rounds: int) -> None:
    """Every option, sheet and policy the fast path takes: 60 fights a batch, each fight's outcome the
    fast path's (and so the engine's) from the same dice."""
    try:
        options = options_of(overrides)
    except InputError:
        return
    people = [data.draw(sheets(name, options.plus_levels)) for name in ("Ann", "Bob")]
    setup = setup_of(options, people, [data.draw(POLICY) for _ in people], max_rounds)
    duel = batch.plan(setup, Opening.of(setup))
    if duel is None:
        return  # a sensible fighter with points: neither path takes it (tests/test_sim_fast.py)
    seeds = [fight_seed(master, index) for index in range(60)]
    assert batch_results(duel, seeds) == [duel.play(seed) for seed in seeds]


@pytest.mark.parametrize("policy", ["plain", "reckless"])
def test_fed_the_engines_dice_the_kernel_plays_the_engines_fights(policy: str) -> None:
    """The `fudge` preset's demo duel: 150 fights played by the engine itself and by the kernel."""
    setup = demo("snorri", "brynhild", policy=policy)
    opening = Opening.of(setup)
    duel = batch.plan(setup, opening)
    assert duel is not None
    seeds = [fight_seed(2026, index) for index in range(150)]
    engine = [simulate_one(setup, 2026, index, opening) for index in range(150)]
    assert batch_results(duel, seeds) == [(r.winner, r.rounds, r.levels) for r in engine]


@fuzz(60)
@given(fate_options(), st.data(), st.integers(0, 2**40), st.integers(1, 30))
def test_fed_the_engines_dice_the_fate_kernel_plays_the_fast_paths_fights(overrides: dict[str, Any],
                                                                          data: st.DataObject, master: int,
                                                                          max_rounds: int) -> None:
    """Fate exchanges (FT-PACE, FT-OUT, FT-SIMPLE, FT-TRACK-2, FT-TRACK-3): any boxes, arms, sheets and
    policies the fast path takes, 60 fights a batch, fight for fight."""
    options = options_of(overrides)
    people = [data.draw(fate_sheets(name)) for name in ("Ann", "Bob")]
    setup = setup_of(options, people, [data.draw(POLICY) for _ in people], max_rounds)
    duel = fate_batch.plan(setup, Opening.of(setup))
    if duel is None:
        return
    seeds = [fight_seed(master, index) for index in range(60)]
    assert batch_results(duel, seeds, fate_batch) == [duel.play(seed) for seed in seeds]


def test_fed_the_engines_dice_the_fate_kernel_plays_the_engines_fights() -> None:
    """The `fate` preset's demo duel: 100 fights played by the engine itself and by the kernel."""
    setup = demo("cyrus", "finn", preset="fate")
    opening = Opening.of(setup)
    duel = fate_batch.plan(setup, opening)
    assert duel is not None
    seeds = [fight_seed(2026, index) for index in range(100)]
    engine = [simulate_one(setup, 2026, index, opening) for index in range(100)]
    assert batch_results(duel, seeds, fate_batch) == [(r.winner, r.rounds, r.levels) for r in engine]


# --- equal in distribution, with the batch's own dice ----------------------------------------------------

def chi_square_p(table: list[list[int]]) -> tuple[float, int]:
    """The p-value and degrees of freedom of Pearson's chi-square test of homogeneity of a 2-row table,
    columns with an expected count under 5 pooled into their neighbour (the usual rule)."""
    columns = [list(c) for c in zip(*table)]
    pooled: list[list[int]] = []
    for column in columns:
        if pooled and min(sum(pooled[-1]) * sum(r) / sum(map(sum, table)) for r in table) < 5:
            pooled[-1] = [x + y for x, y in zip(pooled[-1], column)]
        else:
            pooled.append(column)
    while len(pooled) > 1 and min(sum(pooled[-1]) * sum(r) / sum(map(sum, table)) for r in table) < 5:
        last = pooled.pop()
        pooled[-1] = [x + y for x, y in zip(pooled[-1], last)]
    total = sum(map(sum, pooled))
    rows = [sum(c[i] for c in pooled) for i in range(2)]
    statistic = sum((c[i] - rows[i] * sum(c) / total) ** 2 / (rows[i] * sum(c) / total) for c in pooled for i in range(2))
    dof = len(pooled) - 1
    return upper_gamma(dof / 2, statistic / 2), dof


def upper_gamma(a: float, x: float) -> float:
    """Q(a, x), the regularized upper incomplete gamma function (the chi-square survival function at 2x,
    2a degrees of freedom): its series below a + 1, its continued fraction above (Numerical Recipes 6.2)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return 1 - total * math.exp(log_front)
    b, c, d = x + 1 - a, 1 / 1e-300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = b + an / c
        c = c if abs(c) > 1e-300 else 1e-300
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def test_the_chi_square_is_the_textbooks() -> None:
    """Known values of the chi-square survival function (tables), and the pooling of small columns."""
    assert upper_gamma(0.5, 3.841458820694124 / 2) == pytest.approx(0.05, rel=1e-9)  # 1 dof, 95%
    assert upper_gamma(5, 23.209251158954356 / 2) == pytest.approx(0.01, rel=1e-9)  # 10 dof, 99%
    assert upper_gamma(20, 59.7 / 2) == pytest.approx(0.0238, abs=1e-3)  # 40 dof, both sides of a + 1
    p, dof = chi_square_p([[50, 50, 1, 0], [50, 50, 0, 1]])
    assert dof == 1 and p == pytest.approx(1.0)


FIGHTS = 100_000
ALPHA = 0.001  # fixed seeds: the test gives the same p every run; a true difference gives p far below this


def outcomes(results: list[tuple[int, int, int, int]]) -> dict[str, Counter[Any]]:
    """What the engine reports of each fight (winner, rounds, final wounds), counted: the winner and the
    rounds jointly, each fighter's final wound level."""
    return {"winner and rounds": Counter((w, r) for w, r, _, _ in results),
            "final wound 1": Counter(x for _, _, x, _ in results),
            "final wound 2": Counter(y for _, _, _, y in results)}


def fast_outcomes(duel: Any, names: tuple[str, ...] = LEVELS) -> dict[str, Counter[Any]]:
    """The fast path's fights 0..FIGHTS-1 of seed 1 (the engine's dice)."""
    rank = {name: i for i, name in enumerate(names)}
    results = []
    for index in range(FIGHTS):
        winner, rounds, (x, y) = duel.play(fight_seed(1, index))
        results.append((-1 if winner is None else winner, rounds, rank[x], rank[y]))
    return outcomes(results)


def kernel_outcomes(duel: Any, master: int = 1, kernel: Any = batch) -> dict[str, Counter[Any]]:
    """The kernel's fights 0..FIGHTS-1 of this seed, with the batch's keyed dice, chunk by chunk as a run."""
    results: list[tuple[int, int, int, int]] = []
    for out in vector.outcomes(kernel, duel, master, FIGHTS):
        results.extend(zip(out.winner.tolist(), out.rounds.tolist(), out.first.tolist(), out.second.tolist()))
    return outcomes(results)


def p_values(one: dict[str, Counter[Any]], other: dict[str, Counter[Any]]) -> dict[str, tuple[float, int]]:
    out = {}
    for what in one:
        keys = sorted(set(one[what]) | set(other[what]))
        out[what] = chi_square_p([[one[what].get(k, 0) for k in keys], [other[what].get(k, 0) for k in keys]])
    return out


@pytest.fixture(scope="module")
def demo_duel() -> tuple[fast.Duel, dict[str, Counter[Any]]]:
    """The `fudge` preset's demo duel and the fast path's outcomes of its 10^5 fights (a few seconds)."""
    setup = demo("snorri", "brynhild")
    duel = batch.plan(setup, Opening.of(setup))
    assert duel is not None
    return duel, fast_outcomes(duel)


def test_the_batch_is_the_engines_distribution(demo_duel: tuple[fast.Duel, dict[str, Counter[Any]]]) -> None:
    """10^5 fights each way, the `fudge` preset's demo duel: the winner and rounds (jointly) and each
    fighter's final wound are not told apart by a chi-square test (p > 0.001 with many degrees of freedom)."""
    duel, engine = demo_duel
    found = p_values(engine, kernel_outcomes(duel))
    assert found["winner and rounds"][1] >= 20  # the joint table has its many cells, not a pooled few
    assert all(p > ALPHA for p, _ in found.values()), found


def test_the_test_tells_a_rule_left_out(demo_duel: tuple[fast.Duel, dict[str, Counter[Any]]]) -> None:
    """The same test on a kernel that forgets the wound penalties (F-MOD-1): it is told apart."""
    duel, engine = demo_duel
    painless = replace(duel, first=replace(duel.first, penalties=(0,) * len(duel.first.penalties)),
                       second=replace(duel.second, penalties=(0,) * len(duel.second.penalties)))
    found = p_values(engine, kernel_outcomes(painless))
    assert min(p for p, _ in found.values()) < ALPHA, found


@pytest.mark.parametrize("policy", ["reckless"])
def test_other_policies_are_the_engines_distribution(policy: str) -> None:
    """All-out offense every round (F-MOD-6), 10^5 fights each way."""
    setup = demo("snorri", "brynhild", policy=policy)
    duel = batch.plan(setup, Opening.of(setup))
    assert duel is not None
    found = p_values(fast_outcomes(duel), kernel_outcomes(duel, master=2))
    assert all(p > ALPHA for p, _ in found.values()), found


def test_the_fate_batch_is_the_engines_distribution() -> None:
    """The `fate` preset's demo duel, 10^5 fights each way: winner and exchanges jointly, each worst box."""
    setup = demo("cyrus", "finn", preset="fate")
    duel = fate_batch.plan(setup, Opening.of(setup))
    assert duel is not None
    found = p_values(fast_outcomes(duel, fate_fast.LEVELS), kernel_outcomes(duel, 3, fate_batch))
    assert found["winner and rounds"][1] >= 20
    assert all(p > ALPHA for p, _ in found.values()), found


# --- the keyed dice, from their documentation ------------------------------------------------------------

def documented_rolls(master: int, chunk: int, counts: list[int]) -> list[int]:
    """The rolls of a chunk as sim/vector.py's docstring derives them, one at a time in plain Python."""
    key = int.from_bytes(hmac.new(str(master).encode(), f"fudge-sim-batch:v1:{chunk}".encode(),
                                  hashlib.sha256).digest()[:16], "little")
    bits = np.random.Philox(key=key)
    out = []
    for n in counts:
        while True:
            word = int(bits.random_raw()) >> 32
            if word < 3 ** n * (2 ** 32 // 3 ** n):
                break
        value = word % 3 ** n
        out.append(sum((value // 3 ** i) % 3 - 1 for i in range(n)))
    return out


def test_the_keyed_dice_are_as_documented() -> None:
    """A run's dice re-derived from the documented recipe alone: the same rolls, 4dF and 1dF, in the order
    asked for, in two chunks of two seeds."""
    for master, chunk in ((7, 0), (-3, 12)):
        dice = vector.KeyedDice(vector.chunk_key(master, chunk))
        asked = [(5, 4), (3, 4), (4, 1), (7, 4), (1, 1)]
        got = [int(v) for size, count in asked for v in dice.roll(np.arange(size), count)]
        assert got == documented_rolls(master, chunk, [count for size, count in asked for _ in range(size)])


def words(*hexes: str) -> int:
    """Random123's 64-bit words, first word first, as numpy's one integer (the first word lowest)."""
    return sum(int(word, 16) << (64 * i) for i, word in enumerate(hexes))


# Random123's known answers for philox4x64 with 10 rounds (its kat_vectors): counter, key, the block
KNOWN = [
    (("0000000000000000",) * 4, ("0000000000000000",) * 2,
     ("16554d9eca36314c", "db20fe9d672d0fdc", "d7e772cee186176b", "7e68b68aec7ba23b")),
    (("ffffffffffffffff",) * 4, ("ffffffffffffffff",) * 2,
     ("87b092c3013fe90b", "438c3c67be8d0224", "9cc7d7c69cd777b6", "a09caebf594f0ba0")),
    (("243f6a8885a308d3", "13198a2e03707344", "a4093822299f31d0", "082efa98ec4e6c89"),
     ("452821e638d01377", "be5466cf34e90c6c"),
     ("a528f45403e61d95", "38c72dbd566e9788", "a5a1610e72fd18b5", "57bd43b5e52b7fe6")),
]


@pytest.mark.parametrize("counter, key, block", KNOWN)
def test_the_generator_is_random123s_philox(counter: tuple[str, ...], key: tuple[str, ...],
                                            block: tuple[str, ...]) -> None:
    """numpy's Philox is Random123's Philox4x64-10 (its published known answers), and it adds one to its
    counter before each block: the generator docs/sim.md names, whatever numpy's version."""
    bits = np.random.Philox(key=words(*key), counter=(words(*counter) - 1) % 2 ** 256)
    assert [f"{int(w):016x}" for w in bits.random_raw(4)] == list(block)


def test_a_rejected_word_is_replaced_by_the_next() -> None:
    """A word at or above 81 * floor(2^32 / 81) would make some sums likelier: it is drawn again (it comes
    about once in 50 million rolls, so the generator is fed such a word here)."""
    dice = vector.KeyedDice(1)
    limit = 81 * (2 ** 32 // 81)
    words = iter([np.array([limit << 32, 80 << 32], np.uint64), np.array([(limit + 5) << 32], np.uint64),
                  np.array([40 << 32], np.uint64)])

    class Feed:
        def random_raw(self, size: int) -> Any:
            out = next(words)
            assert len(out) == size
            return out

    dice.bits = Feed()
    assert dice.roll(np.arange(2), 4).tolist() == [0, 4]  # 40 = 1111 in base 3: four blanks; 80 = 2222: four +


def test_a_roll_is_four_fair_fudge_dice() -> None:
    """A-FAIR-1: the 81 equally likely words of a 4dF roll give each sum as often as four fair dice do."""
    dice = vector.KeyedDice(0)
    dice.roll(np.arange(1), 4)
    assert Counter(dice.sums[4].tolist()) == {-4: 1, -3: 4, -2: 10, -1: 16, 0: 19, 1: 16, 2: 10, 3: 4, 4: 1}
    assert dice.roll(np.arange(3000), 1).min() == -1 and sorted(set(dice.roll(np.arange(3000), 1).tolist())) == [-1, 0, 1]


# --- runs ------------------------------------------------------------------------------------------------

def test_a_run_is_chunked_and_reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fights go to the kernel at most CHUNK at a time (memory does not grow with -n); a seed gives the
    same statistics again, another seed others."""
    setup = demo("snorri", "brynhild")
    sizes: list[int] = []
    play_many = batch.play_many

    def counted(duel: Any, fights: int, dice: Any) -> Any:
        sizes.append(fights)
        return play_many(duel, fights, dice)
    monkeypatch.setattr(batch, "play_many", counted)
    monkeypatch.setattr(vector, "CHUNK", 1000)
    first = run_batch(setup, 5, 2500, vectorised=True)
    assert sizes == [1000, 1000, 500]
    assert first.summary.fights == 2500 and sum(first.summary.rounds.values()) == 2500
    assert run_batch(setup, 5, 2500, vectorised=True) == first
    assert run_batch(setup, 6, 2500, vectorised=True).summary != first.summary


def test_a_setup_beyond_the_kernel_is_refused() -> None:
    with pytest.raises(InputError, match="without --batch"):
        run_batch(demo("leroy", "brynhild", preset="fudge-phases"), 1, 10, vectorised=True)
    with pytest.raises(InputError, match="-n must be"):
        run_batch(demo("snorri", "brynhild"), 1, 0, vectorised=True)


def sim_args(*extra: str) -> list[str]:
    return ["sim", str(SHEETS / "snorri.toml"), str(SHEETS / "brynhild.toml"), *extra]


def test_cli_batch_json_says_its_path_and_repeats(tmp_path: Path) -> None:
    """`fudge sim --batch --json`: the path that ran, the fights asked for, the same bytes for the same seed."""
    args = sim_args("-n", "70000", "--seed", "11", "--batch", "--json")
    once = fudge(*args, store=tmp_path / "fudge.db")
    again = fudge(*args, store=tmp_path / "fudge.db")
    assert once.returncode == again.returncode == 0, once.stderr + again.stderr
    assert once.stdout == again.stdout
    data = json.loads(once.stdout)
    assert data["path"] == "batch" and data["fights"] == 70000 and data["kept"] == []
    assert sum(side["count"] for side in data["sides"].values()) + data["draws"]["count"] == 70000
    plain = json.loads(fudge(*sim_args("-n", "300", "--seed", "11", "--json"), store=tmp_path / "fudge.db").stdout)
    assert plain["path"] == "fast"  # without --batch: the fast path, with the engine's dice, as before
    fate = fudge("sim", str(SHEETS / "cyrus.toml"), str(SHEETS / "finn.toml"), "-r", "fate", "--side", "a", "--side",
                 "b", "-n", "2000", "--seed", "3", "--batch", "--json", store=tmp_path / "fudge.db")
    assert fate.returncode == 0, fate.stderr
    data = json.loads(fate.stdout)
    assert data["path"] == "batch" and data["fights"] == 2000 and set(data["sides"]) == {"a", "b"}


@pytest.mark.parametrize("extra, cause", [
    (["--keep", "2"], "--keep replays fights with the engine's dice"),
    (["--jobs", "2"], "drop --jobs"),
    (["--engine"], "--batch plays the fights without the engine"),
    (["-n", "0"], "-n must be from 1 to"),
    (["--policy", "sensible"], "run this setup without --batch"),  # Snorri has points to spend
])
def test_cli_batch_refuses_what_it_cannot_honour(tmp_path: Path, extra: list[str], cause: str) -> None:
    done = fudge(*sim_args("-n", "100", "--batch", *extra), store=tmp_path / "fudge.db")
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and cause in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == "" and not (tmp_path / "fudge.db").exists()


def test_cli_batch_refuses_the_plain_switch(tmp_path: Path) -> None:
    """FUDGE_PLAIN=1 turns every fast path off for a differential run: --batch has no plain equivalent."""
    done = fudge(*sim_args("-n", "100", "--batch"), store=tmp_path / "fudge.db", env={"FUDGE_PLAIN": "1"})
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "FUDGE_PLAIN" in done.stderr, done.stderr


def test_cli_batch_without_numpy_says_how_to_install_it(tmp_path: Path) -> None:
    """numpy is an extra: without it `--batch` says in one line how to get it (exit 1, not 70), and a run
    without --batch still works."""
    hidden = tmp_path / "hidden"
    (hidden / "numpy").mkdir(parents=True)
    (hidden / "numpy" / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')\n")
    env = {"PYTHONPATH": str(hidden)}
    done = fudge(*sim_args("-n", "100", "--batch"), store=tmp_path / "fudge.db", env=env)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "pip install" in done.stderr and "batch" in done.stderr
    assert fudge(*sim_args("-n", "100"), store=tmp_path / "fudge.db", env=env).returncode == 0
