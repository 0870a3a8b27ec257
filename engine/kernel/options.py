"""A fight's rule options as the engine holds them (`RuleOptions`), and the combinations the rules cannot run.

Every option names the rule it comes from (engine.kernel.models, the schema). The fully resolved options are
recorded in the fight's first event, so a fight replays the same forever whatever later versions change in
their defaults. Presets, and house rules that tweak one, are read by engine.kernel.presets.
"""

from collections.abc import Callable
from typing import Any

import msgspec

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.registry import ruleset_module
from fudge_combat.engine.kernel.structs import RuleOptions

__all__ = ["RuleOptions", "stored_options", "Constraint", "constraints_of", "check_combination"]



def stored_options(data: Any) -> RuleOptions:
    """A fight's options as its `fight_started` event holds them: resolved and validated by the options' model when
    the fight started (engine.kernel.presets.resolve), so the struct checks the types and bounds; a value of the
    wrong type, or past a bound, raises msgspec's ValidationError."""
    return msgspec.convert(data, RuleOptions)


def __getattr__(name: str) -> Any:
    """`Preset`, the model a ruleset of another package declares its `PRESET` with, as it was always imported (from
    here); it is built in engine.kernel.models, so that importing this module builds no pydantic model."""
    if name == "Preset":
        from fudge_combat.engine.kernel.models import Preset

        return Preset
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Constraint = tuple[Callable[[RuleOptions], bool], str]  # broken when true, and the reason

# AI: everything the Atari Isev campaign sets, in one place.
ATARI_ISEV = {
    "ruleset": "atari-isev", "ladder": "fudge7", "pace": "alternating", "initiative": "ranked",
    "tactics": "postures", "default_fudge_points": 2, "wound_chart": "health", "scratch_cap": True,
    "attributes": ("Health", "Strength", "Agility", "Dexterity", "Perception", "Will", "Intuition",
                   "Empathy", "Reasoning"),
    "dc_in_defense": False, "min_hit": -2, "sweep_foes_avoid": True,
}

# Each ruleset's own combination checks, in the order they are tried (after the ones every fight shares,
# `INCOMPATIBLE`): the first that fails names the reason. Alertness orders Fate's turns under any ruleset
# (FT-INIT); it is tried where it always was among them.
ALERTNESS_NEEDS_TURNS: Constraint = (
    lambda o: o.initiative == "alertness" and o.pace != "turn",
    'initiative by Alertness orders Fate\'s turns (FT-INIT): it needs pace = "turn"')
NOT_FATE: tuple[Constraint, ...] = (
    (lambda o: o.pace in ("scene", "exchange", "turn"),
     'scene, exchange and turn paces are Fate\'s (FT-PACE): they need ruleset = "fate"'),
    ALERTNESS_NEEDS_TURNS,
)
FUDGE_CONSTRAINTS: tuple[Constraint, ...] = NOT_FATE
ATARI_ISEV_CONSTRAINTS: tuple[Constraint, ...] = (
    (lambda o: o.pace != "alternating",
     'Atari Isev blows are attacks against avoidances in initiative order (AI-ATK-1): use pace = "alternating"'),
    (lambda o: o.tactics != "postures",
     'Atari Isev postures (AI-POST) need tactics = "postures"'),
    *NOT_FATE,
)

# FT: Fate (Fudge version), chapter 8.
FATE = {
    "ruleset": "fate", "ladder": "fate11", "pace": "exchange", "initiative": "none",
    "attributes": (), "unlisted_skill": -1, "default_difficulty": 1,
}

FATE_CONSTRAINTS: tuple[Constraint, ...] = (
    (lambda o: o.pace not in ("scene", "exchange", "turn"),
     'Fate fights run at a scene, exchange or turn pace (FT-PACE): use pace = "scene", "exchange" or "turn"'),
    ALERTNESS_NEEDS_TURNS,
    (lambda o: o.pace == "turn" and o.initiative not in ("alertness", "phases-classic"),
     'a turn-based Fate fight needs an order (FT-INIT): initiative = "alertness" (or "phases-classic")'),
    (lambda o: o.pace != "turn" and o.initiative != "none",
     'Fate scenes and exchanges are simultaneous (FT-PACE): initiative = "none"'),
    (lambda o: o.ladder != "fate11",
     'Fate reads its rolls on the fate11 ladder (FT-LAD): ladder = "fate11"'),
)

# The `ruleset` option -> its own combination checks.
RULESET_CONSTRAINTS: dict[str, tuple[Constraint, ...]] = {
    "fudge": FUDGE_CONSTRAINTS, "atari-isev": ATARI_ISEV_CONSTRAINTS, "fate": FATE_CONSTRAINTS,
}

def constraints_of(ruleset: str) -> tuple[Constraint, ...]:
    """The ruleset's own combination checks: a built-in one's (`RULESET_CONSTRAINTS`), or those an installed
    ruleset's `preset` module declares (`CONSTRAINTS`, none when it declares none)."""
    built_in = RULESET_CONSTRAINTS.get(ruleset)
    if built_in is not None:
        return built_in
    return tuple(getattr(ruleset_module(ruleset, "preset"), "CONSTRAINTS", ()))


# Combinations the rules cannot run, each with its reason. Checked when a
# fight is set up, never when a log is replayed: a fight that started under
# older, looser checks must replay forever.
INCOMPATIBLE: tuple[Constraint, ...] = (
    (lambda o: o.ladder == "house" and not o.ladder_levels,
     'ladder = "house" needs a [ladder] table of levels'),
    (lambda o: o.ladder != "house" and bool(o.ladder_levels),
     'ladder_levels is only read with ladder = "house" (a [ladder] table sets both)'),
    (lambda o: o.pace == "simultaneous" and o.initiative != "none",
     "simultaneous rounds need no turn order (F-INIT-1): use pace = \"alternating\" with an initiative system"),
    (lambda o: o.pace == "story" and o.initiative != "none",
     "story elements are resolved by one roll each (F-PACE-1): they have no turn order, so initiative = \"none\""),
    (lambda o: o.bartering == "crunch" and o.initiative != "phases-crunch",
     'crunch bartering (CT-BARTER) trades Crunch Time phase dice: it needs initiative = "phases-crunch"'),
    (lambda o: o.bartering == "classic" and o.initiative != "phases-classic",
     'classic bartering (PC-BARTER) trades phase dice: it needs initiative = "phases-classic"'),
    (lambda o: o.spares_as_points and not o.initiative.startswith("phases"),
     "spare dice (CT-SPARE) are initiative dice left after bartering: they need phase initiative"),
    (lambda o: o.phase_declaration == "structured" and not o.initiative.startswith("phases"),
     'structured declaration (PH-4) orders declarations within a phase: it needs phase initiative'),
    (lambda o: o.damage_system == "min_mid_max" and o.damage_roll != "none",
     'min-mid-max (F-MMM) is itself the damage roll (3d6): it needs damage_roll = "none"'),
    (lambda o: o.relative_degree_weight < 1,
     "relative_degree_weight counts the relative degree 1 or more times (F-DMG-4)"),
    (lambda o: (o.dc_track or o.damage_capacity != "modifier") and o.dc_in_defense,
     "Damage Capacity used as a track, a roll, gifts or Willpower (F-DC, F-WND-8) is not also a defensive "
     "factor: set dc_in_defense = false"),
)


def check_combination(options: RuleOptions, house_name: str = "house rules") -> None:
    """Refuse options that make no sense together, naming the reason."""
    for broken, reason in (*INCOMPATIBLE, *constraints_of(options.ruleset)):
        if broken(options):
            raise InputError(f"{house_name}: {reason}")


