"""The fast paths change nothing but speed (projections.speed): the same commands, run as a GM runs them
with and without `FUDGE_PLAIN=1`, print the same bytes.

With the switch, a fight read without a snapshot is replayed by the plain path (pydantic's records folded
by `engine.evolve`) instead of the fast fold (projections.fast), and `fudge sim` plays every duel through
the engine instead of the fast paths (engine.rulesets.fudge.fast and fast_phases, engine.rulesets.fate.fast,
engine.rulesets.atari_isev.fast). A-REPLAY-1: the state is the one its log folds to.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from itertools import chain
from pathlib import Path

import pytest

from fudge_combat.engine.kernel.history import voided_by
from fudge_combat.events import structs as ev
from fudge_combat.events.records import load
from fudge_combat.projections import fast
from fudge_combat.projections.rebuild import plain_rebuild
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.processes import fudge

SHEETS = Path(__file__).resolve().parents[1] / "examples" / "sheets"
DEMOS = ("fudge", "fudge-phases", "atari-isev", "fate")
PLAIN = {"FUDGE_PLAIN": "1"}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding every demo's fight (each ruleset and pace, undo and branch among them)."""
    folder = tmp_path_factory.mktemp("table")
    for demo in DEMOS:
        done = fudge("demo", demo, "--name", demo, store=folder / "fudge.db")
        assert done.returncode == 0, done.stderr
    return folder / "fudge.db"


def without_caches(db: Path, folder: Path) -> Path:
    """A copy of the store with no snapshot and no stored view: the next command replays from scratch."""
    shutil.copytree(db.parent, folder)
    copy = folder / db.name
    with sqlite3.connect(copy) as con:
        con.execute("DELETE FROM snapshots")
        con.execute("DELETE FROM views")
    return copy


def both_ways(db: Path, tmp_path: Path, *args: str) -> tuple[str, str]:
    """`fudge ARGS` on two copies of the store, by the fast paths and by the plain ones: (stdout, stderr) each."""
    fast_run = fudge(*args, store=without_caches(db, tmp_path / "fast"))
    plain_run = fudge(*args, store=without_caches(db, tmp_path / "plain"), env=PLAIN)
    assert fast_run.returncode == plain_run.returncode == 0, (fast_run.stderr, plain_run.stderr)
    assert fast_run.stdout == plain_run.stdout
    assert fast_run.stderr == plain_run.stderr
    return fast_run.stdout, fast_run.stderr


@pytest.mark.parametrize("args", [
    ("status", "--fight", "fudge"), ("status", "--fight", "fate", "--json"), ("status", "--fight", "atari-isev"),
    ("status", "--fight", "fudge-phases", "--long"), ("log", "fudge-what-if"), ("verify", "atari-isev"),
    ("replay", "fate"),
])
def test_a_command_reading_a_fight_prints_the_same_bytes_with_the_plain_paths(
        table: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    out, _ = both_ways(table, tmp_path, *args)
    assert out.strip()


def test_a_command_that_writes_then_its_log_are_the_same_with_the_plain_paths(table: Path, tmp_path: Path) -> None:
    """A command decided on the replayed state, appended, then the fight's log: the same bytes both ways."""
    both_ways(table, tmp_path / "round", "round", "--fight", "fudge")
    outs = []
    for name, env in (("fast", {}), ("plain", PLAIN)):
        db = without_caches(table, tmp_path / name)
        for step in (("round", "--fight", "fudge"),
                     ("exchange", "Snorri", "Brynhild", "--fight", "fudge", "-d", "Snorri=+ + 0 0",
                      "-d", "Brynhild=- 0 0 0")):
            done = fudge(*step, store=db, env=env)
            assert done.returncode == 0, done.stderr
            outs.append(done.stdout)
        with sqlite3.connect(db) as con:
            con.execute("DELETE FROM snapshots")
        outs.append(fudge("status", "--fight", "fudge", "--long", store=db, env=env).stdout)
        # each command's id is random, and the hash chain holds it: the log's column of command ids and the
        # status's receipt (the last hash) are left out
        outs[-1] = re.sub(r"(?m)^receipt \d+:[0-9a-f]+$", "receipt", outs[-1])
        outs.append(re.sub(r"(?m)^(\s*\d+) [0-9a-f]{8} ", r"\1 ", fudge("log", "fudge", store=db, env=env).stdout))
    assert outs[:4] == outs[4:]
    assert "Brynhild" in outs[1]


@pytest.mark.parametrize("preset, sheets", [("fudge", ("snorri", "brynhild")), ("fate", ("cyrus", "finn")),
                                             ("fudge-phases", ("leroy", "brynhild")), ("atari-isev", ("max", "cutthroat"))])
def test_fudge_sim_json_is_the_same_bytes_with_the_plain_paths(tmp_path: Path, preset: str,
                                                                 sheets: tuple[str, str]) -> None:
    """The presets a fast path plays: the engine's fights give the same statistics, byte for byte; only
    `path` differs, and says which played."""
    args = ("sim", *(str(SHEETS / f"{name}.toml") for name in sheets), "--side", "a", "--side", "b", "--rules", preset, "-n", "60",
            "--seed", "11", "--jobs", "1", "--json")
    fast_run = fudge(*args, store=tmp_path / "fast.db")
    plain_run = fudge(*args, store=tmp_path / "plain.db", env=PLAIN)
    assert fast_run.returncode == plain_run.returncode == 0, (fast_run.stderr, plain_run.stderr)
    assert '"path": "fast"' in fast_run.stdout and '"path": "engine"' in plain_run.stdout
    assert fast_run.stdout.replace('"path": "fast"', '"path": "engine"') == plain_run.stdout
    assert '"fights": 60' in fast_run.stdout


def test_the_switch_is_read_by_the_process_and_changes_the_path(tmp_path: Path) -> None:
    """FUDGE_PLAIN=1 chooses the plain replay (and the engine for the sim); without it, the fast ones."""
    code = ("from fudge_combat.projections import rebuild; from fudge_combat.cli import sim; "
            "print(rebuild.PLAIN, sim.PLAIN)")
    environment = {k: v for k, v in os.environ.items() if k != "FUDGE_PLAIN"}
    for value, expected in ((None, "False False"), ("1", "True True"), ("0", "False False")):
        env = environment if value is None else {**environment, "FUDGE_PLAIN": value}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        assert done.stdout.strip() == expected, value


def test_both_replays_of_a_stored_fight_fold_the_same_state(table: Path) -> None:
    """In process, on every demo's log (voided events among them): the plain replay and the fast one."""
    store = SqliteStore(table)
    fights = Fights(store)
    try:
        for name in (*DEMOS, "fudge-what-if"):
            last = store.last_seq(name)
            rows = list(chain.from_iterable(fights.reads.pages(name, last)))
            voiding = [record for record in map(load, (body for _, body in rows)) if isinstance(record.event, ev.VOIDING)]
            gone = voided_by(voiding, lambda command: store.command_seqs(name, command, last))
            assert gone or name != "fudge"  # the fudge demo undoes a command

            def read(seq: int) -> object:
                return load(dict(rows)[seq]).event

            assert plain_rebuild(rows, gone, read) == fast.rebuild(rows, gone, read), name
    finally:
        store.close()
