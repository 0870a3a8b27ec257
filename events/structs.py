"""The log's events and records as msgspec structs, the values the engine holds: written by `python -m
fudge_combat.events.derive` from the pydantic models (events.models, events.envelope), which are the schema. Do
not edit: change a model, then write this again (tests/test_decoder.py fails until it is). Why and how:
events.derive."""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field


class FightStarted(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='fight_started'):
    type = 'fight_started'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    name: Annotated[str, Meta(max_length=200)]
    rules: Annotated[str, Meta(max_length=200)]
    options: dict[str, Any]
    seed_commitment: Annotated[str, Meta(max_length=200)]
    stream: Annotated[str, Meta(max_length=200)]


class BranchStarted(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='branch_started'):
    type = 'branch_started'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    name: Annotated[str, Meta(max_length=200)]
    parent: Annotated[str, Meta(max_length=200)]
    fork_seq: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    seed_commitment: Annotated[str, Meta(max_length=200)]
    stream: Annotated[str, Meta(max_length=200)]


class SeedCommitted(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='seed_committed'):
    type = 'seed_committed'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    seed_commitment: Annotated[str, Meta(max_length=200)]
    stream: Annotated[str, Meta(max_length=200)]
    reason: Annotated[str, Meta(max_length=1000)]


class SeedRevealed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='seed_revealed'):
    type = 'seed_revealed'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    seed_commitment: Annotated[str, Meta(max_length=200)]
    seed: Annotated[str, Meta(max_length=200)]


class CombatantJoined(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='combatant_joined'):
    type = 'combatant_joined'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    side: Annotated[str, Meta(max_length=200)]
    sheet: dict[str, Any]
    source: Annotated[str, Meta(max_length=1000)]


class RoundStarted(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='round_started'):
    type = 'round_started'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    surprised: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=1000)] = ()


class Declaration(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    all_out: Literal['offense', 'defense'] | None = None
    posture: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    wait: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    hasty: bool = False
    two_attacks: bool = False
    two_avoidances: Literal['dodge-dodge', 'parry-parry', 'dodge-parry'] | None = None
    sweep: bool = False


class Declared(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='declared'):
    type = 'declared'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    declaration: Declaration


class DeclarationSealed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='declaration_sealed'):
    type = 'declaration_sealed'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    seal: Annotated[str, Meta(max_length=200)]


class DeclarationRevealed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='declaration_revealed'):
    type = 'declaration_revealed'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    declaration: Declaration
    salt: Annotated[str, Meta(max_length=200)]


class DiceRolled(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='dice_rolled'):
    type = 'dice_rolled'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    roller: Annotated[str, Meta(max_length=200)]
    purpose: Annotated[str, Meta(max_length=1000)]
    faces: Annotated[tuple[Annotated[int, Meta(ge=-2, le=256)], ...], Meta(max_length=100)]
    source: Literal['generated', 'entered']
    stream: Annotated[str, Meta(max_length=200)] | None = None
    draw: Annotated[int, Meta(ge=0, le=4611686018427387904)] | None = None
    sides: Annotated[int, Meta(ge=1, le=256)] | None = None
    substitute: Annotated[str, Meta(max_length=200)] | None = None


class Modifier(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(max_length=1000)]
    value: Annotated[int, Meta(ge=-1000000, le=1000000)]


class ActionResolved(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='action_resolved'):
    type = 'action_resolved'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    combatant: Annotated[str, Meta(max_length=200)]
    trait: Annotated[str, Meta(max_length=200)]
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    roll: Annotated[int, Meta(ge=-1000000, le=1000000)]
    modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)]
    result: Annotated[int, Meta(ge=-1000000, le=1000000)]
    difficulty: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    opponent: Annotated[str, Meta(max_length=200)] | None = None
    opponent_trait: Annotated[str, Meta(max_length=200)] | None = None
    opponent_level: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    opponent_roll: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    opponent_modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)] = ()
    opponent_result: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    margin: Annotated[int, Meta(ge=-1000000, le=1000000)]
    success: bool
    automatic: bool = False
    advantage: bool = False
    supersedes: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None
    median_of: Annotated[tuple[Annotated[int, Meta(ge=-1000000, le=1000000)], ...], Meta(max_length=1000)] = ()


class Side(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    combatant: Annotated[str, Meta(max_length=200)]
    trait: Annotated[str, Meta(max_length=200)]
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    roll: Annotated[int, Meta(ge=-1000000, le=1000000)] | None
    modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)]
    result: Annotated[int, Meta(ge=-1000000, le=1000000)] | None
    offense: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    defense: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    declaration: Declaration = Declaration()
    stun: bool = False
    pull: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    head: bool = False
    weapon: Annotated[str, Meta(max_length=200)] | None = None


class Hit(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    attacker: Annotated[str, Meta(max_length=200)]
    defender: Annotated[str, Meta(max_length=200)]
    relative_degree: Annotated[int, Meta(ge=-1000000, le=1000000)]
    damage_factor: Annotated[int, Meta(ge=-1000000, le=1000000)]
    bonus: Annotated[int, Meta(ge=-1000000, le=1000000)]
    graze: bool
    calculated: Annotated[int, Meta(ge=-1000000, le=1000000)]
    damage_roll: Annotated[int, Meta(ge=-1000000, le=1000000)] | None
    damage: Annotated[int, Meta(ge=-1000000, le=1000000)] | None
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    offensive: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    defensive: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    tech: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    rd_weight: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    damage_roll_mode: Annotated[str, Meta(max_length=200)] | None = None
    level_shift: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    parity: tuple[Annotated[int, Meta(ge=0, le=1)], Annotated[int, Meta(ge=0, le=1)]] | None = None
    mmm_bonus: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    mmm_read: Annotated[str, Meta(max_length=200)] | None = None
    mmm_value: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    bullets: Annotated[int, Meta(ge=0, le=1000)] | None = None
    bullets_max: Annotated[int, Meta(ge=0, le=1000)] | None = None
    aimed_at: Annotated[str, Meta(max_length=200)] | None = None
    location: Annotated[str, Meta(max_length=200)] | None = None


class ExchangeResolved(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='exchange_resolved'):
    type = 'exchange_resolved'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    kind: Literal['exchange', 'attack']
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    sides: Annotated[tuple[Side, ...], Meta(max_length=1000)]
    min_hit: Annotated[tuple[Annotated[int, Meta(ge=-1000, le=1000)], ...], Meta(max_length=1000)]
    outcome: Annotated[str, Meta(max_length=1000)]
    hits: Annotated[tuple[Hit, ...], Meta(max_length=1000)]
    supersedes: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None
    aim: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    aimed_at: Annotated[str, Meta(max_length=200)] | None = None
    called: Annotated[str, Meta(max_length=200)] | None = None
    called_rd: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    otherwise: Annotated[str, Meta(max_length=1000)] | None = None
    location_affects: Annotated[str, Meta(max_length=1000)] | None = None
    speed: Annotated[tuple[Annotated[int, Meta(ge=-1000000, le=1000000)], ...], Meta(max_length=1000)] | None = None
    avoidance: Annotated[str, Meta(max_length=1000)] | None = None
    strike: Annotated[int, Meta(ge=0, le=1000)] | None = None


class WoundMarked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='wound_marked'):
    type = 'wound_marked'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    combatant: Annotated[str, Meta(max_length=200)]
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    damage: Annotated[int, Meta(ge=-1000000, le=1000000)] | None
    still_ticking: bool = False
    halved_from: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    dealt: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    notes: Annotated[tuple[Annotated[str, Meta(max_length=1000)], ...], Meta(max_length=1000)] = ()


class CombatantKilled(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='combatant_killed'):
    type = 'combatant_killed'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    reason: Annotated[str, Meta(max_length=1000)] = ''


class AdvantageGained(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='advantage_gained'):
    type = 'advantage_gained'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    over: Annotated[str, Meta(max_length=200)]
    modifier: Annotated[int, Meta(ge=-1000, le=1000)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None


class InitiativeRolled(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='initiative_rolled'):
    type = 'initiative_rolled'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    determinant: Annotated[int, Meta(ge=-1000, le=1000)]
    faces: Annotated[tuple[Annotated[int, Meta(ge=-2, le=256)], ...], Meta(max_length=100)]
    surprised: bool = False
    source: Literal['generated', 'entered'] = 'generated'
    stream: Annotated[str, Meta(max_length=200)] | None = None
    draw: Annotated[int, Meta(ge=0, le=4611686018427387904)] | None = None
    fixed: Annotated[tuple[Annotated[int, Meta(ge=-2, le=256)], ...], Meta(max_length=100)] = ()
    discarded: Annotated[tuple[Annotated[int, Meta(ge=0, le=1000)], ...], Meta(max_length=1000)] = ()
    bonus_phases: Annotated[tuple[Annotated[int, Meta(ge=-1000, le=1000)], ...], Meta(max_length=1000)] = ()


class DieBartered(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='die_bartered'):
    type = 'die_bartered'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    traded: Annotated[int, Meta(ge=0, le=1000)]
    altered: Annotated[int, Meta(ge=0, le=1000)]
    direction: Literal[1, -1]
    face_before: Annotated[int, Meta(ge=-2, le=256)]
    face_after: Annotated[int, Meta(ge=-2, le=256)]


class TurnTaken(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='turn_taken'):
    type = 'turn_taken'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    phase: Annotated[int, Meta(ge=-1000000, le=1000000)]
    combatant: Annotated[str, Meta(max_length=200)]
    index: Annotated[int, Meta(ge=0, le=1000)]
    tied_with: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=1000)] = ()
    step: Literal['act', 'declare', 'resolve'] = 'act'
    initiative: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None


class FudgePointSpent(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='fudge_point_spent'):
    type = 'fudge_point_spent'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    use: Literal['panache', 'skill', 'luck', 'scratch', 'ticking']
    target: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    cost: Annotated[int, Meta(ge=0, le=1000)]
    shift: Annotated[int, Meta(ge=-1000, le=1000)] | None = None


class EventsVoided(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='events_voided'):
    type = 'events_voided'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    seqs: Annotated[tuple[Annotated[int, Meta(ge=1, le=4611686018427387904)], ...], Meta(max_length=1000)]
    reason: Annotated[str, Meta(max_length=1000)]


class CommandUndone(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='command_undone'):
    type = 'command_undone'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    target: Annotated[str, Meta(max_length=200)]
    reason: Annotated[str, Meta(max_length=1000)] = 'undo'


class CommandRedone(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='command_redone'):
    type = 'command_redone'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    target: Annotated[str, Meta(max_length=200)]
    restores: Annotated[str, Meta(max_length=200)]


class DieTraded(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='die_traded'):
    type = 'die_traded'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    die: Annotated[int, Meta(ge=0, le=1000)]
    face: Annotated[int, Meta(ge=-2, le=256)]


class DieAltered(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='die_altered'):
    type = 'die_altered'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    die: Annotated[int, Meta(ge=0, le=1000)]
    direction: Literal[1, -1]
    face_before: Annotated[int, Meta(ge=-2, le=256)]
    face_after: Annotated[int, Meta(ge=-2, le=256)]


class TiesOrdered(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='ties_ordered'):
    type = 'ties_ordered'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    order: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=1000)]


class IntentDeclared(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='intent_declared'):
    type = 'intent_declared'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    phase: Annotated[int, Meta(ge=-1000000, le=1000000)]
    combatant: Annotated[str, Meta(max_length=200)]
    what: Annotated[str, Meta(max_length=1000)]
    target: Annotated[str, Meta(max_length=200)] | None = None


class TurnUsed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='turn_used'):
    type = 'turn_used'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    phase: Annotated[int, Meta(ge=-1000000, le=1000000)]
    combatant: Annotated[str, Meta(max_length=200)]
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]


class SpareDieSpent(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='spare_die_spent'):
    type = 'spare_die_spent'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    die: Annotated[int, Meta(ge=0, le=1000)]
    target: Annotated[int, Meta(ge=1, le=4611686018427387904)]


class ShotResolved(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='shot_resolved'):
    type = 'shot_resolved'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    mode: Literal['unaware', 'aware', 'shoot_back']
    weapon: Literal['thrown', 'propelled'] | None = None
    target: Annotated[str, Meta(max_length=200)]
    sides: Annotated[tuple[Side, ...], Meta(max_length=1000)]
    difficulties: Annotated[tuple[Annotated[int, Meta(ge=-1000000, le=1000000)], ...], Meta(max_length=1000)]
    outcome: Annotated[str, Meta(max_length=1000)]
    hits: Annotated[tuple[Hit, ...], Meta(max_length=1000)]
    burst: Annotated[int, Meta(ge=0, le=1000)] | None = None
    burst_bonus: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    supersedes: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None


class ActionHeld(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='action_held'):
    type = 'action_held'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    phase: Annotated[int, Meta(ge=-1000000, le=1000000)]
    combatant: Annotated[str, Meta(max_length=200)]


class HealedMark(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    seq: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    before: Annotated[int, Meta(ge=-1000, le=1000)]
    after: Annotated[int, Meta(ge=-1000, le=1000)]


class WoundsHealed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='wounds_healed'):
    type = 'wounds_healed'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    cause: Literal['end', 'rest', 'skill', 'natural']
    levels: Annotated[int, Meta(ge=0, le=1000)]
    changes: Annotated[tuple[HealedMark, ...], Meta(max_length=1000)]
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None
    healer: Annotated[str, Meta(max_length=200)] | None = None
    trait: Annotated[str, Meta(max_length=200)] | None = None
    skill_level: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    roll: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)] = ()
    result: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    difficulty: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    weeks: Annotated[int, Meta(ge=0, le=1000)] = 0


class StunMarked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='stun_marked'):
    type = 'stun_marked'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    combatant: Annotated[str, Meta(max_length=200)]
    effect: Literal['stun', 'very_stunned', 'knocked_out']
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    dealt: Annotated[int, Meta(ge=-1000, le=1000)]
    notes: Annotated[tuple[Annotated[str, Meta(max_length=1000)], ...], Meta(max_length=1000)] = ()


class BattleEnded(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='battle_ended'):
    type = 'battle_ended'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]


class InitiativeRanked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='initiative_ranked'):
    type = 'initiative_ranked'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    trait: Annotated[str, Meta(max_length=200)]
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)] = ()
    total: Annotated[int, Meta(ge=-1000000, le=1000000)]
    automatic: bool = False
    faces: Annotated[tuple[Annotated[int, Meta(ge=-2, le=256)], ...], Meta(max_length=100)] = ()
    source: Literal['generated', 'entered'] = 'generated'
    stream: Annotated[str, Meta(max_length=200)] | None = None
    draw: Annotated[int, Meta(ge=0, le=4611686018427387904)] | None = None


class WillSteeled(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='will_steeled'):
    type = 'will_steeled'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    levels: Annotated[int, Meta(ge=0, le=1000)]


class Comparison(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    foe: Annotated[str, Meta(max_length=200)]
    lone_result: Annotated[int, Meta(ge=-1000000, le=1000000)]
    lone_modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)] = ()
    foe_result: Annotated[int, Meta(ge=-1000000, le=1000000)]
    relative_degree: Annotated[int, Meta(ge=-1000000, le=1000000)]
    ignored: bool = False
    foe_hits: bool = False
    foe_relative_degree: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    may_wound: bool = False


class MeleeResolved(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='melee_resolved'):
    type = 'melee_resolved'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    lone: Side
    foes: Annotated[tuple[Side, ...], Meta(max_length=1000)]
    comparisons: Annotated[tuple[Comparison, ...], Meta(max_length=1000)]
    target: Annotated[str, Meta(max_length=200)] | None
    sweep: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=1000)] = ()
    sweep_penalty: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    max_foes: Annotated[int, Meta(ge=0, le=1000)]
    min_hit: Annotated[tuple[Annotated[int, Meta(ge=-1000, le=1000)], ...], Meta(max_length=1000)]
    group_roll: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    outcome: Annotated[str, Meta(max_length=1000)]
    hits: Annotated[tuple[Hit, ...], Meta(max_length=1000)]
    supersedes: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None
    target_named: bool = False


class StoryRolled(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='story_rolled'):
    type = 'story_rolled'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    combatant: Annotated[str, Meta(max_length=200)]
    trait: Annotated[str, Meta(max_length=200)]
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)]
    rolls: Annotated[tuple[Annotated[int, Meta(ge=-1000000, le=1000000)], ...], Meta(max_length=1000)]
    results: Annotated[tuple[Annotated[int, Meta(ge=-1000000, le=1000000)], ...], Meta(max_length=1000)]
    result: Annotated[int, Meta(ge=-1000000, le=1000000)]
    median: bool = False
    element: Annotated[str, Meta(max_length=1000)] = ''


class LocationWounded(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='location_wounded'):
    type = 'location_wounded'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    combatant: Annotated[str, Meta(max_length=200)]
    location: Annotated[str, Meta(max_length=200)]
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    wound_level: Annotated[int, Meta(ge=-1000, le=1000)]
    affects: Annotated[str, Meta(max_length=1000)] | None = None


class FateSide(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    combatant: Annotated[str, Meta(max_length=200)]
    skill: Annotated[str, Meta(max_length=200)]
    level: Annotated[int, Meta(ge=-1000, le=1000)]
    roll: Annotated[int, Meta(ge=-1000000, le=1000000)]
    modifiers: Annotated[tuple[Modifier, ...], Meta(max_length=1000)] = ()
    against: Annotated[tuple[tuple[Annotated[str, Meta(max_length=200)], Annotated[tuple[Modifier, ...], Meta(max_length=1000)]], ...], Meta(max_length=1000)] = ()
    target: Annotated[str, Meta(max_length=200)] | None = None
    stance: Literal['attack', 'defensive', 'non_combat', 'defend'] = 'attack'
    maneuver: Annotated[str, Meta(max_length=1000)] | None = None
    maneuver_needs: Annotated[str, Meta(max_length=1000)] = 'clipped'
    maneuver_kind: Literal['plain', 'disarm', 'finesse'] = 'plain'
    non_lethal: bool = False
    clip_used: bool = False


class FateContest(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    attacker: Annotated[str, Meta(max_length=200)]
    defender: Annotated[str, Meta(max_length=200)]
    attacker_result: Annotated[int, Meta(ge=-1000000, le=1000000)]
    defender_result: Annotated[int, Meta(ge=-1000000, le=1000000)]
    margin: Annotated[int, Meta(ge=-1000000, le=1000000)]
    read: Annotated[int, Meta(ge=-1000000, le=1000000)]
    armor_type: Annotated[int, Meta(ge=-1000, le=1000)] = 0
    outcome: Annotated[str, Meta(max_length=1000)]
    maneuver: Annotated[str, Meta(max_length=1000)] | None = None
    note: Annotated[str, Meta(max_length=1000)] = ''


class FateResolved(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='fate_resolved'):
    type = 'fate_resolved'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    pace: Literal['scene', 'exchange', 'turn']
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    sides: Annotated[tuple[FateSide, ...], Meta(max_length=1000)]
    contests: Annotated[tuple[FateContest, ...], Meta(max_length=1000)]
    mode: Literal['contests', 'total'] = 'contests'
    supersedes: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None


class FateBoxMarked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='fate_box_marked'):
    type = 'fate_box_marked'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    combatant: Annotated[str, Meta(max_length=200)]
    outcome: Annotated[str, Meta(max_length=1000)]
    box: Annotated[str, Meta(max_length=200)]
    by: Annotated[str, Meta(max_length=200)] | None = None
    non_lethal: bool = False


class AspectChecked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='aspect_checked'):
    type = 'aspect_checked'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    aspect: Annotated[str, Meta(max_length=200)]
    box: Annotated[int, Meta(ge=0, le=1000)]
    target: Annotated[int, Meta(ge=1, le=4611686018427387904)]


class FateTurnOrder(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='fate_turn_order'):
    type = 'fate_turn_order'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    order: Annotated[tuple[Annotated[str, Meta(max_length=200)], ...], Meta(max_length=1000)]
    keys: Annotated[tuple[tuple[Annotated[int, Meta(ge=-1000000, le=1000000)], Annotated[int, Meta(ge=-1000000, le=1000000)], Annotated[int, Meta(ge=-1000000, le=1000000)]], ...], Meta(max_length=1000)]


class FateSceneEnded(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='fate_scene_ended'):
    type = 'fate_scene_ended'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    scene: Annotated[int, Meta(ge=0, le=4611686018427387904)]


class InjuryRecovered(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='injury_recovered'):
    type = 'injury_recovered'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    mark: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    days: Annotated[int, Meta(ge=0, le=1000)]
    action: Annotated[int, Meta(ge=1, le=4611686018427387904)] | None = None
    healer: Annotated[str, Meta(max_length=200)] | None = None
    skill: Annotated[str, Meta(max_length=200)] | None = None
    level: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    roll: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    result: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    difficulty: Annotated[int, Meta(ge=-1000000, le=1000000)] | None = None
    activity: Literal['rest', 'light'] | None = None


class FateTurnPassed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='fate_turn_passed'):
    type = 'fate_turn_passed'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    combatant: Annotated[str, Meta(max_length=200)]
    behind: Annotated[str, Meta(max_length=200)] | None = None


class ConditionMarked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='condition_marked'):
    type = 'condition_marked'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    condition: Annotated[str, Meta(max_length=200)]
    round: Annotated[int, Meta(ge=0, le=4611686018427387904)]
    rounds: Annotated[int, Meta(ge=0, le=1000)] | None = None
    note: Annotated[str, Meta(max_length=1000)] = ''


class ConditionCleared(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='condition_cleared'):
    type = 'condition_cleared'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    condition: Annotated[str, Meta(max_length=200)]


class CombatantLeft(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='combatant_left'):
    type = 'combatant_left'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    combatant: Annotated[str, Meta(max_length=200)]
    how: Literal['fled', 'surrendered', 'left'] = 'left'


class RulesetEvent(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type", tag='ruleset_event'):
    type = 'ruleset_event'
    v: Annotated[int, Meta(ge=1, le=1000)] = 1
    ruleset: Annotated[str, Meta(max_length=200)]
    kind: Annotated[str, Meta(max_length=200)]
    data: dict[str, Any]


Event = FightStarted | BranchStarted | SeedCommitted | SeedRevealed | CombatantJoined | RoundStarted | Declared | DeclarationSealed | DeclarationRevealed | DiceRolled | ActionResolved | ExchangeResolved | WoundMarked | CombatantKilled | AdvantageGained | InitiativeRolled | DieBartered | TurnTaken | FudgePointSpent | EventsVoided | CommandUndone | CommandRedone | DieTraded | DieAltered | TiesOrdered | IntentDeclared | TurnUsed | SpareDieSpent | ShotResolved | ActionHeld | WoundsHealed | StunMarked | BattleEnded | InitiativeRanked | WillSteeled | MeleeResolved | StoryRolled | LocationWounded | FateResolved | FateBoxMarked | AspectChecked | FateTurnOrder | FateSceneEnded | InjuryRecovered | FateTurnPassed | ConditionMarked | ConditionCleared | CombatantLeft | RulesetEvent


class Recorded(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    fight: Annotated[str, Meta(max_length=200)]
    seq: Annotated[int, Meta(ge=1, le=4611686018427387904)]
    command: Annotated[str, Meta(max_length=200)]
    issued: dict[str, Any] | None = None
    at: Annotated[str, Meta(max_length=200)]
    schema_version: Annotated[int, Meta(ge=1, le=1000)] = field(default=2, name='schema')
    prev: Annotated[str, Meta(max_length=200)]
    event: Event


VOIDING = (EventsVoided, CommandUndone, CommandRedone)  # the events that void others (events.models.VOIDING)

# each struct's model, by its module's name (events.decoder.structs)
MODELS: dict[type[Struct], str] = {
    FightStarted: 'fudge_combat.events.models.FightStarted',
    BranchStarted: 'fudge_combat.events.models.BranchStarted',
    SeedCommitted: 'fudge_combat.events.models.SeedCommitted',
    SeedRevealed: 'fudge_combat.events.models.SeedRevealed',
    CombatantJoined: 'fudge_combat.events.models.CombatantJoined',
    RoundStarted: 'fudge_combat.events.models.RoundStarted',
    Declaration: 'fudge_combat.events.declaration.Declaration',
    Declared: 'fudge_combat.events.models.Declared',
    DeclarationSealed: 'fudge_combat.events.models.DeclarationSealed',
    DeclarationRevealed: 'fudge_combat.events.models.DeclarationRevealed',
    DiceRolled: 'fudge_combat.events.models.DiceRolled',
    Modifier: 'fudge_combat.events.models.Modifier',
    ActionResolved: 'fudge_combat.events.models.ActionResolved',
    Side: 'fudge_combat.events.models.Side',
    Hit: 'fudge_combat.events.models.Hit',
    ExchangeResolved: 'fudge_combat.events.models.ExchangeResolved',
    WoundMarked: 'fudge_combat.events.models.WoundMarked',
    CombatantKilled: 'fudge_combat.events.models.CombatantKilled',
    AdvantageGained: 'fudge_combat.events.models.AdvantageGained',
    InitiativeRolled: 'fudge_combat.events.models.InitiativeRolled',
    DieBartered: 'fudge_combat.events.models.DieBartered',
    TurnTaken: 'fudge_combat.events.models.TurnTaken',
    FudgePointSpent: 'fudge_combat.events.models.FudgePointSpent',
    EventsVoided: 'fudge_combat.events.models.EventsVoided',
    CommandUndone: 'fudge_combat.events.models.CommandUndone',
    CommandRedone: 'fudge_combat.events.models.CommandRedone',
    DieTraded: 'fudge_combat.events.models.DieTraded',
    DieAltered: 'fudge_combat.events.models.DieAltered',
    TiesOrdered: 'fudge_combat.events.models.TiesOrdered',
    IntentDeclared: 'fudge_combat.events.models.IntentDeclared',
    TurnUsed: 'fudge_combat.events.models.TurnUsed',
    SpareDieSpent: 'fudge_combat.events.models.SpareDieSpent',
    ShotResolved: 'fudge_combat.events.models.ShotResolved',
    ActionHeld: 'fudge_combat.events.models.ActionHeld',
    HealedMark: 'fudge_combat.events.models.HealedMark',
    WoundsHealed: 'fudge_combat.events.models.WoundsHealed',
    StunMarked: 'fudge_combat.events.models.StunMarked',
    BattleEnded: 'fudge_combat.events.models.BattleEnded',
    InitiativeRanked: 'fudge_combat.events.models.InitiativeRanked',
    WillSteeled: 'fudge_combat.events.models.WillSteeled',
    Comparison: 'fudge_combat.events.models.Comparison',
    MeleeResolved: 'fudge_combat.events.models.MeleeResolved',
    StoryRolled: 'fudge_combat.events.models.StoryRolled',
    LocationWounded: 'fudge_combat.events.models.LocationWounded',
    FateSide: 'fudge_combat.events.models.FateSide',
    FateContest: 'fudge_combat.events.models.FateContest',
    FateResolved: 'fudge_combat.events.models.FateResolved',
    FateBoxMarked: 'fudge_combat.events.models.FateBoxMarked',
    AspectChecked: 'fudge_combat.events.models.AspectChecked',
    FateTurnOrder: 'fudge_combat.events.models.FateTurnOrder',
    FateSceneEnded: 'fudge_combat.events.models.FateSceneEnded',
    InjuryRecovered: 'fudge_combat.events.models.InjuryRecovered',
    FateTurnPassed: 'fudge_combat.events.models.FateTurnPassed',
    ConditionMarked: 'fudge_combat.events.models.ConditionMarked',
    ConditionCleared: 'fudge_combat.events.models.ConditionCleared',
    CombatantLeft: 'fudge_combat.events.models.CombatantLeft',
    RulesetEvent: 'fudge_combat.events.models.RulesetEvent',
    Recorded: 'fudge_combat.events.envelope.Recorded',
}
