"""A sheet and a fight's rule options as msgspec structs, the values the engine holds: written by `python -m
fudge_combat.engine.derive` from the pydantic models (engine.kernel.models), which are the schema and validate
files and requests. Do not edit: change a model, then write this again (tests/test_kernel_structs.py fails
until it is)."""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field


class CombatTraits(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    attack: Annotated[str, Meta(max_length=200)]
    defend: Annotated[str, Meta(max_length=200)] | None = None
    ranged: Annotated[str, Meta(max_length=200)] | None = None
    dodge: Annotated[str, Meta(max_length=200)] | None = None


class Weapon(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    name: Annotated[str, Meta(max_length=200)] = 'weapon'
    damage: Annotated[int, Meta(ge=-1000, le=1000)]
    blunt_heavy: bool = False
    muscle_powered: bool = True
    ranged: Literal['thrown', 'propelled'] | None = None
    tech: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    light: bool = False
    two_handed: bool = False


class Armor(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    name: Annotated[str, Meta(max_length=200)] = 'armor'
    protection: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    tech: Annotated[int, Meta(ge=-1000, le=1000)] | None = None


class Shield(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    size: Literal['small', 'medium', 'large']


class WoundOverride(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    boxes: tuple[Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)]]


class FateWeapon(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    name: Annotated[str, Meta(max_length=200)] = 'weapon'
    rating: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    attributes: tuple[Literal['AP', 'APx2', 'Flex', 'Vicious', 'Vcsx2', 'Locking'], ...] = ()


class FateArmor(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    name: Annotated[str, Meta(max_length=200)] = 'armor'
    rating: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    type: Annotated[int, Meta(ge=-1000, le=1000)] | None = None


class Sheet(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    name: Annotated[str, Meta(max_length=200, min_length=1)]
    kind: Literal['pc', 'npc', 'major'] = 'pc'
    side: Annotated[str, Meta(max_length=200)] | None = None
    scale: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    fudge_points: Annotated[int, Meta(ge=0, le=1000)] | None = None
    attributes: Annotated[dict[Annotated[str, Meta(max_length=200)], Annotated[str, Meta(max_length=200)] | Annotated[int, Meta(ge=-1000, le=1000)]], Meta(max_length=200)] = field(default_factory=dict)
    skills: Annotated[dict[Annotated[str, Meta(max_length=200)], Annotated[str, Meta(max_length=200)] | Annotated[int, Meta(ge=-1000, le=1000)]], Meta(max_length=200)] = field(default_factory=dict)
    gifts: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=200)] = ()
    combat: CombatTraits | None = None
    weapon: Weapon | None = None
    armor: Armor | None = None
    shield: Shield | None = None
    wounds: WoundOverride | None = None
    track: Literal['boxes', 'pawn'] = 'boxes'
    off_hand: Weapon | None = None
    aspects: Annotated[dict[Annotated[str, Meta(max_length=200)], Annotated[int, Meta(ge=0, le=1000)]], Meta(max_length=200)] = field(default_factory=dict)
    fate_weapon: FateWeapon | None = None
    fate_armor: FateArmor | None = None


class RuleOptions(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    ruleset: Annotated[str, Meta(max_length=200)] = 'fudge'
    ladder: Literal['fudge7', 'fate11', 'house'] = 'fudge7'
    ladder_levels: Annotated[tuple[tuple[Annotated[str, Meta(max_length=200)], Annotated[int, Meta(ge=-1000, le=1000)]], ...], Meta(max_length=200)] = ()
    pace: Literal['story', 'simultaneous', 'alternating', 'scene', 'exchange', 'turn'] = 'simultaneous'
    initiative: Literal['none', 'opposed', 'ranked', 'phases-classic', 'phases-crunch', 'alertness'] = 'none'
    tactics: Literal['all_out', 'postures'] = 'all_out'
    dice_substitutes: bool = False
    dice: Literal['generated', 'entered'] = 'generated'
    attributes: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=200)] = ('Strength', 'Agility', 'Dexterity', 'Damage Capacity', 'Health', 'Constitution', 'Perception', 'Reasoning', 'Intelligence', 'Willpower', 'Will', 'Charisma', 'Speed', 'Reflexes', 'Intuition', 'Empathy')
    missing_attribute: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    unlisted_skill: Annotated[int, Meta(ge=-1000, le=1000)] = -2
    default_difficulty: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    default_fudge_points: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    npc_fudge_points: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    min_hit: Annotated[int, Meta(ge=-1000, le=1000)] = -2
    unaware_difficulty: Annotated[int, Meta(ge=-1000, le=1000)] = -2
    shield_values: tuple[Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)]] = (1, 1, 2)
    all_out_offense_skill: Annotated[int, Meta(ge=-1000, le=1000)] = 1
    all_out_offense_damage: Annotated[int, Meta(ge=-1000, le=1000)] = 1
    all_out_loser_bonus: Annotated[int, Meta(ge=-1000, le=1000)] = 2
    all_out_defense_skill: Annotated[int, Meta(ge=-1000, le=1000)] = 2
    advantage_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = -1
    dc_in_defense: bool = True
    blunt_heavy_halves_armor: bool = True
    wound_thresholds: tuple[Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)]] = (1, 3, 5, 7, 9)
    graze_table: tuple[Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)]] = (0, 5)
    graze_cap: Annotated[int, Meta(ge=-1000, le=1000)] = 3
    damage_roll: Literal['none', '4dF_limited', '1dF_damage', '1dF_level', 'parity', '4dF_free'] = 'none'
    graze_damage_roll: bool = True
    wound_boxes: tuple[Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)]] = (3, 1, 1, 1, 1)
    wound_penalties: tuple[Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)]] = (0, -1, -2)
    scratch_cap: bool = True
    death_rule: Literal['overflow', 'gm'] = 'overflow'
    still_ticking_cost_near_death: Annotated[int, Meta(ge=-1000, le=1000)] = 2
    crunch_table: Literal['rolled', 'rolled_fixed', 'fixed'] = 'rolled'
    bartering: Literal['none', 'classic', 'crunch'] = 'none'
    crunch_single_plus_trade: bool = True
    crunch_downgrades: bool = False
    duplicates_act: bool = False
    initiative_trait: Annotated[str, Meta(max_length=200)] = 'Agility'
    phase_declaration: Literal['open', 'structured'] = 'open'
    spares_as_points: bool = False
    initiative_order_trait: Annotated[str, Meta(max_length=200)] = ''
    propelled_dodge_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = -2
    ranged_shield_values: tuple[Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)]] = (0, 1, 2)
    relative_degree_weight: Annotated[int, Meta(ge=-1000, le=1000)] = 1
    damage_system: Literal['factors', 'min_mid_max'] = 'factors'
    mmm_factor_steps: tuple[Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)]] = (0, 3, 6)
    mmm_rd_steps: tuple[Annotated[int, Meta(ge=-1000, le=1000)], Annotated[int, Meta(ge=-1000, le=1000)]] = (4, 6)
    mmm_deep_penalty: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    tech_scale: bool = True
    death_three_levels: bool = False
    death_needs_incapacitated: bool = False
    death_protects: Literal['pc_major', 'all'] = 'pc_major'
    head_blow_knockout: bool = False
    healing_skill: Annotated[str, Meta(max_length=200)] = 'Medicine'
    natural_healing_roll: bool = False
    healing_trait: Annotated[str, Meta(max_length=200)] = 'Constitution'
    damage_capacity: Literal['modifier', 'roll', 'gift', 'willpower'] = 'modifier'
    damage_capacity_step: Literal['level', 'point'] = 'level'
    dc_track: bool = False
    dc_track_terrible: Literal['minus3', 'incapacitated'] = 'minus3'
    multi_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = 1
    max_foes: Annotated[int, Meta(ge=-1000, le=1000)] = 6
    sweeping_blow: bool = False
    npc_group_roll: bool = False
    npc_static: bool = False
    weapon_size: bool = False
    all_out_exposure: Literal['minus2', 'no_defense'] = 'minus2'
    story_modifier_limit: Annotated[int, Meta(ge=-1000, le=1000)] = 3
    plus_levels: bool = False
    speed_trait: Annotated[str, Meta(max_length=200)] = 'Speed'
    initiative_every: Literal['battle', 'round'] = 'round'
    initiative_traits: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=200)] = ('Initiative', 'Reflexes', 'Speed')
    combat_reflexes_bonus: Annotated[int, Meta(ge=-1000, le=1000)] = 1
    hasty_initiative: Annotated[int, Meta(ge=-1000, le=1000)] = 1
    hasty_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = -1
    wound_chart: Literal['fixed', 'health'] = 'fixed'
    graze_max_damage: Annotated[int, Meta(ge=-1000, le=1000)] = 4
    off_hand_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = -1
    second_attack_delay: Annotated[int, Meta(ge=-1000, le=1000)] = 3
    sweep_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = -1
    sweep_foes_avoid: bool = False
    heroic_difficulty: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    heroic_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = -2
    fate_boxes: tuple[Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)], Annotated[int, Meta(ge=0, le=1000)]] = (2, 2, 2)
    arms: Literal['dramatic', 'simple', 'advanced'] = 'dramatic'
    arms_rating_limit: Annotated[int, Meta(ge=-1000, le=1000)] = 4
    fate_injury_days: Annotated[int, Meta(ge=0, le=1000)] = 7
    fate_recovery: Literal['week', 'long'] = 'week'
    fate_medicine: Annotated[str, Meta(max_length=200)] = 'Medicine'
