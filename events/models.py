"""Every event type: a frozen pydantic model with a stable `type` tag and a version: the schema of the log.

The engine decides, folds and shows the same events as msgspec structs written from these models
(events.derive writes events/structs.py; events.records reads and writes them). The models are the one
schema the structs come from, the reader of last resort for a body the structs' decoder refuses, and what
the tests hold every stored body against.

Names are past tense. Payloads hold tuples, never lists or dicts someone could
mutate (frozen is shallow). Nothing here is a Python class path: the tag is
the contract, so classes can be renamed freely. A change to a payload's shape
bumps its `v` and adds an upcaster in `events.upcast`.

Stored bodies leave out fields equal to their defaults (events.envelope, schema 2), so a
field's default is part of the stored format: it never changes (a new field may be added with
any default). Changing one is a change of shape: a new `v`, and an upcaster that writes the
old default into older payloads that left it out (tests/test_stored_rows.py holds every default).

Every number, text and list of a payload is bounded (events.bounds: a die's face, an event's number, a
name, a count): a log re-hashed after an edit is refused where it passes a bound, as any altered event,
before a rule counts or allocates on it. A bound is a constraint, not a shape: the stored format is the
same, and a new field takes one too (tests/test_event_bounds.py finds every field without one).
"""

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from fudge_combat.events.bounds import Bit, Count, Faces, Face, Items, Note, Number, Seq, Serial, Sides, Text, Total, Version
from fudge_combat.events.declaration import Declaration  # in a module of its own: commands carry one too


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    v: Version = 1


class Modifier(BaseModel):
    """A named contribution to a result (C-ACT-1)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    name: Note
    value: Total


# --- fight lifecycle ---------------------------------------------------------

class FightStarted(_Event):
    type: Literal["fight_started"] = "fight_started"
    name: Text
    rules: Text
    options: dict[str, Any]
    seed_commitment: Text
    stream: Text


class BranchStarted(_Event):
    """A-BRANCH-1: the first event of a branch's own history, after the parent's prefix."""

    type: Literal["branch_started"] = "branch_started"
    name: Text
    parent: Text
    fork_seq: Seq
    seed_commitment: Text
    stream: Text


class SeedCommitted(_Event):
    """A-FAIR-1: a new secret seed's hash; later generated rolls derive from it."""

    type: Literal["seed_committed"] = "seed_committed"
    seed_commitment: Text
    stream: Text
    reason: Note


class SeedRevealed(_Event):
    type: Literal["seed_revealed"] = "seed_revealed"
    seed_commitment: Text
    seed: Text


class CombatantJoined(_Event):
    type: Literal["combatant_joined"] = "combatant_joined"
    combatant: Text
    side: Text
    sheet: dict[str, Any]
    source: Note


class RoundStarted(_Event):
    type: Literal["round_started"] = "round_started"
    round: Serial
    surprised: Items[Text] = ()


# --- declarations (F-MOD-6, F-MOD-7, F-TAC, A-SEAL) ---------------------------------



class Declared(_Event):
    type: Literal["declared"] = "declared"
    combatant: Text
    round: Serial
    declaration: Declaration


class DeclarationSealed(_Event):
    """A-SEAL-1: only a hash of the choice and a salt; the choice stays secret."""

    type: Literal["declaration_sealed"] = "declaration_sealed"
    combatant: Text
    round: Serial
    seal: Text


class DeclarationRevealed(_Event):
    type: Literal["declaration_revealed"] = "declaration_revealed"
    combatant: Text
    round: Serial
    declaration: Declaration
    salt: Text


# --- dice and actions --------------------------------------------------------

class DiceRolled(_Event):
    """C-DICE-2: every die of a roll, and whether it was generated or entered."""

    type: Literal["dice_rolled"] = "dice_rolled"
    action: Seq
    roller: Text
    purpose: Note
    faces: Faces
    source: Literal["generated", "entered"]
    stream: Text | None = None
    draw: Serial | None = None
    sides: Sides | None = None  # None: Fudge dice; 6: the d6 of a min-mid-max damage roll (F-MMM)
    substitute: Text | None = None  # C-DICE-4: the 3d6 or d% typed, read on the chart as these faces


class ActionResolved(_Event):
    """C-ACT-1, C-ACT-2, C-ACT-3, C-ACT-4: a trait roll, unopposed (vs a difficulty) or opposed."""

    type: Literal["action_resolved"] = "action_resolved"
    action: Seq
    combatant: Text
    trait: Text
    level: Number
    roll: Total
    modifiers: Items[Modifier]
    result: Total
    difficulty: Total | None = None
    opponent: Text | None = None
    opponent_trait: Text | None = None
    opponent_level: Number | None = None
    opponent_roll: Total | None = None
    opponent_modifiers: Items[Modifier] = ()
    opponent_result: Total | None = None
    margin: Total
    success: bool
    automatic: bool = False
    advantage: bool = False
    supersedes: Seq | None = None
    median_of: Items[Total] = ()  # C-ACT-5: the three rolls' dice totals; `roll` is their median


class Side(BaseModel):
    """One fighter's part in an exchange or an attack."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: Text
    trait: Text
    level: Number
    roll: Total | None
    modifiers: Items[Modifier]
    result: Total | None
    offense: Total | None = None
    defense: Total | None = None
    declaration: Declaration = Declaration()
    stun: bool = False  # F-STUN-1: this fighter's blows stun instead of wounding
    pull: Number | None = None  # F-STUN-2: the worst wound level this fighter's blows may do
    head: bool = False  # F-STUN-3: this fighter aims at the head
    weapon: Text | None = None  # atari-isev: "main", "off-hand" or "unarmed" (None: the sheet's weapon)


class Hit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    attacker: Text
    defender: Text
    relative_degree: Total
    damage_factor: Total
    bonus: Total
    graze: bool
    calculated: Total
    damage_roll: Total | None
    damage: Total | None
    level: Number
    # Set only where the rule that makes them is in use (an older blow reads None everywhere):
    offensive: Total | None = None  # F-DMG-1 and F-DMG-2: the two sides of the damage factor
    defensive: Total | None = None
    tech: Number | None = None  # F-TECH: weapon tech minus armor tech, counted in the factor
    rd_weight: Number | None = None  # F-DMG-4 `doubled`: times the relative degree counted
    damage_roll_mode: Text | None = None  # F-DROLL: 1dF_damage, 1dF_level, parity, 4dF_free
    level_shift: Number | None = None  # F-DROLL 1dF_level: levels the roll moved the wound
    parity: tuple[Bit, Bit] | None = None  # F-DROLL parity: (+ offensive, + defensive) from even action rolls
    mmm_bonus: Number | None = None  # F-MMM: factor bonus + relative-degree bonus
    mmm_read: Text | None = None  # F-MMM: min, mid, max, max+min or sum
    mmm_value: Total | None = None  # F-MMM: the dice read, before the all-out bonus
    bullets: Count | None = None  # F-RNG-5: bullets on target
    bullets_max: Count | None = None  # F-RNG-5: the burst's maximum on target
    aimed_at: Text | None = None  # F-HIT-2, F-LOC-1: the part the attacker aimed at
    location: Text | None = None  # the part the blow struck, when it reached the aimed part


class ExchangeResolved(_Event):
    """F-MEL, F-TAC-4, F-PACE-3: who hit whom, and how hard."""

    type: Literal["exchange_resolved"] = "exchange_resolved"
    action: Seq
    kind: Literal["exchange", "attack"]
    round: Serial
    sides: Items[Side]
    min_hit: Items[Number]
    outcome: Note
    hits: Items[Hit]
    supersedes: Seq | None = None
    aim: Total | None = None  # F-HIT-2: the result the first fighter needs to strike the part he aims at
    aimed_at: Text | None = None
    called: Text | None = None  # F-LOC-1: the part the first fighter called before the roll
    called_rd: Number | None = None  # the relative degree the GM required for it
    otherwise: Note | None = None  # where the defender says a called shot won by less lands
    location_affects: Note | None = None  # F-LOC-2: what a wounded part hinders (`combat` or a trait)
    speed: Items[Total] | None = None  # F-FANCY-1: the two Speed results of a speed contest
    avoidance: Note | None = None  # AI-ATK: dodge, parry, dodge-parry, none, surrendered, used
    strike: Count | None = None  # AI-MULTI-ATK, AI-SWEEP: which of the round's blows


class ShotResolved(_Event):
    """F-RNG-1, F-RNG-2, F-RNG-3, F-RNG-4, F-RNG-5: a ranged attack, unopposed (unaware target, or both shooting), or opposed by a dodge."""

    type: Literal["shot_resolved"] = "shot_resolved"
    action: Seq
    round: Serial
    mode: Literal["unaware", "aware", "shoot_back"]
    weapon: Literal["thrown", "propelled"] | None = None
    target: Text
    sides: Items[Side]  # the shooter; then the dodger, or the target shooting back
    difficulties: Items[Total]  # the result each shooter needs to hit (F-RNG-1, F-RNG-2)
    outcome: Note
    hits: Items[Hit]
    burst: Count | None = None  # F-RNG-5: bullets on target at relative degree +8
    burst_bonus: Number | None = None  # F-RNG-5: the GM's damage bonus for the bullets (None: one per doubling)
    supersedes: Seq | None = None  # a fudge point re-resolved the shot (C-FP-2)


class WoundMarked(_Event):
    """F-WND-3: a wound of `level` marked on the track (the box follows from the track)."""

    type: Literal["wound_marked"] = "wound_marked"
    action: Seq
    combatant: Text
    level: Number
    damage: Total | None
    still_ticking: bool = False
    halved_from: Total | None = None
    dealt: Number | None = None  # the hit's level before F-DEATH / F-STUN-2 / F-DC adjusted it
    notes: Items[Note] = ()  # each adjustment, with its rule ID


class LocationWounded(_Event):
    """F-LOC-2: a wound of one body part: 1 Scratched, 2 Hurt, 3 Incapacitated."""

    type: Literal["location_wounded"] = "location_wounded"
    action: Seq
    combatant: Text
    location: Text
    level: Number
    wound_level: Number  # the blow's level on the wound track, before it became the part's
    affects: Note | None = None


class CombatantKilled(_Event):
    """F-WND-6 `gm`: only the GM's explicit ruling marks a combatant Dead."""

    type: Literal["combatant_killed"] = "combatant_killed"
    combatant: Text
    reason: Note = ""


class AdvantageGained(_Event):
    """F-MOD-7: a won all-out defense and a Perception roll give the foe -1 next round."""

    type: Literal["advantage_gained"] = "advantage_gained"
    combatant: Text
    over: Text
    modifier: Number
    round: Serial
    action: Seq | None = None  # the roll that won it, so a fudge point spent on that roll can re-decide it


# --- phase initiative (PH, CT) ------------------------------------------------

class InitiativeRolled(_Event):
    type: Literal["initiative_rolled"] = "initiative_rolled"
    combatant: Text
    round: Serial
    determinant: Number
    faces: Faces
    surprised: bool = False
    source: Literal["generated", "entered"] = "generated"
    stream: Text | None = None
    draw: Serial | None = None
    fixed: Faces = ()  # CT-TABLE, PC-DICE: frozen faces, after the rolled ones
    discarded: Items[Count] = ()  # PC-DICE, CT-GIFT: dice (indexes) set aside before bartering
    bonus_phases: Items[Number] = ()  # CT-GIFT Quick Reflexes


class DieBartered(_Event):
    """PH-6: each traded and each altered die is recorded."""

    type: Literal["die_bartered"] = "die_bartered"
    combatant: Text
    round: Serial
    traded: Count
    altered: Count
    direction: Literal[1, -1]
    face_before: Face
    face_after: Face


class TurnTaken(_Event):
    """The next actor in phase order (PH-1, PH-3)."""

    type: Literal["turn_taken"] = "turn_taken"
    round: Serial
    phase: Total
    combatant: Text
    index: Count
    tied_with: Items[Text] = ()
    step: Literal["act", "declare", "resolve"] = "act"  # PH-4 `structured` splits a phase in two
    initiative: Total | None = None  # rolled initiative (F-INIT-2, AI-INIT-2): the slot's total; ties act together


class DieTraded(_Event):
    """PH-6, PC-BARTER-1: one die traded in (it leaves play)."""

    type: Literal["die_traded"] = "die_traded"
    combatant: Text
    round: Serial
    die: Count
    face: Face


class DieAltered(_Event):
    """PH-6, PC-BARTER-1: the die the trade moves one level."""

    type: Literal["die_altered"] = "die_altered"
    combatant: Text
    round: Serial
    die: Count
    direction: Literal[1, -1]
    face_before: Face
    face_after: Face


class TiesOrdered(_Event):
    """PH-3: the GM's order of combatants tied on the determinant, for this round."""

    type: Literal["ties_ordered"] = "ties_ordered"
    round: Serial
    order: Items[Text]


class IntentDeclared(_Event):
    """PH-4 `structured`: what a combatant will do in this phase, declared slowest first."""

    type: Literal["intent_declared"] = "intent_declared"
    round: Serial
    phase: Total
    combatant: Text
    what: Note
    target: Text | None = None


class TurnUsed(_Event):
    """A roll that is the actor's action in this phase (an attack marks its turn by itself)."""

    type: Literal["turn_used"] = "turn_used"
    round: Serial
    phase: Total
    combatant: Text
    action: Seq


class ActionHeld(_Event):
    """PH-4 `open`: the actor waits until the others in the phase have acted."""

    type: Literal["action_held"] = "action_held"
    round: Serial
    phase: Total
    combatant: Text


class SpareDieSpent(_Event):
    """CT-SPARE: a spare initiative die spent as +1 to one roll, once this round."""

    type: Literal["spare_die_spent"] = "spare_die_spent"
    combatant: Text
    round: Serial
    die: Count
    target: Seq


# --- rolled initiative (F-INIT-2, F-INIT-3, AI-INIT-2) -------------------------

class InitiativeRanked(_Event):
    """Everyone rolls, order by total: one combatant's roll (or automatic initiative) for the round."""

    type: Literal["initiative_ranked"] = "initiative_ranked"
    combatant: Text
    round: Serial
    trait: Text
    level: Number
    modifiers: Items[Modifier] = ()
    total: Total
    automatic: bool = False
    faces: Faces = ()
    source: Literal["generated", "entered"] = "generated"
    stream: Text | None = None
    draw: Serial | None = None


class WillSteeled(_Event):
    """AI-WILL-1: each level above Fair of a Will roll lowers the effective wound status for the scene."""

    type: Literal["will_steeled"] = "will_steeled"
    combatant: Text
    action: Seq
    levels: Count


# --- fudge points (C-FP) ------------------------------------------------------

class FudgePointSpent(_Event):
    type: Literal["fudge_point_spent"] = "fudge_point_spent"
    combatant: Text
    use: Literal["panache", "skill", "luck", "scratch", "ticking"]
    target: Seq
    cost: Count
    shift: Number | None = None


# --- time travel (A-UNDO) -----------------------------------------------------

class EventsVoided(_Event):
    """The consequences a re-resolution replaces: voided, never deleted."""

    type: Literal["events_voided"] = "events_voided"
    seqs: Items[Seq]
    reason: Note


class CommandUndone(_Event):
    type: Literal["command_undone"] = "command_undone"
    target: Text
    reason: Note = "undo"


class CommandRedone(_Event):
    """Redo voids the undo: the undone command's events count again."""

    type: Literal["command_redone"] = "command_redone"
    target: Text
    restores: Text


# --- several combatants, story elements (F-MULTI, F-PACE-1) ------------------

class Comparison(BaseModel):
    """F-MULTI-2: the lone fighter's one result against one foe's result."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    foe: Text
    lone_result: Total  # the lone fighter's result (offense, under postures) against this foe, his shield counted
    lone_modifiers: Items[Modifier] = ()  # what this foe alone changes in the lone fighter's result
    foe_result: Total  # the foe's result (defense, under postures)
    relative_degree: Total  # lone_result - foe_result
    ignored: bool = False  # F-MULTI-5: the lone fighter does not defend against this foe
    foe_hits: bool = False
    foe_relative_degree: Total | None = None  # the foe's attack against him (against Poor when ignored)
    may_wound: bool = False  # F-MULTI-3: the lone fighter could wound this foe


class MeleeResolved(_Event):
    """F-MULTI-1, F-MULTI-2, F-MULTI-3, F-MULTI-4, F-MULTI-5, F-MULTI-6, F-MULTI-7: a lone fighter's one roll against several foes, compared one by one."""

    type: Literal["melee_resolved"] = "melee_resolved"
    action: Seq
    round: Serial
    lone: Side
    foes: Items[Side]
    comparisons: Items[Comparison]
    target: Text | None
    sweep: Items[Text] = ()
    sweep_penalty: Number = 0
    max_foes: Count
    min_hit: Items[Number]  # the lone fighter's minimum hit level against each foe, in order
    group_roll: Total | None = None  # F-MULTI-7: the GM's 2dF applied to every NPC
    outcome: Note
    hits: Items[Hit]
    supersedes: Seq | None = None
    target_named: bool = False  # the GM named the target before the roll (else the rule chose it)


class StoryRolled(_Event):
    """F-PACE-1, C-ACT-5: a story element's roll (or median of three); the GM narrates the outcome."""

    type: Literal["story_rolled"] = "story_rolled"
    action: Seq
    combatant: Text
    trait: Text
    level: Number
    modifiers: Items[Modifier]
    rolls: Items[Total]  # the dice total of each roll, in order
    results: Items[Total]
    result: Total  # the one result, or the median of three
    median: bool = False
    element: Note = ""


# --- what wounds become: healing, stun (F-HEAL, F-STUN) ---------------------------

class HealedMark(BaseModel):
    """One wound mark's level before and after healing (0: healed)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    seq: Seq
    before: Number
    after: Number


class WoundsHealed(_Event):
    """F-HEAL-1, F-HEAL-2, F-HEAL-3, F-HEAL-4: marks healed, each from its original level; the track is placed again."""

    type: Literal["wounds_healed"] = "wounds_healed"
    combatant: Text
    cause: Literal["end", "rest", "skill", "natural"]
    levels: Count
    changes: Items[HealedMark]
    action: Seq | None = None  # the healing or Constitution roll, if any
    healer: Text | None = None
    trait: Text | None = None
    skill_level: Number | None = None
    roll: Total | None = None
    modifiers: Items[Modifier] = ()
    result: Total | None = None
    difficulty: Total | None = None
    weeks: Count = 0


class StunMarked(_Event):
    """F-STUN-1, F-STUN-3: a stunning blow (Stun, Very Stunned, knocked out) instead of a wound."""

    type: Literal["stun_marked"] = "stun_marked"
    action: Seq
    combatant: Text
    effect: Literal["stun", "very_stunned", "knocked_out"]
    round: Serial
    dealt: Number
    notes: Items[Note] = ()


class ConditionMarked(_Event):
    """A state the GM puts on a fighter (docs/table.md, "Conditions"): one of the rules' own (prone, AI-POS;
    surprised, PH-5) or free text, with a note. It is shown, not applied: no roll changes by it. `rounds`: it
    lasts that many rounds and is gone at the start of round `round + rounds`; None: until unmarked."""

    type: Literal["condition_marked"] = "condition_marked"
    combatant: Text
    condition: Text
    round: Serial
    rounds: Count | None = None
    note: Note = ""


class ConditionCleared(_Event):
    """The GM takes a condition off a fighter before it runs out (or one marked with no end)."""

    type: Literal["condition_cleared"] = "condition_cleared"
    combatant: Text
    condition: Text


class CombatantLeft(_Event):
    """A fighter leaves the fight without wounds (docs/table.md, "Leaving"): he fled, surrendered or simply
    left. He no longer counts as still fighting; the battle's end does not bring him back."""

    type: Literal["combatant_left"] = "combatant_left"
    combatant: Text
    how: Literal["fled", "surrendered", "left"] = "left"


class BattleEnded(_Event):
    """F-HEAL-1, F-STUN-1: the fight is over; stun marks clear (scratches go by WoundsHealed)."""

    type: Literal["battle_ended"] = "battle_ended"
    round: Serial


# --- fate (FT) ------------------------------------------------------------------

class FateSide(BaseModel):
    """One combatant's roll in a Fate exchange, scene or attack, with what he declared."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: Text
    skill: Text
    level: Number
    roll: Total
    modifiers: Items[Modifier] = ()
    against: Items[tuple[Text, Items[Modifier]]] = ()  # FT-MOD: modifiers against one foe only
    target: Text | None = None
    stance: Literal["attack", "defensive", "non_combat", "defend"] = "attack"  # FT-DEF-1, FT-DEF-2
    maneuver: Note | None = None  # FT-MANEUVER: taken instead of the harm
    maneuver_needs: Note = "clipped"
    maneuver_kind: Literal["plain", "disarm", "finesse"] = "plain"
    non_lethal: bool = False  # FT-HEAL-1
    clip_used: bool = False  # FT-TRACK-3: the clipped -1 this roll took


class FateContest(BaseModel):
    """One comparison: the winner's margin, read as an outcome (FT-OUT, FT-SIMPLE, FT-ADV)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    attacker: Text
    defender: Text
    attacker_result: Total
    defender_result: Total
    margin: Total
    read: Total  # the number read on the table (margin, + weapon - armor under simple arms)
    armor_type: Number = 0
    outcome: Note  # none, or an FT-OUT outcome
    maneuver: Note | None = None
    note: Note = ""


class FateResolved(_Event):
    """FT-PACE: an exchange, a scene's rolls, or one attack in turn pace, compared and read."""

    type: Literal["fate_resolved"] = "fate_resolved"
    action: Seq
    pace: Literal["scene", "exchange", "turn"]
    round: Serial
    sides: Items[FateSide]
    contests: Items[FateContest]
    mode: Literal["contests", "total"] = "contests"  # FT-PACE scene: paired sub-fights or the total difference
    supersedes: Seq | None = None


class FateBoxMarked(_Event):
    """FT-TRACK-2: an outcome marked, in the box it overflowed to."""

    type: Literal["fate_box_marked"] = "fate_box_marked"
    action: Seq
    combatant: Text
    outcome: Note
    box: Text
    by: Text | None = None
    non_lethal: bool = False


class AspectChecked(_Event):
    """FT-PTS: an aspect's box checked for a reroll of one roll."""

    type: Literal["aspect_checked"] = "aspect_checked"
    combatant: Text
    aspect: Text
    box: Count
    target: Seq


class FateTurnOrder(_Event):
    """FT-INIT: the round's order: rolled Alertness, then Tactics, then the combat skill (each key in that order)."""

    type: Literal["fate_turn_order"] = "fate_turn_order"
    round: Serial
    order: Items[Text]
    keys: Items[tuple[Total, Total, Total]]


class FateTurnPassed(_Event):
    """FT-INIT (a reading, engine.rulesets.fate.rules): the actor gives up his turn in this round's order. Passed
    (`behind` None): the turn is used with no action. Held: he acts after `behind`, the next fighter
    who still has a turn this round."""

    type: Literal["fate_turn_passed"] = "fate_turn_passed"
    round: Serial
    combatant: Text
    behind: Text | None = None


class FateSceneEnded(_Event):
    """FT-TRACK-3, FT-HEAL-1: clipped, hurt and taken out clear; injuries stay (non-lethal ones heal)."""

    type: Literal["fate_scene_ended"] = "fate_scene_ended"
    scene: Serial


class InjuryRecovered(_Event):
    """FT-HEAL-1: an Injured box clears after the days the recovery takes."""

    type: Literal["injury_recovered"] = "injury_recovered"
    combatant: Text
    mark: Seq
    days: Count
    action: Seq | None = None
    healer: Text | None = None
    skill: Text | None = None
    level: Number | None = None
    roll: Total | None = None
    result: Total | None = None
    difficulty: Total | None = None
    activity: Literal["rest", "light"] | None = None


# --- the events of a ruleset added from outside this project ------------------------------------------

class RulesetEvent(_Event):
    """An event type a ruleset of another package adds (engine.kernel.registry), stored under this one type:
    its ruleset's name, the `kind` its package declares it under and its fields (`data`), which that
    package's model of the kind validates, with its own bounds, whenever the fight folds or shows the event
    (engine.kernel.ruleset_events). One stored type, not a type per added event, so that the union, both
    decoders and every store read any log, whichever rulesets are installed, and no added kind can take a
    type name this project gives a later event."""

    type: Literal["ruleset_event"] = "ruleset_event"
    ruleset: Text
    kind: Text
    data: dict[str, Any]


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
        FateTurnPassed, ConditionMarked, ConditionCleared, CombatantLeft, RulesetEvent,
    ],
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=ConfigDict(defer_build=True))
VOIDING = (EventsVoided, CommandUndone, CommandRedone)
