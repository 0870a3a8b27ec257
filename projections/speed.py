"""The one switch of fudge's fast paths: `FUDGE_PLAIN=1` in the environment runs the plain path everywhere.

A fast path restates, for speed, what the plain path does with the core's one definition of the rules;
each sits behind the plain path's interface and must give the same result. The switch is for a
differential run: the same commands with and without it must print the same bytes
(tests/test_plain.py). Where the fast paths are, and what checks each against the plain path:

- `projections.fast`: a replay from scratch (`projections.rebuild.rebuild`) that folds the derived
  decoder's structs, with handlers of its own for the commonest events. Plain: every body validated by
  pydantic and folded by `engine.evolve` (`projections.fold`). Checked by tests/test_rebuild.py, event
  for event, and each of its own handlers names the engine code it restates (`fast.RESTATES`).
- `engine.rulesets.fudge.fast` (and `fast_phases`, the duels in phase order it hands on),
  `engine.rulesets.fate.fast`, `engine.rulesets.atari_isev.fast`: whole duels played without the engine,
  each in its ruleset's package, found by the simulator through the registry (`sim.runner.fast_plan`).
  Plain: the engine, as `fudge sim --engine` plays them; the switch sets that option's effect at the
  command line (`cli.sim`), so the setup sent to workers says it; `fudge sim --json` says which path
  played (`path`). Checked by tests/test_sim_fast.py, test_sim_fast_phases.py and test_sim_fast_atari.py,
  fight for fight.
- `engine.rulesets.fudge.batch`, `engine.rulesets.fate.batch`: the same duels as arrays, many at once, with
  the batch's own keyed dice (`fudge sim --batch`, `sim.vector`). No plain path gives its numbers (its dice
  are not the engine's): FUDGE_PLAIN=1 refuses --batch. Checked by tests/test_sim_batch.py, fight for fight
  on the engine's dice and in distribution on its own.

Read once, when this module is first imported: a setting of the process, like the store's path. The
functional core (engine/, events/) never reads it.
"""

from __future__ import annotations

import os
from typing import Final

PLAIN: Final = os.environ.get("FUDGE_PLAIN", "").strip().lower() in ("1", "true", "yes", "on")
