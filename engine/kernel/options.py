"""Rulesets as named presets of options, tweakable by a house-rules TOML.

Every option names the rule it comes from. The fully resolved options are
recorded in the fight's first event, so a fight replays the same forever
whatever later versions change in their defaults.
"""

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.registry import UnknownRuleset, is_built_in, package_of, ruleset_module
from fudge_combat.engine.kernel.inputs import MAX_ENTRIES, check_boxes, load_toml, validation_line
from fudge_combat.events.bounds import Count, Number, Text


def _opt(default: Any, rule: str, text: str) -> Any:
    return Field(default=default, description=text, json_schema_extra={"rule": rule})


DEFAULT_ATTRIBUTES = (
    "Strength", "Agility", "Dexterity", "Damage Capacity", "Health", "Constitution",
    "Perception", "Reasoning", "Intelligence", "Willpower", "Will", "Charisma",
    "Speed", "Reflexes", "Intuition", "Empathy",
)


WOUND_THRESHOLDS = {  # F-DMG-4; `doubled` also doubles the relative degree (see RuleOptions._named_thresholds)
    "standard": (1, 3, 5, 7, 9),
    "doubled": (1, 4, 7, 10, 13),
    "epic": (1, 2, 4, 6, 7),
}


WOUND_BOXES = {  # F-WND-2
    "realistic": (3, 1, 1, 1, 1),
    "cinematic": (4, 2, 1, 1, 1),
    "epic": (3, 2, 2, 1, 1),
}


class RuleOptions(BaseModel):
    """The resolved options of one fight."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    # A name `kernel.registry` knows: a built-in ruleset's, or one an installed package declares.
    ruleset: Text = _opt(
        "fudge", "F-MEL-1", "how blows hit and hurt: Fudge 4 (F-MEL, F-DMG), Atari Isev (AI-ATK, AI-DMG) "
                            "or Fate (FT-OUT, FT-TRACK)")
    ladder: Literal["fudge7", "fate11", "house"] = _opt(
        "fudge7", "C-LAD-2", "trait ladder (house: the levels of `ladder_levels`)")
    ladder_levels: Annotated[tuple[tuple[Text, Number], ...], Field(max_length=MAX_ENTRIES)] = _opt(
        (), "C-LAD-1", "a house ladder's levels, lowest first (a [ladder] table in house rules)")
    pace: Literal["story", "simultaneous", "alternating", "scene", "exchange", "turn"] = _opt(
        "simultaneous", "F-PACE-2",
        "story elements (F-PACE-1), simultaneous opposed rounds, or directed attacks in turn (F-PACE-3); "
        "under Fate: scene, exchange or turn (FT-PACE)")
    initiative: Literal["none", "opposed", "ranked", "phases-classic", "phases-crunch", "alertness"] = _opt(
        "none", "F-INIT-1",
        "how the order of action is found: opposed rolls (F-INIT-2), 4dF + trait every round with "
        "simultaneous ties (AI-INIT-2), phase initiative (F-INIT-4), or Fate's order by Alertness (FT-INIT)")
    tactics: Literal["all_out", "postures"] = _opt(
        "all_out", "F-MOD-6", "all-out offense/defense declarations, or postures +2..-2 (F-TAC-1)")
    dice_substitutes: bool = _opt(
        False, "C-DICE-4", "3d6 (`3d6:4 5 6`) and d% (`d%:57`) may be typed for a 4dF roll, read on the SRD charts")
    dice: Literal["generated", "entered"] = _opt(
        "generated", "C-DICE-3", "generated: rolls not typed with --dice are generated; entered: every roll must be typed")
    attributes: Annotated[tuple[Text, ...], Field(max_length=MAX_ENTRIES)] = _opt(
        DEFAULT_ATTRIBUTES, "C-ACT-1", "names that are attributes: missing ones are Fair")
    missing_attribute: Number = _opt(0, "C-ACT-1", "level of an attribute not on the sheet")
    unlisted_skill: Number = _opt(-2, "C-ACT-1", "level of a skill not on the sheet (option)")
    default_difficulty: Number = _opt(0, "C-ACT-2", "difficulty of an unopposed roll when none is given")
    default_fudge_points: Number = _opt(0, "C-FP-1", "fudge points of a sheet that gives none")
    npc_fudge_points: Number = _opt(0, "C-FP-1", "fudge points of an NPC's sheet (kind = \"npc\") that gives none")
    min_hit: Number = _opt(-2, "F-HIT-1", "minimum result to hit an equal-Scale foe (Poor)")
    unaware_difficulty: Number = _opt(-2, "F-MEL-3", "difficulty of an attack on an unaware or unable defender")
    shield_values: tuple[Number, Number, Number] = _opt(
        (1, 1, 2), "F-MOD-3", "melee value of a small, medium and large shield")
    all_out_offense_skill: Number = _opt(1, "F-MOD-6", "all-out offense: skill bonus")
    all_out_offense_damage: Number = _opt(1, "F-MOD-6", "all-out offense: damage bonus when it wins")
    all_out_loser_bonus: Number = _opt(2, "F-MOD-6", "damage bonus for beating (or tying) an all-out attacker")
    all_out_defense_skill: Number = _opt(2, "F-MOD-7", "all-out defense: skill bonus")
    advantage_penalty: Number = _opt(-1, "F-MOD-7", "penalty to the foe after a won all-out defense and a successful Perception roll")
    dc_in_defense: bool = _opt(True, "F-DMG-2", "Damage Capacity counts in the defensive factor")
    blunt_heavy_halves_armor: bool = _opt(True, "F-DMG-5", "heavy blunt weapons halve armor (rounded down)")
    wound_thresholds: tuple[Number, Number, Number, Number, Number] = _opt(
        (1, 3, 5, 7, 9), "F-DMG-4", "lowest damage for Scratch, Hurt, Very Hurt, Incapacitated, Near Death")
    graze_table: tuple[Number, Number] = _opt(
        (0, 5), "F-GRAZE-1", "lowest damage factor for a Scratch and for a Hurt graze")
    graze_cap: Number = _opt(3, "F-GRAZE-1", "worst level a graze reaches (3 = Very Hurt)")
    damage_roll: Literal["none", "4dF_limited", "1dF_damage", "1dF_level", "parity", "4dF_free"] = _opt(
        "none", "F-DROLL",
        "damage die roll: none; 4dF_limited or 4dF_free added to damage; 1dF_damage added to damage; "
        "1dF_level shifts the wound level; parity: an even action roll adds 1 to its side's factor")
    graze_damage_roll: bool = _opt(
        True, "F-GRAZE-2", "when damage rolls are on, grazes roll too (changing the graze at most one level)")
    wound_boxes: tuple[Count, Count, Count, Count, Count] = _opt(
        (3, 1, 1, 1, 1), "F-WND-2",
        "boxes for Scratch, Hurt, Very Hurt, Incapacitated, Near Death (or realistic, cinematic, epic)")
    wound_penalties: tuple[Number, Number, Number] = _opt(
        (0, -1, -2), "F-MOD-1", "penalty when Scratched, Hurt, Very Hurt (only the worst counts)")
    scratch_cap: bool = _opt(True, "F-WND-5", "overflowing Scratches never pass Very Hurt")
    death_rule: Literal["overflow", "gm"] = _opt(
        "overflow", "F-WND-6", "a wound with no open box kills (overflow), or only the GM kills (gm)")
    still_ticking_cost_near_death: Number = _opt(
        2, "C-FP-2", "Still Ticking costs this many points when already Near Death")
    crunch_table: Literal["rolled", "rolled_fixed", "fixed"] = _opt(
        "rolled", "CT-TABLE", "initiative dice per determinant level: rolled, rolled and fixed, or fixed phases")
    bartering: Literal["none", "classic", "crunch"] = _opt(
        "none", "PH-6", "dice bartering: two-for-one (PC-BARTER) or Crunch Time's one-for-one (CT-BARTER)")
    crunch_single_plus_trade: bool = _opt(True, "CT-BARTER-3", "a lone + die may be traded")
    crunch_downgrades: bool = _opt(False, "CT-BARTER-4", "a traded + may lower another die")
    duplicates_act: bool = _opt(False, "PH-2", "duplicate initiative faces give extra actions")
    initiative_trait: Text = _opt(
        "Agility", "PH-3", "initiative determinant (dice count, and in-phase order unless initiative_order_trait)")
    phase_declaration: Literal["open", "structured"] = _opt(
        "open", "PH-4", "within a phase: declare and resolve at once (open), or all declare slowest first, "
                        "then resolve fastest first (structured)")
    # --- phase initiative ---
    spares_as_points: bool = _opt(
        False, "CT-SPARE", "after bartering, each spare initiative die may be spent once this round as +1 to a roll")
    initiative_order_trait: Text = _opt(
        "", "PH-3", "trait that orders combatants within a phase (empty: the initiative determinant)")
    # --- ranged combat and damage ---
    propelled_dodge_penalty: Number = _opt(
        -2, "F-RNG-2", "defense modifier against a propelled weapon (bow, gun, beam); the text allows -2 or -3")
    ranged_shield_values: tuple[Number, Number, Number] = _opt(
        (0, 1, 2), "F-MOD-3", "value against ranged attacks of a small, medium and large shield")
    relative_degree_weight: Number = _opt(
        1, "F-DMG-4", "how many times the relative degree counts in damage (2 with the `doubled` thresholds)")
    damage_system: Literal["factors", "min_mid_max"] = _opt(
        "factors", "F-MMM", "damage points = RD + factor (F-DMG-3), or a 3d6 read as min/mid/max (F-MMM)")
    mmm_factor_steps: tuple[Number, Number, Number] = _opt(
        (0, 3, 6), "F-MMM", "lowest damage factor for a die-reading bonus of 0, +1, +2 (below the first: -1)")
    mmm_rd_steps: tuple[Number, Number] = _opt(
        (4, 6), "F-MMM", "lowest relative degree for a die-reading bonus of +1, +2")
    mmm_deep_penalty: Number | None = _opt(
        None, "F-MMM", "damage factor at or below which the factor bonus is -2 instead of -1 (the text suggests -5)")
    tech_scale: bool = _opt(
        True, "F-TECH", "weapon and armor tech levels (sheet `tech`, on the Scale track) add their difference to the factor")
    # --- wounds: death prevention, stun, healing, damage capacity, pawns ---
    death_three_levels: bool = _opt(
        False, "F-DEATH-1", "no blow worsens a protected character more than three wound levels; the excess is lost")
    death_needs_incapacitated: bool = _opt(
        False, "F-DEATH-2", "no blow puts a protected character Near Death unless he began the round Incapacitated")
    death_protects: Literal["pc_major", "all"] = _opt(
        "pc_major", "F-DEATH-4", "who F-DEATH-1, F-DEATH-2 protect: PCs and major NPCs (sheet kind), or everyone")
    head_blow_knockout: bool = _opt(
        False, "F-STUN-3", "a winning blow aimed at the head with a Good or better result knocks out")
    healing_skill: Text = _opt("Medicine", "F-HEAL-2", "the skill a healing roll uses")
    natural_healing_roll: bool = _opt(
        False, "F-HEAL-3", "a week of rest heals a level only with a Constitution roll (Fair/Good/Great)")
    healing_trait: Text = _opt("Constitution", "F-HEAL-3", "the trait rolled for natural healing")
    damage_capacity: Literal["modifier", "roll", "gift", "willpower"] = _opt(
        "modifier", "F-DC",
        "how Damage Capacity acts: in the defensive factor (modifier), a DC roll on each hit of Hurt or worse "
        "(roll), Damage Resistant / Fragile gifts (gift), or a Willpower roll (willpower)")
    damage_capacity_step: Literal["level", "point"] = _opt(
        "level", "F-DC", "what a roll, gift or Willpower adjustment moves: one wound level or one damage point")
    dc_track: bool = _opt(
        False, "F-WND-8", "record wounds on the Damage Capacity attribute: each hit worse than a Scratch lowers it")
    dc_track_terrible: Literal["minus3", "incapacitated"] = _opt(
        "minus3", "F-WND-8", "a Damage Capacity lowered to Terrible is -3 to all actions, or Incapacitated")
    # --- melee options (F-MULTI, F-NPC, F-MOD-4, F-MOD-8, F-PACE-1) ---
    multi_penalty: Number = _opt(1, "F-MULTI-1", "penalty to a lone fighter per foe beyond the first (epic games: less)")
    max_foes: Number = _opt(6, "F-MULTI-6", "most foes that can attack one fighter at once (a melee may allow fewer)")
    sweeping_blow: bool = _opt(False, "F-MULTI-4", "a lone fighter may cut through several foes he beat")
    npc_group_roll: bool = _opt(False, "F-MULTI-7", "one 2dF roll by the GM applies to every NPC in a melee")
    npc_static: bool = _opt(False, "F-NPC-1", "an NPC's result is its trait level, with no roll")
    weapon_size: bool = _opt(False, "F-MOD-4", "weapon + shield 2 or more below the foe's: -1 to skill")
    all_out_exposure: Literal["minus2", "no_defense"] = _opt(
        "minus2", "F-MOD-8", "alternating turns: after all-out offense, -2 on defense, or no defense at all")
    story_modifier_limit: Number = _opt(3, "F-PACE-1", "largest story-element modifier the GM may give (either sign)")
    plus_levels: bool = _opt(False, "F-FANCY-2", "combat skills may be written as plus levels (`Good+`): +1 every other round")
    speed_trait: Text = _opt("Speed", "F-FANCY-1", "the trait of a speed contest (`--speed-contest`)")

    # --- atari isev and rolled initiative ---
    initiative_every: Literal["battle", "round"] = _opt(
        "round", "F-INIT-2", "opposed initiative is rolled once per battle or every round")
    initiative_traits: Annotated[tuple[Text, ...], Field(max_length=MAX_ENTRIES)] = _opt(
        ("Initiative", "Reflexes", "Speed"), "F-INIT-2",
        "opposed initiative rolls the first of these traits on the sheet (none: a situational roll)")
    combat_reflexes_bonus: Number = _opt(1, "F-INIT-2", "initiative bonus of the gift Combat Reflexes")
    hasty_initiative: Number = _opt(1, "F-INIT-3", "hasty attack: initiative bonus this round")
    hasty_penalty: Number = _opt(-1, "F-INIT-3", "hasty attack: attack and defence penalty this round")
    wound_chart: Literal["fixed", "health"] = _opt(
        "fixed", "AI-WND-1", "wound thresholds and boxes: the options' (fixed) or read from Health (AI-WND-1)")
    graze_max_damage: Number = _opt(4, "AI-GRAZE", "an RD +1 blow does at most this many points (atari-isev)")
    off_hand_penalty: Number = _opt(-1, "AI-MULTI-ATK", "off-hand weapon penalty without the gift Ambidextrous")
    second_attack_delay: Number = _opt(3, "AI-MULTI-ATK", "initiative levels between the first and second attack")
    sweep_penalty: Number = _opt(-1, "AI-SWEEP", "multi-strike: penalty on the first foe, one more on each next")
    sweep_foes_avoid: bool = _opt(
        False, "AI-SWEEP", "a multi-strike's foes keep their free avoidance (seed 000; set by atari-isev); "
                           "false: every foe is hit on Poor, as fights recorded before this option were")
    heroic_difficulty: Number = _opt(0, "AI-HEROIC", "heroic avoidance: Agility difficulty (Fair)")
    heroic_penalty: Number = _opt(-2, "AI-HEROIC", "heroic avoidance: penalty to all actions next round when unbalanced")
    # --- fate ---
    fate_boxes: tuple[Count, Count, Count] = _opt(
        (2, 2, 2), "FT-TRACK-1", "boxes for Clipped, Hurt, Injured (Taken Out is one box)")
    arms: Literal["dramatic", "simple", "advanced"] = _opt(
        "dramatic", "FT-ARMS", "weapons and armor: superior +1 (dramatic), ratings added to the margin (simple), "
                               "armor types and weapon attributes (advanced)")
    arms_rating_limit: Number = _opt(4, "FT-SIMPLE", "highest simple weapon or armor rating a sheet may give")
    fate_injury_days: Count = _opt(7, "FT-HEAL-1", "days an injury from a dangerous source takes to heal")
    fate_recovery: Literal["week", "long"] = _opt(
        "week", "FT-HEAL-1", "a medicine roll vs Fair cuts a day per MoS off fate_injury_days (week), or "
                             "2 weeks of rest / 3 of light activity less a day per MoS above Average (long)")
    fate_medicine: Text = _opt("Medicine", "FT-HEAL-1", "the skill an injury's recovery roll uses")

    @field_validator("ruleset")
    @classmethod
    def _known_ruleset(cls, value: str) -> str:
        """A ruleset built in or installed (`kernel.registry`): a built-in name is known without reading the
        installed packages' entry points. An unknown one raises UnknownRuleset, an InputError that pydantic
        lets through as it is: a fight recorded under a ruleset not installed here is not an altered log."""
        if not is_built_in(value):
            package_of(value)  # its line names the rulesets there are, and how one is installed
        return value

    @model_validator(mode="before")
    @classmethod
    def _doubled_counts_rd_twice(cls, data: Any) -> Any:
        """F-DMG-4: naming the `doubled` thresholds also doubles the relative degree, unless set apart."""
        if isinstance(data, dict) and data.get("wound_thresholds") == "doubled" and "relative_degree_weight" not in data:
            return {**data, "relative_degree_weight": 2}
        return data

    @field_validator("wound_thresholds", mode="before")
    @classmethod
    def _named_thresholds(cls, value: Any) -> Any:
        """F-DMG-4: a named table stands for its five numbers; the numbers are what is stored."""
        if isinstance(value, str):
            if value not in WOUND_THRESHOLDS:
                raise ValueError(f"unknown thresholds {value!r}; named tables: {', '.join(WOUND_THRESHOLDS)}, "
                                 "or five numbers")
            return WOUND_THRESHOLDS[value]
        return value

    @field_validator("wound_boxes", mode="before")
    @classmethod
    def _named_boxes(cls, value: Any) -> Any:
        """F-WND-2: a named track stands for its boxes; the boxes are what is stored."""
        if isinstance(value, str):
            if value not in WOUND_BOXES:
                raise ValueError(f"unknown track {value!r}; named tracks: {', '.join(WOUND_BOXES)}, or five numbers")
            return WOUND_BOXES[value]
        if isinstance(value, (list, tuple)) and len(value) != 5:
            raise ValueError(f"five numbers of boxes (Scratch, Hurt, Very Hurt, Incapacitated, Near Death), "
                             f"not {len(value)}; or a named track: {', '.join(WOUND_BOXES)}")
        return value


class Preset(BaseModel):
    """A named set of rule options (`fudge rules`). A pydantic model, though the built-in ones are constants of
    the code: a ruleset of another package declares its own (`PRESET`), and it is validated as it is built."""

    model_config = ConfigDict(frozen=True, defer_build=True)
    name: str
    summary: str
    overrides: dict[str, Any]


Constraint = tuple[Callable[["RuleOptions"], bool], str]  # broken when true, and the reason

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

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(name="fudge", summary="Fudge 4.2.2: simultaneous opposed rounds, no initiative",
               overrides={}),
        Preset(name="fudge-phases",
               summary="Fudge with Crunch Time phase initiative (rolled table, crunch bartering) "
                       "and directed attacks in phase order",
               overrides={"pace": "alternating", "initiative": "phases-crunch", "bartering": "crunch"}),
        Preset(name="atari-isev",
               summary="Atari Isev campaign: 4dF + initiative trait every round, attack vs a free avoidance, "
                       "damage with a luck roll read on Health-based wound charts, 2 fudge points",
               overrides=ATARI_ISEV),
        Preset(name="fate",
               summary="Fate (Fudge version): fate11 ladder, exchanges compared by margin of success, "
                       "clipped/hurt/injured/taken-out boxes, dramatic arms, fate points and aspects",
               overrides=FATE),
    )
}




def preset_named(name: str) -> Preset | None:
    """The preset `name`: a built-in one, or the preset of the installed ruleset of that name (its package's
    `preset` module, `PRESET`), which runs that ruleset. None: no such preset. The entry points are read
    only for a name that is not a built-in preset."""
    preset = PRESETS.get(name)
    if preset is not None or is_built_in(name):
        return preset
    try:
        declared: Preset = ruleset_module(name, "preset").PRESET
    except UnknownRuleset:
        return None
    return declared.model_copy(update={"name": name, "overrides": {**declared.overrides, "ruleset": name}})


def presets() -> dict[str, Preset]:
    """Every preset: the built-in ones, then one for each installed ruleset (this reads the entry points)."""
    from fudge_combat.engine.kernel.registry import added

    out = dict(PRESETS)
    for name in added():
        preset = preset_named(name)
        if preset is not None:
            out[name] = preset
    return out


def constraints_of(ruleset: str) -> tuple[Constraint, ...]:
    """The ruleset's own combination checks: a built-in one's (`RULESET_CONSTRAINTS`), or those an installed
    ruleset's `preset` module declares (`CONSTRAINTS`, none when it declares none)."""
    built_in = RULESET_CONSTRAINTS.get(ruleset)
    if built_in is not None:
        return built_in
    return tuple(getattr(ruleset_module(ruleset, "preset"), "CONSTRAINTS", ()))


def option_rule(name: str) -> str:
    extra = RuleOptions.model_fields[name].json_schema_extra
    return str(extra["rule"]) if isinstance(extra, dict) else ""


def house_ladder(table: Any, house_name: str) -> tuple[tuple[str, int], ...]:
    """C-LAD-1: a [ladder] table of house rules, `Name = value`, one level per step."""
    if not isinstance(table, dict) or not table:
        raise InputError(f"{house_name}: [ladder] lists levels as `Name = number`, e.g. `Fair = 0`")
    levels = []
    for level_name, value in table.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{house_name}: [ladder] {level_name} = {value!r}: a level's value is a whole number")
        if not level_name.strip() or level_name.strip().lstrip("+-").isdigit() or "=" in level_name:
            raise InputError(f"{house_name}: [ladder] {level_name!r} cannot be a level's name")
        levels.append((level_name.strip(), value))
    levels.sort(key=lambda item: item[1])
    values = [v for _, v in levels]
    if len(levels) < 3:
        raise InputError(f"{house_name}: [ladder] needs at least three levels")
    if values != list(range(values[0], values[0] + len(values))):
        raise InputError(f"{house_name}: [ladder] values must run one step apart with no gap or repeat "
                         f"(got {', '.join(str(v) for v in values)})")
    lowered = [n.lower() for n, _ in levels]
    if len(set(lowered)) != len(lowered):
        raise InputError(f"{house_name}: [ladder] names a level twice")
    return tuple(levels)


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


def _meant(typed: str, known: Any) -> str:
    """`: did you mean damage_roll?` for a name close to a known one (difflib), else nothing: a
    misspelt key in a house file is refused, and the right spelling offered."""
    import difflib

    close = difflib.get_close_matches(typed.lower(), list(known), n=3, cutoff=0.7)
    if not close:
        return ""
    return f": did you mean {close[0] if len(close) == 1 else ', '.join(close[:-1]) + ' or ' + close[-1]}?"


def resolve(preset: str, house_toml: str | None = None, house_name: str = "house rules") -> tuple[str, RuleOptions]:
    """The rules name and resolved options for a preset and an optional house-rules text."""
    overrides: dict[str, Any] = {}
    name = preset
    if house_toml is not None:
        house = load_toml(house_toml, house_name)
        extends = house.pop("extends", preset)
        label = house.pop("name", None)
        if not isinstance(extends, str) or preset_named(extends) is None:
            known = presets()
            meant = _meant(extends, known) if isinstance(extends, str) else ""
            listed = ", ".join(known)
            raise InputError(f"{house_name}: extends = {extends!r} is not a preset{meant} (presets: {listed})"
                             if meant else f"{house_name}: extends = {extends!r} is not a preset; give one of: {listed}")
        if label is not None and (not isinstance(label, str) or not label.strip()):
            raise InputError(f"{house_name}: name = {label!r}: the house rules' name is a text, like name = \"our table\"")
        if isinstance(house.get("ladder"), dict):
            house["ladder_levels"] = house_ladder(house["ladder"], house_name)
            house["ladder"] = "house"
        preset = extends
        overrides = house
        name = label or f"{extends}+house"
    chosen = preset_named(preset)
    if chosen is None:
        known = presets()
        meant = _meant(preset, known)
        listed = ", ".join(known)
        raise InputError(f"unknown rules {preset!r}{meant} (presets: {listed}; see `fudge rules`)" if meant else
                         f"unknown rules {preset!r}; presets: {listed} (see `fudge rules`)")
    merged = {**chosen.overrides, **overrides}
    unknown = sorted(set(merged) - set(RuleOptions.model_fields))
    if unknown:
        meant = _meant(unknown[0], [*RuleOptions.model_fields, "extends", "name"])
        if meant:
            raise InputError(f"{house_name}: unknown option {unknown[0]!r}{meant}")
        raise InputError(
            f"{house_name}: unknown option {unknown[0]!r}; options: {', '.join(RuleOptions.model_fields)}")
    try:
        options = RuleOptions.model_validate(merged)
    except ValidationError as exc:
        raise InputError(validation_line(exc, house_name, "option")) from None
    except UnknownRuleset as exc:
        raise InputError(f"{house_name}: option 'ruleset': {exc}") from None
    check_boxes(options.wound_boxes, house_name, "wound_boxes")
    check_boxes(options.fate_boxes, house_name, "fate_boxes")
    check_combination(options, house_name)
    return name, options
