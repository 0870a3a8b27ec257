"""A one-shot write command on rosters of 2 to 800 fighters: `fudge exchange` and `fudge roll` as fresh
processes, their CPU time beside `python -c "import pydantic, typer"` (issue 23's yardstick).

    python bench/roster.py [--sizes 2 8 80 800] [--events 1000] [--runs 11]

For each size a `fudge` fight is written in this process through the service: that many sturdy fighters
join, then pairs of them in turn trade exchanges (a round started every few; one who cannot act any more
rolls Perception, or a round starts) until the log holds `--events` events (800 joins make more); F0 and
F1, whom the measured commands name, trade no blow (two fighters alone roll and start rounds). One `fudge roll` leaves the store as a command leaves it (its snapshot and
read model); every measured run starts from a copy of that store, so each does the same work: an exchange
of F1 and F0 (opposite sides, typed dice), or a Perception roll of F1. The figure is the child's CPU time (user + system, `os.wait4`), the
commands and the yardstick in turns, the order reversed every run, after one warm-up of each; the table
gives the median and the least, each command over the yardstick, and each size over the 8-fighter one.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from oneshot import HERE, PROJECT, copy_store, cpu_of, env_for

BUILD = """import sys
from pathlib import Path
import structlog, logging
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore

path, size, events = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = SqliteStore(path)
store.db.execute("PRAGMA synchronous=OFF")
fights = Fights(store, views=False)
label, options = resolve("fudge", 'extends = "fudge"\\ndamage_roll = "4dF_limited"\\n')
fights.new("roster", label, json_form(options))
for number in range(size):
    fights.execute("roster", cmd.Join(sheet={
        "name": f"F{number}", "kind": "pc", "side": "a" if number % 2 else "b", "fudge_points": 3,
        "attributes": {"Strength": "Good", "Damage Capacity": "Superb", "Perception": "Fair"},
        "skills": {"Sword": ["Fair", "Good", "Great"][number % 3]},
        "combat": {"attack": "Sword", "defend": "Sword"},
        "weapon": {"name": "sword", "damage": 1}, "armor": {"name": "plate", "protection": 4}}, source="bench"))
from fudge_combat.engine.kernel.errors import RuleError
step = 0
pairs = max(1, size // 2 - 1)  # F0 and F1, whom the measured commands name, trade no blow while it is written
while store.last_seq("roster") < events:  # pairs in turn; one who cannot act any more rolls no more
    step += 1
    first, second = (f"F{2 + 2 * (step % pairs)}", f"F{3 + 2 * (step % pairs)}") if size >= 4 else ("F0", "F1")
    if size < 4 and step % 5:  # two fighters: their rolls and rounds fill the log, no blow
        first, second = "F0", "F0"
    for command in (cmd.StartRound() if step % 5 == 0 else cmd.Exchange(first=first, second=second),
                    cmd.RollTrait(combatant=first, trait="Perception", difficulty=1), cmd.StartRound()):
        try:
            fights.execute("roster", command)
            break
        except RuleError:
            continue
print(store.last_seq("roster"), "F1", "F0")
store.close()
"""


class Roster:
    """One size's fight, ready for runs that each start from the same store."""

    def __init__(self, size: int, events: int, folder: Path, python: str) -> None:
        self.size, self.folder = size, folder / f"roster{size}"
        self.folder.mkdir()
        self.env = env_for(self.folder)
        self.db, self.template = self.folder / "fudge.db", self.folder / "template.db"
        built = subprocess.run([python, "-c", BUILD, str(self.db), str(size), str(events)], cwd=HERE,
                               env=self.env, capture_output=True, text=True, check=True)
        count, a, b = built.stdout.split()[-3:]
        self.events = int(count)
        base = [python, "-m", "fudge_combat.cli.main", "--store", str(self.db)]
        self.argv = {"exchange": [*base, "exchange", a, b, "--dice", f"{a}=----", "--dice", f"{b}=++++"],
                     "roll": [*base, "roll", a, "Perception", "--dice", "+ 0 - 0"]}
        cpu_of(self.argv["roll"], self.env, HERE)  # the state a command leaves: what the next one finds
        copy_store(self.db, self.template)

    def run(self, command: str) -> float:
        copy_store(self.template, self.db)
        return cpu_of(self.argv[command], self.env, HERE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 8, 80, 800])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    python = sys.executable
    subprocess.run([python, "-m", "compileall", "-q", *(p for p in PROJECT if (HERE / p).is_dir())],
                   cwd=HERE, check=True, capture_output=True)
    folder = Path(tempfile.mkdtemp(prefix="fudge-roster-"))
    try:
        rosters = [Roster(size, args.events, folder, python) for size in args.sizes]
        yardstick = [python, "-c", "import pydantic, typer"]
        jobs = [(f"`fudge {command}`, {r.size} fighters ({r.events:,} events)", r, command)
                for r in rosters for command in ("exchange", "roll")]
        times: dict[str, list[float]] = {label: [] for label, _, _ in jobs}
        times["yardstick"] = []
        for index in range(args.runs + 1):
            order = jobs if index % 2 else jobs[::-1]
            for label, roster, command in order:
                spent = roster.run(command)
                if index:
                    times[label].append(spent)
            spent = cpu_of(yardstick, rosters[0].env, HERE)
            if index:
                times["yardstick"].append(spent)
        floor = statistics.median(times["yardstick"])
        eight = {command: statistics.median(times[label]) for label, roster, command in jobs if roster.size == 8}
        print(f"CPU time of each child, {args.runs} runs in turns (median, least); "
              f"`python -c \"import pydantic, typer\"` {floor * 1e3:.0f} ms\n")
        print("| command | median | least | / yardstick | / 8 fighters |")
        print("|---|---:|---:|---:|---:|")
        for label, roster, command in jobs:
            median = statistics.median(times[label])
            grown = f"{median / eight[command]:.2f}x" if command in eight else ""
            print(f"| {label} | {median * 1e3:.0f} ms | {min(times[label]) * 1e3:.0f} ms | "
                  f"{median / floor:.2f}x | {grown} |")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
