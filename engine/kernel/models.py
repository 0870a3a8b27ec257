"""The pydantic models of what a GM's files and requests give: a character sheet, a fight's rule options, a preset.

They are the schema: they validate a sheet file, a house-rules file, a preset and a player's request, with
their own validators (a sheet's `fate_points`, a named wound table), and `fudge sheet schema` and the docs read
their fields. The engine holds the values they validate as the msgspec structs of engine/kernel/structs.py,
written from these models by `python -m fudge_combat.engine.derive` (tests/test_kernel_structs.py fails
while that file is not the one these models give): a command that only reads a fight builds no pydantic model.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from fudge_combat.engine.kernel.inputs import MAX_ENTRIES
from fudge_combat.engine.kernel.registry import is_built_in, package_of
from fudge_combat.events.bounds import Count, Number, Text

Level = Text | Number

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


def _opt(default: Any, rule: str, text: str) -> Any:
    return Field(default=default, description=text, json_schema_extra={"rule": rule})



class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class CombatTraits(_Strict):
    attack: Text
    defend: Text | None = None
    ranged: Text | None = None  # F-RNG: the skill a shot rolls (default: attack)
    dodge: Text | None = None  # F-RNG-2: the trait that avoids a shot (default: Dodge, else Agility)


class Weapon(_Strict):
    name: Text = "weapon"
    damage: Number = Field(description="F-DMG-1 weapon value: size + sharp + magic")
    blunt_heavy: bool = False
    muscle_powered: bool = True
    ranged: Literal["thrown", "propelled"] | None = None  # F-RNG-2: how a shot with it is dodged
    tech: Number | None = None  # F-TECH: its tech level on the Scale track (GM-set)
    light: bool = False  # AI-MULTI-ATK: a small light weapon (dagger, fist) allows two attacks
    two_handed: bool = False


class Armor(_Strict):
    name: Text = "armor"
    protection: Number = 0
    tech: Number | None = None  # F-TECH: its tech level on the Scale track (GM-set)


class Shield(_Strict):
    size: Literal["small", "medium", "large"]


class FateWeapon(_Strict):
    """FT-SIMPLE, FT-ADV-2: a rating 0..4 (or read from the table by name) and advanced attributes."""

    name: Text = "weapon"
    rating: Number | None = None
    attributes: tuple[Literal["AP", "APx2", "Flex", "Vicious", "Vcsx2", "Locking"], ...] = ()


class FateArmor(_Strict):
    """FT-SIMPLE, FT-ADV-1: a rating 0..4 (or read from the table by name); `type` 0..8 for advanced armor."""

    name: Text = "armor"
    rating: Number | None = None
    type: Number | None = None


class WoundOverride(_Strict):
    boxes: tuple[Count, Count, Count, Count, Count]


class Sheet(_Strict):
    """What a sheet file holds. Level values stay as written until a ladder reads them."""

    name: Text = Field(min_length=1)
    kind: Literal["pc", "npc", "major"] = "pc"
    side: Text | None = None
    scale: Number = 0
    fudge_points: Number | None = Field(default=None, ge=0)
    attributes: Annotated[dict[Text, Level], Field(max_length=MAX_ENTRIES)] = Field(default_factory=dict)
    skills: Annotated[dict[Text, Level], Field(max_length=MAX_ENTRIES)] = Field(default_factory=dict)
    gifts: Annotated[tuple[Text, ...], Field(max_length=MAX_ENTRIES)] = ()
    combat: CombatTraits | None = None
    weapon: Weapon | None = None
    armor: Armor | None = None
    shield: Shield | None = None
    wounds: WoundOverride | None = None
    track: Literal["boxes", "pawn"] = Field(default="boxes", description="F-WND-7: `pawn` for an NPC pawn's track")
    off_hand: Weapon | None = None  # AI-MULTI-ATK: a weapon in the other hand
    # --- fate (FT-PTS, FT-SIMPLE, FT-ADV) ---
    aspects: Annotated[dict[Text, Count], Field(max_length=MAX_ENTRIES)] = Field(
        default_factory=dict, description="FT-PTS: aspect -> number of check boxes")
    fate_weapon: FateWeapon | None = None
    fate_armor: FateArmor | None = None

    @model_validator(mode="before")
    @classmethod
    def _fate_points(cls, data: object) -> object:
        """C-FP-4: `fate_points` is the fudge-point pool under its Fate name."""
        if isinstance(data, dict) and "fate_points" in data:
            data = dict(data)
            if "fudge_points" in data:
                raise ValueError("give fate_points or fudge_points, not both (they are one pool)")
            data["fudge_points"] = data.pop("fate_points")
        return data

    @field_validator("name")
    @classmethod
    def _no_equals(cls, value: str) -> str:
        if "=" in value:
            raise ValueError("a name cannot contain '='")
        if not value.strip():
            raise ValueError("a name needs a visible character, not only spaces")
        return value.strip()



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
