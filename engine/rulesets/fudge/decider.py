"""The Fudge ruleset's Decider: its decide table, built here and never changed after.

Fudge's own commands (declarations, trait rolls, exchanges and attacks, a GM's wound) are
decided here; shots, melees, story elements, fudge points and the aftermath come from
their rule modules; phase initiative and the shared lifecycle are parts it composes.
The Atari Isev ruleset builds on these handlers with its own parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TYPE_CHECKING

from msgspec.structs import replace as with_fields

from fudge_combat.engine.rulesets.fudge import aftermath, campaign
from fudge_combat.engine.rulesets.fudge import stun
from fudge_combat.engine.kernel.commands import ByCommand
from fudge_combat.engine.rulesets.fudge.blows import alternating_all_out, exchange_intents, fight
from fudge_combat.engine.rulesets.fudge.declarations import merged_declaration, round_events
from fudge_combat.engine.kernel.dice import Dice, Roll
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.locations import location_modifiers
from fudge_combat.engine.rulesets.fudge.melee_multi import decide_melee
from fudge_combat.engine.rulesets.fudge.phase_order import check_turn, turn_used
from fudge_combat.engine.rulesets.fudge.points import spend
from fudge_combat.engine.rulesets.fudge.ranged import shoot
from fudge_combat.engine.rulesets.fudge.rolls import advantage_events, next_action, roll_event, settle_roll
from fudge_combat.engine.rulesets.fudge import lifecycle
from fudge_combat.engine.rulesets.fudge import phases
from fudge_combat.engine.kernel.decider import Decider, Handler, able_to_act
from fudge_combat.engine.rulesets.fudge.settle import settle_exchange, wound_events
from fudge_combat.engine.rulesets.fudge.sides import able, combatant, wound_modifiers
from fudge_combat.engine.rulesets.fudge.story import STORY_ONLY, decide_story
from fudge_combat.engine.kernel.wounds import LEVELS, NEAR_DEATH, SCRATCH
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import GmWound
    from fudge_combat.engine.rulesets.fudge.command_structs import Attack, Exchange
    from fudge_combat.engine.rulesets.fudge.command_structs import ResistSpell, RollTrait, Willpower
    from fudge_combat.engine.rulesets.fudge.command_structs import Declare, SealDeclaration

D6_POSTURE = {1: -2, 2: -1, 3: 0, 4: 0, 5: 1, 6: 2}  # F-TAC-3
Acting = Callable[[FightState, Combatant], list[ev.Modifier]]


def acting_modifiers(state: FightState, who: Combatant) -> list[ev.Modifier]:
    """C-ACT-1, F-WND-4, F-STUN-1: what weighs on every action a Fudge fighter takes (a wound, a stun)."""
    return wound_modifiers(who, state.options) + stun.modifiers(state, who, "act")


def check_declaration(state: FightState, who: Combatant, declaration: ev.Declaration) -> None:
    if declaration.posture is not None:
        if state.options.tactics != "postures":
            raise RuleError("postures need tactics = \"postures\" (F-TAC-1); this fight uses all-out declarations")
        if not -2 <= declaration.posture <= 2:
            raise RuleError("a posture is -2, -1, 0, +1 or +2 (F-TAC-1)")
    if declaration.all_out is not None and state.options.tactics != "all_out":
        raise RuleError("this fight uses postures (F-TAC-1): declare --posture N instead of all-out")
    stun.refuse_all_out_defense(state, who, declaration)


def declare(state: FightState, c: Declare, dice: Dice, *, atari_isev: bool = False) -> list[ev.Event]:
    """F-MOD-6, F-TAC-1: a declaration for this round. Under a rolled initiative, and always under the Atari
    Isev ruleset (`atari_isev`, with its options), it is for the next round, before it is rolled
    (F-INIT-3, AI-WAIT, AI-POST)."""
    who = able(state, c.combatant)
    check_declaration(state, who, c.declaration)
    started = round_events(state, [who.name])
    number = state.round + len(started)
    declaration = c.declaration
    if atari_isev or state.options.initiative in ("opposed", "ranked"):  # AI-WAIT, AI-MULTI-ATK, F-INIT-3
        number = state.round + 1
        declaration = merged_declaration(state.pending.get(who.key), number, declaration)
        campaign.check_declaration(state, who, declaration, atari_isev)
    elif c.declaration != ev.Declaration(all_out=c.declaration.all_out, posture=c.declaration.posture):
        raise RuleError("waiting, hurrying, hasty attacks and multiple attacks or avoidances are declared before "
                        "a rolled initiative (initiative = \"opposed\" or \"ranked\")")
    if c.posture_roll or c.posture_die is not None:
        rolled, picked = posture_pick(state, who, c, dice, state.last_seq + len(started) + 1)
        declaration = with_fields(declaration, posture=picked.posture)
        return started + [rolled, ev.Declared(combatant=who.name, round=number, declaration=declaration)]
    return started + [ev.Declared(combatant=who.name, round=number, declaration=declaration)]


def posture_pick(state: FightState, who: Combatant, c: Declare, dice: Dice,
                 action: int) -> tuple[ev.DiceRolled, ev.Declaration]:
    """F-TAC-3: without Fudge dice a 1d6 picks the posture; the die is recorded like any roll."""
    if state.options.tactics != "postures":
        raise RuleError("a rolled posture needs tactics = \"postures\" (F-TAC-1)")
    if c.declaration.posture is not None or c.declaration.all_out is not None:
        raise RuleError("either roll the posture or choose it, not both (F-TAC-3)")
    if c.posture_die is not None:
        if not 1 <= c.posture_die <= 6:
            raise RuleError(f"a d6 shows 1 to 6, not {c.posture_die}")
        rolled = Roll((c.posture_die,), "entered")
    else:
        rolled = dice.roll(who.name, 1, "posture (1d6)", sides=6)
    event = ev.DiceRolled(action=action, roller=who.name, purpose="posture (1d6)", faces=rolled.faces,
                          source=rolled.source, stream=rolled.stream, draw=rolled.draw, sides=6)
    return event, with_fields(c.declaration, posture=D6_POSTURE[rolled.faces[0]])


def seal(state: FightState, c: SealDeclaration, dice: Dice) -> list[ev.Event]:
    who = able(state, c.combatant)
    if state.options.initiative in ("opposed", "ranked"):
        raise RuleError("under rolled initiative declarations are made openly before `fudge round`: drop --sealed")
    started = round_events(state, [who.name])
    return started + [ev.DeclarationSealed(combatant=who.name, round=state.round + len(started), seal=c.seal)]


# --- rolls and exchanges ------------------------------------------------------------

def roll_trait(state: FightState, c: RollTrait, dice: Dice, *, acting: Acting = acting_modifiers) -> list[ev.Event]:
    """C-ACT-2, C-ACT-3, C-ACT-4, C-ACT-5: a trait roll; `acting` is what weighs on every action."""
    who = able(state, c.combatant)
    action = next_action(state)
    opts = state.options
    if c.trait is None:  # C-ACT-4: a situational roll, no trait
        trait, level, mods = "situational", 0, []
    else:
        trait, level, _ = who.fighter.trait(c.trait, opts)
        mods = acting(state, who) + location_modifiers(who.locations, trait)
    if c.mod:
        mods.append(ev.Modifier(name="GM modifier", value=c.mod))
    if c.median and c.opponent is not None:
        raise RuleError("a median of three is for a roll against a difficulty (C-ACT-5), not an opposed roll")
    rolled = [roll_event(action, who.name, trait, 4, dice) for _ in range(3 if c.median else 1)]
    totals = tuple(sum(r.faces) for r in rolled)
    own, extra = (sorted(totals)[1], {"median_of": totals}) if c.median else (totals[0], {})
    resolved: dict[str, Any] = {}
    if c.opponent is not None:
        foe = able(state, c.opponent)
        foe_trait, foe_level, _ = foe.fighter.trait(c.opponent_trait or trait, opts)
        foe_mods = wound_modifiers(foe, opts)
        if c.opponent_mod:
            foe_mods.append(ev.Modifier(name="GM modifier", value=c.opponent_mod))
        rolled.append(roll_event(action, foe.name, foe_trait, 4, dice))
        resolved = dict(opponent=foe.name, opponent_trait=foe_trait, opponent_level=foe_level,
                        opponent_roll=sum(rolled[1].faces), opponent_modifiers=tuple(foe_mods))
    elif c.difficulty is None:
        resolved = dict(difficulty=opts.default_difficulty)
    else:
        resolved = dict(difficulty=c.difficulty)
    if c.advantage and who.key not in state.advantage_open:
        raise RuleError(f"{who.name} has not won an all-out defense this round: no advantage to seek (F-MOD-7)")
    outcome = settle_roll(who.name, trait, level, own, tuple(mods), resolved, c.advantage, action, **extra)
    out: list[ev.Event] = [*rolled, outcome, *turn_used(state, who, c.free, c.advantage, action)]
    out += advantage_events(state, outcome)
    return out


def exchange(state: FightState, c: Exchange, dice: Dice) -> list[ev.Event]:
    """F-PACE-2: two fighters exchange blows at once."""
    if state.options.pace == "story":
        raise RuleError(STORY_ONLY)
    if state.options.pace != "simultaneous":
        raise RuleError("this fight runs directed attacks in turn (F-PACE-3): use `fudge attack`")
    first, second = able(state, c.first), able(state, c.second)
    if first.key == second.key:
        raise RuleError("a fighter cannot exchange blows with itself")
    return fight(state, "exchange", first, second, c.mods, c.min_hit, c.reveals, dice,
                 intents=exchange_intents(state, c, (first, second)), magic=c.magic, targeting=c.targeting,
                 speed_contest=c.targeting.speed_contest)


def attack(state: FightState, c: Attack, dice: Dice) -> list[ev.Event]:
    """F-PACE-3: one fighter's directed attack on another, in turn."""
    if state.options.pace == "story":
        raise RuleError(STORY_ONLY)
    if state.options.initiative in ("opposed", "ranked"):
        check_turn(state, able(state, c.attacker))
    attacker, target = able(state, c.attacker), combatant(state, c.target)
    if attacker.key == target.key:
        raise RuleError("a fighter cannot attack itself")
    stun.refuse_attack(state, attacker)
    if state.options.initiative in ("phases-classic", "phases-crunch"):
        check_turn(state, attacker, target)
    intent = {k: v for k, v in (("stun", c.stun), ("pull", c.pull), ("head", c.head)) if v not in (False, None)}
    more: tuple[tuple[ev.Modifier, ...], tuple[ev.Modifier, ...]] = ((), ())
    unaware = c.unaware
    if state.options.pace == "alternating":
        unaware, more = alternating_all_out(state, attacker, target, c)
    return fight(state, "attack", attacker, target, (c.mod, c.defense_mod), c.min_hit, c.reveals, dice,
                 unaware=unaware, difficulty=c.difficulty, intents=(intent, {}), magic=c.magic,
                 targeting=c.targeting, more=more, speed_contest=c.targeting.speed_contest)


def gm_wound(state: FightState, c: GmWound, dice: Dice) -> list[ev.Event]:
    """A-LOG-1: a wound the GM rules (a fall, fire, a trap), marked as a blow's wound would be:
    overflow (F-WND-3), pawns and the DC track, damage-capacity options and the PC death caps apply."""
    who = combatant(state, c.combatant)
    if who.track.dead:
        raise RuleError(f"{who.name} is already dead")
    if not SCRATCH <= c.level <= NEAR_DEATH:
        raise RuleError(f"the GM marks a wound from Scratch to Near Death, not {LEVELS[c.level] if 0 <= c.level < len(LEVELS) else c.level}")
    action = next_action(state)
    hit = ev.Hit(attacker="the GM", defender=who.name, relative_degree=0, damage_factor=0, bonus=0, graze=False,
                 calculated=0, damage_roll=None, damage=None, level=c.level)
    marks = wound_events(action, [hit], state, dice=dice)
    ruling = f"the GM's ruling{': ' + c.reason if c.reason else ''}"
    marks = [with_fields(m, notes=(ruling, *m.notes)) if isinstance(m, ev.WoundMarked) else m
             for m in marks]
    if not any(isinstance(m, ev.WoundMarked) for m in marks):
        raise RuleError(f"a {LEVELS[c.level]} leaves no mark on {who.name} under these rules (F-WND-7, F-DEATH)")
    return marks


TABLE: ByCommand[Handler] = ByCommand({
    **lifecycle.TABLE.by_name,
    **phases.TABLE.by_name,
    **aftermath.HANDLERS.by_name,
    "Declare": declare,
    "SealDeclaration": seal,
    "RollTrait": roll_trait,
    "Exchange": exchange,
    "Attack": attack,
    "Shoot": shoot,
    "Melee": decide_melee,
    "StoryRoll": decide_story,
    "SpendPoint": partial(spend, settle=settle_exchange),
    "GmWound": gm_wound,
    "Willpower": campaign.willpower,  # AI-WILL-1 and AI-WILL-2 are GM options a Fudge fight may use
    "ResistSpell": campaign.resist_spell,
})

# Fate's commands, and Atari Isev's heroic avoidance: the line each is refused with in this ruleset
FATE_ONLY: dict[str, str] = {
    "FateExchange": "`fudge fate exchange` is a Fate command: this fight runs {ruleset} rules",
    "FateScene": "`fudge fate scene` is a Fate command: this fight runs {ruleset} rules",
    "FateRound": "`fudge fate round` is a Fate command: this fight runs {ruleset} rules",
    "FateAttack": "`fudge fate attack` is a Fate command: this fight runs {ruleset} rules",
    "FatePass": "`fudge fate pass` and `fudge fate hold` are Fate commands: this fight runs {ruleset} rules",
    "CheckAspect": "aspects are Fate's (FT-PTS): this fight runs {ruleset}",
    "EndScene": "`fudge end-scene` ends a Fate scene; this fight runs {ruleset} rules and ends with `fudge end`",
    "RecoverInjury": "injury recovery is Fate's (FT-HEAL-1): this fight runs {ruleset} rules, "
                     "which heal with `fudge heal` and `fudge rest`",
}
REFUSALS: ByCommand[str] = ByCommand({
    **FATE_ONLY,
    "HeroicAvoidance": "heroic avoidance is an Atari Isev rule (AI-HEROIC); this fight plays {ruleset}: "
                       "a fudge point (`fudge spend NAME scratch`) halves a blow instead",
})

FUDGE = Decider("fudge", "Fudge", TABLE, REFUSALS, able_to_act)
DECIDER = FUDGE  # what `kernel.registry` finds
