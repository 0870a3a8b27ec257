"""`fudge play`: the time from a command line to the redrawn board, beside the one-shot commands.

    python bench/play.py [--events 1000 10000] [--runs 15]

For each size N, builds a `fudge` fight of about N events (bench/replay.py's `build`: exchanges,
trait rolls, declarations, fudge-point spends, undos, new rounds, fighters joining as others
fall), copies its store once per way of running a command (each writes only its own copy, so
each keeps what a GM's session would keep), then times in turns, median of `--runs`:

- `play`, in process: `Session.run(line)` and `Session.after()` of cli.play, output into a buffer:
  what the GM waits for between Enter and the board, less the terminal's drawing;
- `play` on a pty: the line typed into `fudge play` on a pseudo-terminal (pexpect), from Enter
  until the board and the next prompt have arrived: what the GM sees;
- `play`, in process, when another connection wrote the fight just before (another `fudge` at
  the same table): the session's cached state is stale; the new events are folded onto it
  (service.fights `_caught_up`), and, side by side, the code before that fold: the fight read
  again (its snapshot and the events after it);
- one-shot `fudge attack` as a fresh process, and `fudge attack` then `fudge status` (the board).

The line is an attack that always misses (the attacker rolls ----, the defender ++++), so the
fight is the same fight for every run; each run checks that it appended its events.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FOLDER = Path(tempfile.mkdtemp(prefix="fudge-bench-play-"))
# This user's key, secrets and history are the bench's own (set before the project is imported).
os.environ.update({"FUDGE_KEY_FILE": str(FOLDER / "snapshot.key"), "FUDGE_SECRETS_FILE": str(FOLDER / "secrets.db"),
                   "XDG_STATE_HOME": str(FOLDER / "state"), "NO_COLOR": "1"})
os.environ.pop("FUDGE_STORE", None)
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import re  # noqa: E402

import pexpect  # noqa: E402
import structlog  # noqa: E402

from fudge_combat.cli import context, play  # noqa: E402
from fudge_combat.engine import commands as cmd  # noqa: E402
from fudge_combat.engine.kernel.dice import parse_faces  # noqa: E402
from replay import PACKAGES, build  # noqa: E402
from fudge_combat.service.fights import DiceInput, Fights  # noqa: E402
from fudge_combat.store.sqlite import SqliteStore  # noqa: E402

FIGHT = "short"
BOARD = rf"{FIGHT} \(.*\) · round \d+"  # the board's header: the fight, its rules, the round
PROMPT = rf"{FIGHT}[^>\n]*>"  # play's prompt ("short>", or with a first-use hint: "short, F2 to fight>")


def fighters(path: Path) -> tuple[str, str]:
    """Two fighters still able to fight, on different sides."""
    store = SqliteStore(path)
    state = Fights(store).state(FIGHT)
    store.close()
    able = [c for c in state.combatants.values() if c.track.can_act]
    first = able[0]
    return first.name, next(c.name for c in able[1:] if c.side != first.side)


def last_seq(path: Path) -> int:
    store = SqliteStore(path)
    try:
        return store.last_seq(FIGHT)
    finally:
        store.close()


class InProcess:
    """A `fudge play` session in this process; `stale`: another connection writes before each line."""

    def __init__(self, path: Path, line: str, pair: tuple[str, str], stale: bool = False,
                 reread: bool = False) -> None:
        context.settings.store_path = path
        self.session = play.Session()
        if reread:  # the service before it folded other writers' events onto its state: it reads the fight again
            self.session.fights._caught_up = lambda *args: None  # type: ignore[method-assign]
        self.session.fights.use(FIGHT)
        self.line, self.pair = line, pair
        self.other = Fights(SqliteStore(path)) if stale else None
        self.out = io.StringIO()
        with contextlib.redirect_stdout(self.out):
            self.session.board(force=True)

    def run(self) -> float:
        if self.other is not None:  # another `fudge` at the table appends first (the same sure miss)
            a, b = self.pair
            given = DiceInput(by_roller={a.lower(): [parse_faces("----")], b.lower(): [parse_faces("++++")]})
            self.other.execute(FIGHT, cmd.Attack(attacker=a, target=b), given)
        before = self.session.fights.store.last_seq(FIGHT)
        self.out.seek(0)
        self.out.truncate()
        with contextlib.redirect_stdout(self.out):
            started = time.perf_counter()
            code = self.session.run(self.line)
            self.session.after()  # the board, as the session's loop draws it
            took = time.perf_counter() - started
        if code or self.session.fights.store.last_seq(FIGHT) <= before or not re.search(BOARD, self.out.getvalue()):
            sys.exit(f"error: `{self.line}` in play did not append and redraw:\n{self.out.getvalue()[-500:]}")
        return took

    def close(self) -> None:
        self.session.close()
        if self.other is not None:
            self.other.store.close()


class Pty:
    """`fudge play` on a pseudo-terminal, typed into as a GM types."""

    def __init__(self, path: Path, line: str, env: dict[str, str]) -> None:
        self.path, self.line = path, line
        self.child = pexpect.spawn(sys.executable, ["-m", "fudge_combat.cli.main", "--store", str(path), "play", FIGHT],
                                   env={**env, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}, cwd=str(FOLDER),
                                   encoding="utf-8", timeout=30, dimensions=(50, 250))
        self.child.delaybeforesend = None  # pexpect sleeps 50 ms before each send by default
        self.child.expect(PROMPT)

    def run(self) -> float:
        before = last_seq(self.path)
        self.child.send(self.line)
        self.child.expect_exact(self.line[-12:])  # the line is on the screen: now the GM presses Enter
        started = time.perf_counter()
        self.child.send("\r")
        self.child.expect(BOARD)  # the board's header
        self.child.expect(PROMPT)  # and the prompt under it
        took = time.perf_counter() - started
        if last_seq(self.path) <= before:
            sys.exit(f"error: `{self.line}` on the pty appended nothing:\n{self.child.before[-500:]}")
        return took

    def close(self) -> None:
        self.child.sendeof()
        self.child.expect(pexpect.EOF)
        self.child.close()


def one_shot(argv: list[str], env: dict[str, str]) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=FOLDER, env=env)
        took = time.perf_counter() - started
        if done.returncode:
            sys.exit(f"error: `{' '.join(argv)}` exited {done.returncode}:\n{done.stderr.strip()}")
        return took
    return run


def measure(events: int, runs: int, env: dict[str, str]) -> tuple[int, dict[str, float]]:
    """Median seconds of each way, run in turns on its own copy of one fight of about `events` events."""
    built = FOLDER / f"built-{events}.db"
    count, _, _ = build(built, FIGHT, events)
    a, b = fighters(built)
    words = f"attack {a} {b} --dice {a}=---- --dice {b}=++++"
    copies = {}
    for way in ("play", "pty", "stale", "reread", "attack", "board"):
        copies[way] = FOLDER / f"{way}-{events}.db"
        shutil.copyfile(built, copies[way])
    fudge = [sys.executable, "-m", "fudge_combat.cli.main", "--store"]
    attack = [*words.split()[:3], "--fight", FIGHT, "--dice", f"{a}=----", "--dice", f"{b}=++++"]
    sessions: dict[str, Any] = {"play": InProcess(copies["play"], words, (a, b)),
                                "pty": Pty(copies["pty"], words, env),
                                "stale": InProcess(copies["stale"], words, (a, b), stale=True),
                                "reread": InProcess(copies["reread"], words, (a, b), stale=True, reread=True)}
    attack_once = one_shot([*fudge, str(copies["attack"]), *attack], env)
    attack_board = one_shot([*fudge, str(copies["board"]), *attack], env)
    status = one_shot([*fudge, str(copies["board"]), "status", "--fight", FIGHT], env)
    ways: dict[str, Callable[[], float]] = {
        "play": sessions["play"].run, "pty": sessions["pty"].run, "stale": sessions["stale"].run,
        "reread": sessions["reread"].run,
        "attack": attack_once, "board": lambda: attack_board() + status()}
    for run in ways.values():  # warm-up: the OS caches, each session's commands built
        run()
    samples: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(runs):
        for way, run in ways.items():
            samples[way].append(run())
    for session in sessions.values():
        session.close()
    return count, {way: statistics.median(values) for way, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[1_000, 10_000], help="sizes of the fights")
    parser.add_argument("--runs", type=int, default=15, help="runs of each way, in turns")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    # As bench/replay.py: the sources byte-compiled, so that a fresh process does not compile them.
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(ROOT / p) for p in PACKAGES)],
                   check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    try:
        results = [measure(events, args.runs, env) for events in args.events]
    finally:
        shutil.rmtree(FOLDER, ignore_errors=True)
    targets = {1_000: 50, 10_000: 100}
    rows = [("measure", *(f"{count:,} events" for count, _ in results), "target")]
    labels = {"play": "`fudge play`, in process: line to board",
              "pty": "`fudge play` on a pty: Enter to board and next prompt",
              "stale": "`fudge play`, in process, another process wrote the fight just before",
              "reread": "the same, the fight read again (the service before it caught up)",
              "attack": "one-shot `fudge attack` (a fresh process)",
              "board": "one-shot `fudge attack`, then `fudge status` (the board)"}
    for way, label in labels.items():
        target = " / ".join(f"{targets[e]} ms" for e in args.events if e in targets) if way == "pty" else ""
        rows.append((label, *(f"{times[way] * 1000:.0f} ms" for _, times in results), target))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; median of {args.runs} runs, in turns")
    print(markdown(rows))


def markdown(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        cells = [f" {cell:<{widths[i]}} " if i in (0, len(row) - 1) else f" {cell:>{widths[i]}} "
                 for i, cell in enumerate(row)]
        lines.append("|" + "|".join(cells) + "|")
        if index == 0:
            lines.append("|" + "|".join("-" * (w + 2) if i in (0, len(row) - 1) else "-" * (w + 1) + ":"
                                        for i, w in enumerate(widths)) + "|")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
