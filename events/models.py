"""Every event type: a frozen pydantic model with a stable `type` tag and a version.

Names are past tense. Payloads hold tuples, never lists or dicts someone could
mutate (frozen is shallow). Nothing here is a Python class path: the tag is
the contract, so classes can be renamed freely. A change to a payload's shape
bumps its `v` and adds an upcaster in `events.upcast`.

Stored bodies leave out fields equal to their defaults (events.envelope, schema 2), so a
field's default is part of the stored format: it never changes (a new field may be added with
any default). Changing one is a change of shape: a new `v`, and an upcaster that writes the
old default into older payloads that left it out (tests/test_stored_rows.py holds every default).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    v: int = 1


class Modifier(BaseModel):
    """A named contribution to a result (C-ACT-1)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    name: str
    value: int


# --- fight lifecycle ---------------------------------------------------------

class FightStarted(_Event):
    type: Literal["fight_started"] = "fight_started"
    name: str
    rules: str
    options: dict[str, Any]
    seed_commitment: str
    stream: str


class BranchStarted(_Event):
    """A-BRANCH-1: the first event of a branch's own history, after the parent's prefix."""

    type: Literal["branch_started"] = "branch_started"
    name: str
    parent: str
    fork_seq: int
    seed_commitment: str
    stream: str


class SeedCommitted(_Event):
    """A-FAIR-1: a new secret seed's hash; later generated rolls derive from it."""

    type: Literal["seed_committed"] = "seed_committed"
    seed_commitment: str
    stream: str
    reason: str


class SeedRevealed(_Event):
    type: Literal["seed_revealed"] = "seed_revealed"
    seed_commitment: str
    seed: str


class CombatantJoined(_Event):
    type: Literal["combatant_joined"] = "combatant_joined"
    combatant: str
    side: str
    sheet: dict[str, Any]
    source: str


class RoundStarted(_Event):
    type: Literal["round_started"] = "round_started"
    round: int
    surprised: tuple[str, ...] = ()


# --- declarations (F-MOD-6, F-MOD-7, F-TAC, A-SEAL) ---------------------------------

class Declaration(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    all_out: Literal["offense", "defense"] | None = None
    posture: int | None = None
    # --- atari isev and rolled initiative (AI-WAIT, F-INIT-3, AI-MULTI-ATK, AI-MULTI-AVD, AI-SWEEP) ---
    wait: int | None = None  # initiative change -2..+2: + hurries, - waits
    hasty: bool = False
    two_attacks: bool = False
    two_avoidances: Literal["dodge-dodge", "parry-parry", "dodge-parry"] | None = None
    sweep: bool = False


class Declared(_Event):
    type: Literal["declared"] = "declared"
    combatant: str
    round: int
    declaration: Declaration


class DeclarationSealed(_Event):
    """A-SEAL-1: only a hash of the choice and a salt; the choice stays secret."""

    type: Literal["declaration_sealed"] = "declaration_sealed"
    combatant: str
    round: int
    seal: str


class DeclarationRevealed(_Event):
    type: Literal["declaration_revealed"] = "declaration_revealed"
    combatant: str
    round: int
    declaration: Declaration
    salt: str


# --- dice and actions --------------------------------------------------------

class DiceRolled(_Event):
    """C-DICE-2: every die of a roll, and whether it was generated or entered."""

    type: Literal["dice_rolled"] = "dice_rolled"
    action: int
    roller: str
    purpose: str
    faces: tuple[int, ...]
    source: Literal["generated", "entered"]
    stream: str | None = None
    draw: int | None = None
    sides: int | None = None  # None: Fudge dice; 6: the d6 of a min-mid-max damage roll (F-MMM)
    substitute: str | None = None  # C-DICE-4: the 3d6 or d% typed, read on the chart as these faces


class ActionResolved(_Event):
    """C-ACT-1, C-ACT-2, C-ACT-3, C-ACT-4: a trait roll, unopposed (vs a difficulty) or opposed."""

    type: Literal["action_resolved"] = "action_resolved"
    action: int
    combatant: str
    trait: str
    level: int
    roll: int
    modifiers: tuple[Modifier, ...]
    result: int
    difficulty: int | None = None
    opponent: str | None = None
    opponent_trait: str | None = None
    opponent_level: int | None = None
    opponent_roll: int | None = None
    opponent_modifiers: tuple[Modifier, ...] = ()
    opponent_result: int | None = None
    margin: int
    success: bool
    automatic: bool = False
    advantage: bool = False
    supersedes: int | None = None
    median_of: tuple[int, ...] = ()  # C-ACT-5: the three rolls' dice totals; `roll` is their median


class Side(BaseModel):
    """One fighter's part in an exchange or an attack."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: str
    trait: str
    level: int
    roll: int | None
    modifiers: tuple[Modifier, ...]
    result: int | None
    offense: int | None = None
    defense: int | None = None
    declaration: Declaration = Declaration()
    stun: bool = False  # F-STUN-1: this fighter's blows stun instead of wounding
    pull: int | None = None  # F-STUN-2: the worst wound level this fighter's blows may do
    head: bool = False  # F-STUN-3: this fighter aims at the head
    weapon: str | None = None  # atari-isev: "main", "off-hand" or "unarmed" (None: the sheet's weapon)


class Hit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    attacker: str
    defender: str
    relative_degree: int
    damage_factor: int
    bonus: int
    graze: bool
    calculated: int
    damage_roll: int | None
    damage: int | None
    level: int
    # Set only where the rule that makes them is in use (an older blow reads None everywhere):
    offensive: int | None = None  # F-DMG-1 and F-DMG-2: the two sides of the damage factor
    defensive: int | None = None
    tech: int | None = None  # F-TECH: weapon tech minus armor tech, counted in the factor
    rd_weight: int | None = None  # F-DMG-4 `doubled`: times the relative degree counted
    damage_roll_mode: str | None = None  # F-DROLL: 1dF_damage, 1dF_level, parity, 4dF_free
    level_shift: int | None = None  # F-DROLL 1dF_level: levels the roll moved the wound
    parity: tuple[int, int] | None = None  # F-DROLL parity: (+ offensive, + defensive) from even action rolls
    mmm_bonus: int | None = None  # F-MMM: factor bonus + relative-degree bonus
    mmm_read: str | None = None  # F-MMM: min, mid, max, max+min or sum
    mmm_value: int | None = None  # F-MMM: the dice read, before the all-out bonus
    bullets: int | None = None  # F-RNG-5: bullets on target
    bullets_max: int | None = None  # F-RNG-5: the burst's maximum on target
    aimed_at: str | None = None  # F-HIT-2, F-LOC-1: the part the attacker aimed at
    location: str | None = None  # the part the blow struck, when it reached the aimed part


class ExchangeResolved(_Event):
    """F-MEL, F-TAC-4, F-PACE-3: who hit whom, and how hard."""

    type: Literal["exchange_resolved"] = "exchange_resolved"
    action: int
    kind: Literal["exchange", "attack"]
    round: int
    sides: tuple[Side, ...]
    min_hit: tuple[int, ...]
    outcome: str
    hits: tuple[Hit, ...]
    supersedes: int | None = None
    aim: int | None = None  # F-HIT-2: the result the first fighter needs to strike the part he aims at
    aimed_at: str | None = None
    called: str | None = None  # F-LOC-1: the part the first fighter called before the roll
    called_rd: int | None = None  # the relative degree the GM required for it
    otherwise: str | None = None  # where the defender says a called shot won by less lands
    location_affects: str | None = None  # F-LOC-2: what a wounded part hinders (`combat` or a trait)
    speed: tuple[int, ...] | None = None  # F-FANCY-1: the two Speed results of a speed contest
    avoidance: str | None = None  # AI-ATK: dodge, parry, dodge-parry, none, surrendered, used
    strike: int | None = None  # AI-MULTI-ATK, AI-SWEEP: which of the round's blows


class ShotResolved(_Event):
    """F-RNG-1, F-RNG-2, F-RNG-3, F-RNG-4, F-RNG-5: a ranged attack, unopposed (unaware target, or both shooting), or opposed by a dodge."""

    type: Literal["shot_resolved"] = "shot_resolved"
    action: int
    round: int
    mode: Literal["unaware", "aware", "shoot_back"]
    weapon: Literal["thrown", "propelled"] | None = None
    target: str
    sides: tuple[Side, ...]  # the shooter; then the dodger, or the target shooting back
    difficulties: tuple[int, ...]  # the result each shooter needs to hit (F-RNG-1, F-RNG-2)
    outcome: str
    hits: tuple[Hit, ...]
    burst: int | None = None  # F-RNG-5: bullets on target at relative degree +8
    burst_bonus: int | None = None  # F-RNG-5: the GM's damage bonus for the bullets (None: one per doubling)
    supersedes: int | None = None  # a fudge point re-resolved the shot (C-FP-2)


class WoundMarked(_Event):
    """F-WND-3: a wound of `level` marked on the track (the box follows from the track)."""

    type: Literal["wound_marked"] = "wound_marked"
    action: int
    combatant: str
    level: int
    damage: int | None
    still_ticking: bool = False
    halved_from: int | None = None
    dealt: int | None = None  # the hit's level before F-DEATH / F-STUN-2 / F-DC adjusted it
    notes: tuple[str, ...] = ()  # each adjustment, with its rule ID


class LocationWounded(_Event):
    """F-LOC-2: a wound of one body part: 1 Scratched, 2 Hurt, 3 Incapacitated."""

    type: Literal["location_wounded"] = "location_wounded"
    action: int
    combatant: str
    location: str
    level: int
    wound_level: int  # the blow's level on the wound track, before it became the part's
    affects: str | None = None


class CombatantKilled(_Event):
    """F-WND-6 `gm`: only the GM's explicit ruling marks a combatant Dead."""

    type: Literal["combatant_killed"] = "combatant_killed"
    combatant: str
    reason: str = ""


class AdvantageGained(_Event):
    """F-MOD-7: a won all-out defense and a Perception roll give the foe -1 next round."""

    type: Literal["advantage_gained"] = "advantage_gained"
    combatant: str
    over: str
    modifier: int
    round: int
    action: int | None = None  # the roll that won it, so a fudge point spent on that roll can re-decide it


# --- phase initiative (PH, CT) ------------------------------------------------

class InitiativeRolled(_Event):
    type: Literal["initiative_rolled"] = "initiative_rolled"
    combatant: str
    round: int
    determinant: int
    faces: tuple[int, ...]
    surprised: bool = False
    source: Literal["generated", "entered"] = "generated"
    stream: str | None = None
    draw: int | None = None
    fixed: tuple[int, ...] = ()  # CT-TABLE, PC-DICE: frozen faces, after the rolled ones
    discarded: tuple[int, ...] = ()  # PC-DICE, CT-GIFT: dice (indexes) set aside before bartering
    bonus_phases: tuple[int, ...] = ()  # CT-GIFT Quick Reflexes


class DieBartered(_Event):
    """PH-6: each traded and each altered die is recorded."""

    type: Literal["die_bartered"] = "die_bartered"
    combatant: str
    round: int
    traded: int
    altered: int
    direction: Literal[1, -1]
    face_before: int
    face_after: int


class TurnTaken(_Event):
    """The next actor in phase order (PH-1, PH-3)."""

    type: Literal["turn_taken"] = "turn_taken"
    round: int
    phase: int
    combatant: str
    index: int
    tied_with: tuple[str, ...] = ()
    step: Literal["act", "declare", "resolve"] = "act"  # PH-4 `structured` splits a phase in two
    initiative: int | None = None  # rolled initiative (F-INIT-2, AI-INIT-2): the slot's total; ties act together


class DieTraded(_Event):
    """PH-6, PC-BARTER-1: one die traded in (it leaves play)."""

    type: Literal["die_traded"] = "die_traded"
    combatant: str
    round: int
    die: int
    face: int


class DieAltered(_Event):
    """PH-6, PC-BARTER-1: the die the trade moves one level."""

    type: Literal["die_altered"] = "die_altered"
    combatant: str
    round: int
    die: int
    direction: Literal[1, -1]
    face_before: int
    face_after: int


class TiesOrdered(_Event):
    """PH-3: the GM's order of combatants tied on the determinant, for this round."""

    type: Literal["ties_ordered"] = "ties_ordered"
    round: int
    order: tuple[str, ...]


class IntentDeclared(_Event):
    """PH-4 `structured`: what a combatant will do in this phase, declared slowest first."""

    type: Literal["intent_declared"] = "intent_declared"
    round: int
    phase: int
    combatant: str
    what: str
    target: str | None = None


class TurnUsed(_Event):
    """A roll that is the actor's action in this phase (an attack marks its turn by itself)."""

    type: Literal["turn_used"] = "turn_used"
    round: int
    phase: int
    combatant: str
    action: int


class ActionHeld(_Event):
    """PH-4 `open`: the actor waits until the others in the phase have acted."""

    type: Literal["action_held"] = "action_held"
    round: int
    phase: int
    combatant: str


class SpareDieSpent(_Event):
    """CT-SPARE: a spare initiative die spent as +1 to one roll, once this round."""

    type: Literal["spare_die_spent"] = "spare_die_spent"
    combatant: str
    round: int
    die: int
    target: int


# --- rolled initiative (F-INIT-2, F-INIT-3, AI-INIT-2) -------------------------

class InitiativeRanked(_Event):
    """Everyone rolls, order by total: one combatant's roll (or automatic initiative) for the round."""

    type: Literal["initiative_ranked"] = "initiative_ranked"
    combatant: str
    round: int
    trait: str
    level: int
    modifiers: tuple[Modifier, ...] = ()
    total: int
    automatic: bool = False
    faces: tuple[int, ...] = ()
    source: Literal["generated", "entered"] = "generated"
    stream: str | None = None
    draw: int | None = None


class WillSteeled(_Event):
    """AI-WILL-1: each level above Fair of a Will roll lowers the effective wound status for the scene."""

    type: Literal["will_steeled"] = "will_steeled"
    combatant: str
    action: int
    levels: int


# --- fudge points (C-FP) ------------------------------------------------------

class FudgePointSpent(_Event):
    type: Literal["fudge_point_spent"] = "fudge_point_spent"
    combatant: str
    use: Literal["panache", "skill", "luck", "scratch", "ticking"]
    target: int
    cost: int
    shift: int | None = None


# --- time travel (A-UNDO) -----------------------------------------------------

class EventsVoided(_Event):
    """The consequences a re-resolution replaces: voided, never deleted."""

    type: Literal["events_voided"] = "events_voided"
    seqs: tuple[int, ...]
    reason: str


class CommandUndone(_Event):
    type: Literal["command_undone"] = "command_undone"
    target: str
    reason: str = "undo"


class CommandRedone(_Event):
    """Redo voids the undo: the undone command's events count again."""

    type: Literal["command_redone"] = "command_redone"
    target: str
    restores: str


# --- several combatants, story elements (F-MULTI, F-PACE-1) ------------------

class Comparison(BaseModel):
    """F-MULTI-2: the lone fighter's one result against one foe's result."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    foe: str
    lone_result: int  # the lone fighter's result (offense, under postures) against this foe, his shield counted
    lone_modifiers: tuple[Modifier, ...] = ()  # what this foe alone changes in the lone fighter's result
    foe_result: int  # the foe's result (defense, under postures)
    relative_degree: int  # lone_result - foe_result
    ignored: bool = False  # F-MULTI-5: the lone fighter does not defend against this foe
    foe_hits: bool = False
    foe_relative_degree: int | None = None  # the foe's attack against him (against Poor when ignored)
    may_wound: bool = False  # F-MULTI-3: the lone fighter could wound this foe


class MeleeResolved(_Event):
    """F-MULTI-1, F-MULTI-2, F-MULTI-3, F-MULTI-4, F-MULTI-5, F-MULTI-6, F-MULTI-7: a lone fighter's one roll against several foes, compared one by one."""

    type: Literal["melee_resolved"] = "melee_resolved"
    action: int
    round: int
    lone: Side
    foes: tuple[Side, ...]
    comparisons: tuple[Comparison, ...]
    target: str | None
    sweep: tuple[str, ...] = ()
    sweep_penalty: int = 0
    max_foes: int
    min_hit: tuple[int, ...]  # the lone fighter's minimum hit level against each foe, in order
    group_roll: int | None = None  # F-MULTI-7: the GM's 2dF applied to every NPC
    outcome: str
    hits: tuple[Hit, ...]
    supersedes: int | None = None
    target_named: bool = False  # the GM named the target before the roll (else the rule chose it)


class StoryRolled(_Event):
    """F-PACE-1, C-ACT-5: a story element's roll (or median of three); the GM narrates the outcome."""

    type: Literal["story_rolled"] = "story_rolled"
    action: int
    combatant: str
    trait: str
    level: int
    modifiers: tuple[Modifier, ...]
    rolls: tuple[int, ...]  # the dice total of each roll, in order
    results: tuple[int, ...]
    result: int  # the one result, or the median of three
    median: bool = False
    element: str = ""


# --- what wounds become: healing, stun (F-HEAL, F-STUN) ---------------------------

class HealedMark(BaseModel):
    """One wound mark's level before and after healing (0: healed)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    seq: int
    before: int
    after: int


class WoundsHealed(_Event):
    """F-HEAL-1, F-HEAL-2, F-HEAL-3, F-HEAL-4: marks healed, each from its original level; the track is placed again."""

    type: Literal["wounds_healed"] = "wounds_healed"
    combatant: str
    cause: Literal["end", "rest", "skill", "natural"]
    levels: int
    changes: tuple[HealedMark, ...]
    action: int | None = None  # the healing or Constitution roll, if any
    healer: str | None = None
    trait: str | None = None
    skill_level: int | None = None
    roll: int | None = None
    modifiers: tuple[Modifier, ...] = ()
    result: int | None = None
    difficulty: int | None = None
    weeks: int = 0


class StunMarked(_Event):
    """F-STUN-1, F-STUN-3: a stunning blow (Stun, Very Stunned, knocked out) instead of a wound."""

    type: Literal["stun_marked"] = "stun_marked"
    action: int
    combatant: str
    effect: Literal["stun", "very_stunned", "knocked_out"]
    round: int
    dealt: int
    notes: tuple[str, ...] = ()


class BattleEnded(_Event):
    """F-HEAL-1, F-STUN-1: the fight is over; stun marks clear (scratches go by WoundsHealed)."""

    type: Literal["battle_ended"] = "battle_ended"
    round: int


# --- fate (FT) ------------------------------------------------------------------

class FateSide(BaseModel):
    """One combatant's roll in a Fate exchange, scene or attack, with what he declared."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: str
    skill: str
    level: int
    roll: int
    modifiers: tuple[Modifier, ...] = ()
    against: tuple[tuple[str, tuple[Modifier, ...]], ...] = ()  # FT-MOD: modifiers against one foe only
    target: str | None = None
    stance: Literal["attack", "defensive", "non_combat", "defend"] = "attack"  # FT-DEF-1, FT-DEF-2
    maneuver: str | None = None  # FT-MANEUVER: taken instead of the harm
    maneuver_needs: str = "clipped"
    maneuver_kind: Literal["plain", "disarm", "finesse"] = "plain"
    non_lethal: bool = False  # FT-HEAL-1
    clip_used: bool = False  # FT-TRACK-3: the clipped -1 this roll took


class FateContest(BaseModel):
    """One comparison: the winner's margin, read as an outcome (FT-OUT, FT-SIMPLE, FT-ADV)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    attacker: str
    defender: str
    attacker_result: int
    defender_result: int
    margin: int
    read: int  # the number read on the table (margin, + weapon - armor under simple arms)
    armor_type: int = 0
    outcome: str  # none, or an FT-OUT outcome
    maneuver: str | None = None
    note: str = ""


class FateResolved(_Event):
    """FT-PACE: an exchange, a scene's rolls, or one attack in turn pace, compared and read."""

    type: Literal["fate_resolved"] = "fate_resolved"
    action: int
    pace: Literal["scene", "exchange", "turn"]
    round: int
    sides: tuple[FateSide, ...]
    contests: tuple[FateContest, ...]
    mode: Literal["contests", "total"] = "contests"  # FT-PACE scene: paired sub-fights or the total difference
    supersedes: int | None = None


class FateBoxMarked(_Event):
    """FT-TRACK-2: an outcome marked, in the box it overflowed to."""

    type: Literal["fate_box_marked"] = "fate_box_marked"
    action: int
    combatant: str
    outcome: str
    box: str
    by: str | None = None
    non_lethal: bool = False


class AspectChecked(_Event):
    """FT-PTS: an aspect's box checked for a reroll of one roll."""

    type: Literal["aspect_checked"] = "aspect_checked"
    combatant: str
    aspect: str
    box: int
    target: int


class FateTurnOrder(_Event):
    """FT-INIT: the round's order: rolled Alertness, then Tactics, then the combat skill (each key in that order)."""

    type: Literal["fate_turn_order"] = "fate_turn_order"
    round: int
    order: tuple[str, ...]
    keys: tuple[tuple[int, int, int], ...]


class FateTurnPassed(_Event):
    """FT-INIT (a reading, engine.fate): the actor gives up his turn in this round's order. Passed
    (`behind` None): the turn is used with no action. Held: he acts after `behind`, the next fighter
    who still has a turn this round."""

    type: Literal["fate_turn_passed"] = "fate_turn_passed"
    round: int
    combatant: str
    behind: str | None = None


class FateSceneEnded(_Event):
    """FT-TRACK-3, FT-HEAL-1: clipped, hurt and taken out clear; injuries stay (non-lethal ones heal)."""

    type: Literal["fate_scene_ended"] = "fate_scene_ended"
    scene: int


class InjuryRecovered(_Event):
    """FT-HEAL-1: an Injured box clears after the days the recovery takes."""

    type: Literal["injury_recovered"] = "injury_recovered"
    combatant: str
    mark: int
    days: int
    action: int | None = None
    healer: str | None = None
    skill: str | None = None
    level: int | None = None
    roll: int | None = None
    result: int | None = None
    difficulty: int | None = None
    activity: Literal["rest", "light"] | None = None


Event = Annotated[
    Union[
        FightStarted, BranchStarted, SeedCommitted, SeedRevealed, CombatantJoined, RoundStarted,
        Declared, DeclarationSealed, DeclarationRevealed, DiceRolled, ActionResolved,
        ExchangeResolved, WoundMarked, CombatantKilled, AdvantageGained, InitiativeRolled, DieBartered, TurnTaken,
        FudgePointSpent, EventsVoided, CommandUndone, CommandRedone,
        DieTraded, DieAltered, TiesOrdered, IntentDeclared, TurnUsed, SpareDieSpent, ShotResolved, ActionHeld,
        WoundsHealed, StunMarked, BattleEnded, InitiativeRanked, WillSteeled,
        MeleeResolved, StoryRolled, LocationWounded,
        FateResolved, FateBoxMarked, AspectChecked, FateTurnOrder, FateSceneEnded, InjuryRecovered,
        FateTurnPassed,
    ],
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=ConfigDict(defer_build=True))
VOIDING = (EventsVoided, CommandUndone, CommandRedone)
