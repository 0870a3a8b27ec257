"""The fast path for a Fate duel at exchange pace (FT-PACE), as `engine.rulesets.fudge.fast` is for a Fudge duel.

Speed code (`projections.speed`): `fudge sim --engine`, or FUDGE_PLAIN=1, plays the engine instead.

Each exchange both fighters roll 4dF (first the one who joined first) and each compares his result
with the other's (FT-OUT): the winner's margin, plus his weapon and less the foe's armor under
simple arms (FT-SIMPLE), is read on the outcome table and marked on the loser's boxes with
overflow (FT-TRACK-2); a tie harms nobody. A Clipped box costs -1 on the next roll only, Hurt -1
for the scene, each Injured box -1 (FT-TRACK-3); Taken Out ends the fight. Same dice, same order
as the engine: `engine.rulesets.fudge.fast.Dice`.

Taken: the `fate` preset's options with any `fate_boxes`, dramatic or simple arms, and any ladder
or trait defaults the fighters are read with at the opening; two fighters on two sides; the
policies `plain` and `reckless` (an all-out offense changes nothing in a Fate exchange: only a
defense would, FT-DEF-2) and `sensible` for a fighter without fate points (it spends none).
Anything else goes to the engine; tests/test_sim_fast.py proves the two paths equal.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from fudge_combat.engine.rulesets.fate.rules import armor_rating, weapon_rating
from fudge_combat.engine.rulesets.fate.tables import ARMOR_TYPES
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.state import Combatant
from fudge_combat.engine.rulesets.fudge.fast import Dice, stream_of
from fudge_combat.engine.rulesets.fate.state import fate_of

FIXED: dict[str, Any] = {"ruleset": "fate", "pace": "exchange", "initiative": "none", "dice": "generated"}
READ = frozenset({"fate_boxes", "arms"})
AT_OPENING = frozenset({"ladder", "ladder_levels", "attributes", "missing_attribute", "unlisted_skill",
                        "default_fudge_points", "npc_fudge_points", "arms_rating_limit"})
UNREAD = frozenset({  # read by Fudge's rules, Fate's scenes, turns or recovery, never by a Fate exchange
    "default_difficulty", "tactics", "min_hit", "wound_thresholds", "damage_roll", "wound_penalties",
    "fate_injury_days", "fate_recovery", "fate_medicine", "max_foes",
})
ARMS = ("dramatic", "simple")
POLICIES = frozenset({"plain", "reckless", "sensible"})
LEVELS = ("Undamaged", "Clipped", "Hurt", "Injured", "Taken Out")  # `rulesets.fate.sim.FATE_LEVELS`, but Dead
CLIPPED, HURT, INJURED, TAKEN_OUT = 1, 2, 3, 4  # boxes by severity, as `engine.rulesets.fate.tables.BOXES`
_DEFAULTS = RuleOptions()


def options_eligible(options: RuleOptions) -> bool:
    for name in options.__struct_fields__:
        value = getattr(options, name)
        if name in FIXED:
            if value != FIXED[name]:
                return False
        elif name == "arms":
            if value not in ARMS:
                return False
        elif name not in READ and name not in AT_OPENING and name not in UNREAD:
            if value != getattr(_DEFAULTS, name):
                return False
    return True


class Side(Struct, frozen=True):
    level: int  # the combat skill (`engine.rulesets.fate.rules.skill_of`)
    harm: int  # FT-SIMPLE: own weapon less the foe's armor, added to a winning margin (0 under dramatic arms)


class FateDuel(Struct, frozen=True):
    first: Side
    second: Side
    max_rounds: int
    capacity: tuple[int, int, int, int]  # boxes of Clipped, Hurt, Injured, Taken Out
    steps: tuple[int, int, int, int]  # FT-OUT: the least margin for Clipped, Hurt, Injured, Taken Out

    def play(self, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
        return play(self, seed)


def plan(setup: Any, opening: Any) -> FateDuel | None:
    state = opening.state
    options = state.options
    if not options_eligible(options) or len(setup.entrants) != 2 or len(state.combatants) != 2:
        return None
    first, second = sorted(state.combatants.values(), key=lambda c: c.joined_seq)
    if first.side == second.side or fate_of(state).marks or fate_of(state).clip:
        return None
    policies = [entrant.policy or setup.policy for entrant in setup.entrants]
    for who, policy in zip((first, second), policies):
        if policy not in POLICIES or (policy == "sensible" and who.fudge_points > 0) or who.track.dead:
            return None
    return FateDuel(_side(options, first, second), _side(options, second, first), setup.max_rounds,
                    (*options.fate_boxes, 1), ARMOR_TYPES[0])


def _side(options: RuleOptions, who: Combatant, foe: Combatant) -> Side:
    combat = who.fighter.sheet.combat
    _, level, _ = who.fighter.trait(combat.attack if combat else "Fighting", options)
    harm = weapon_rating(who) - armor_rating(foe) if options.arms == "simple" else 0
    return Side(level, harm)


def play(duel: FateDuel, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
    """(winner: 0, 1 or None; exchanges; each fighter's worst box) of the fight with this seed."""
    dice = Dice(seed, stream_of(seed))
    a, b = duel.first, duel.second
    boxes = ([0, 0, 0, 0, 0], [0, 0, 0, 0, 0])  # marks per box, by severity (index 0 unused)
    clipped = [False, False]  # FT-TRACK-3: a Clipped box waits for the next roll
    draw = exchanges = 0
    while exchanges < duel.max_rounds:
        exchanges += 1
        results = []
        for side, own in ((a, boxes[0]), (b, boxes[1])):
            results.append(side.level + dice.total(draw, 4) - (own[HURT] > 0) - own[INJURED])
            draw += 1
        results[0] -= clipped[0]
        results[1] -= clipped[1]
        clipped = [False, False]  # paid by this roll
        margin = results[0] - results[1]
        contests: tuple[tuple[Side, int, int], ...]
        if margin > 0:
            contests = ((a, 1, margin + a.harm),)
        elif margin < 0:
            contests = ((b, 0, -margin + b.harm),)
        else:  # FT-OUT: a tie is a Scratch both ways, which simple arms may raise (FT-SIMPLE)
            contests = ((a, 1, a.harm), (b, 0, b.harm))
        for _, loser, read in contests:
            marks = boxes[loser]
            if marks[TAKEN_OUT]:
                continue
            severity = 0
            for box, least in enumerate(duel.steps, start=1):  # `engine.rulesets.fate.tables.outcome_for`
                if read >= least:
                    severity = box
            if severity == 0:
                continue  # Scratched (or a read below 0 under simple arms): no box
            while severity < TAKEN_OUT and marks[severity] >= duel.capacity[severity - 1]:
                severity += 1  # FT-TRACK-2: the next more severe box with room
            marks[severity] += 1
            if severity == CLIPPED:
                clipped[loser] = True
        if boxes[0][TAKEN_OUT] or boxes[1][TAKEN_OUT]:
            break
    out = (boxes[0][TAKEN_OUT] > 0, boxes[1][TAKEN_OUT] > 0)
    winner = None if out[0] == out[1] else (1 if out[0] else 0)
    first, second = (LEVELS[max((i for i in range(1, 5) if marks[i]), default=0)] for marks in boxes)
    return winner, exchanges, (first, second)
