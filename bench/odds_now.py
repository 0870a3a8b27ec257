"""What the odds before the dice cost: `engine.odds.now` on a fight as it stands, per preset.

    .venv/bin/python bench/odds_now.py [--runs 5]

Each row: Snorri and Brynhild (examples/sheets) joined, a round begun where the preset has rounds, and
the next action of the first to act weighed (`odds_now`): the median wall time of `--runs` runs, the
rolls of the action weighed (runs of `decide`), and the time per roll. `fudge next` offers the lines
while all foes together stay within `OFFER_BUDGET` rolls; the last column is what that budget costs
at this row's rate.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fudge_combat.events.records import json_form  # noqa: E402
from fudge_combat.engine import commands as cmd  # noqa: E402
from fudge_combat.engine.decide import decide  # noqa: E402
from fudge_combat.engine.odds.duel import ScriptedDice, apply, setup  # noqa: E402
from fudge_combat.engine.odds.now import OFFER_BUDGET, current_actor, odds_now  # noqa: E402
from fudge_combat.engine.kernel.presets import resolve  # noqa: E402
from fudge_combat.engine.kernel.sheets import parse_sheet  # noqa: E402

ROWS = [("fudge", None), ("fudge", 'extends = "fudge"\ndamage_roll = "4dF_limited"\n'),
        ("fudge", 'extends = "fudge"\ndamage_system = "min_mid_max"\n'), ("fudge-phases", None),
        ("atari-isev", None), ("fate", None)]
SHEETS = {"fudge": ("snorri", "brynhild"), "fudge-phases": ("snorri", "brynhild"),
          "atari-isev": ("dwarzuga", "sylthaen"), "fate": ("cyrus", "finn")}


def fight(preset: str, house: str | None) -> tuple[Any, str, str]:
    label, options = resolve(preset, house)
    paths = [ROOT / "examples" / "sheets" / f"{n}.toml" for n in SHEETS[preset]]
    state, names = setup(label, options, [(json_form(parse_sheet(p.read_text(), p.name)), p.name)
                                          for p in paths])
    if options.initiative != "none":
        faces = {"phases-crunch": ((1,) * 4, (-1,) * 5)}.get(options.initiative, ((1, 1, 1, 1), (-1, -1, -1, -1)))
        state = apply(state, decide(state, cmd.StartRound(), ScriptedDice(faces + ((0, 0, 0, 0),) * 8)))
        state = apply(state, decide(state, cmd.NextTurn(), ScriptedDice(())))
    actor = current_actor(state)
    first = actor.name if actor else names[0]
    return state, first, next(n for n in names if n != first)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print(f"| rules | rolls weighed | median | per roll | {OFFER_BUDGET} rolls |")
    print("|---|---:|---:|---:|---:|")
    for preset, house in ROWS:
        state, attacker, target = fight(preset, house)
        times, found = [], None
        for _ in range(runs):
            start = time.perf_counter()
            found = odds_now(state, attacker, target)
            times.append(time.perf_counter() - start)
        assert found is not None
        median = statistics.median(times)
        label = preset + (f" ({house.splitlines()[1]})" if house else "")
        print(f"| {label} | {found.runs} | {median * 1000:.1f} ms | {median / found.runs * 1e6:.0f} µs "
              f"| {median / found.runs * OFFER_BUDGET * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
