"""decide(state, command, dice) -> events: every rule that turns a command into facts.

Pure: the state comes from a fold, dice from the shell (entered faces or a
seeded stream). A command the rules forbid now raises RuleError and yields
no event.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine import commands as cmd
from engine import harm, stun
from engine.ranged import reresolve_shot, shoot
from engine.wounding import strike
from engine.dice import Dice, Roll
from engine.errors import RuleError
from engine.ladder import Ladder
from engine.initiative import PHASE_NAME, allotment, barter, barter_classic, bonus_phases, discards
from engine.locations import (check_called, locate_hits, location_marks, location_modifiers, targeting_of,
                              targeting_record)
from engine.melee_mods import (AIM_PENALTY, check_aim, check_magic, is_static_npc, magic_modifiers, plus_modifiers,
                               speed_contest_of, weapon_size_modifiers)
from engine.phase_order import (check_turn, declared_intent, held_action, ordered_ties, reordered_turn, slots,
                                spare_spent, turn_used)
from engine.options import RuleOptions
from engine.sheets import Sheet, read_levels
from engine.wounds import LEVELS, NEAR_DEATH, SCRATCH, Mark, build_track, halve, would_kill
from events import models as ev
from events.envelope import canonical
from projections.state import Combatant, FightState, replace

SHIELD_SIZES = ("small", "medium", "large")
NO_DECLARATION = ev.Declaration()  # frozen: one instance serves every fighter who declared nothing
D6_POSTURE = {1: -2, 2: -1, 3: 0, 4: 0, 5: 1, 6: 2}  # F-TAC-3


def seal_of(declaration: ev.Declaration, salt: str) -> str:
    """A-SEAL-1: the hash a sealed declaration is stored as."""
    data = declaration.model_dump(mode="json")
    # fields added later count only when set, so seals made before them still open
    data = {k: v for k, v in data.items()
            if k in ("all_out", "posture") or v != ev.Declaration.model_fields[k].default}
    return hashlib.sha256((salt + canonical(data)).encode()).hexdigest()


def decide(state: FightState, command: Any, dice: Dice) -> list[Any]:
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise RuleError(f"no rule handles {type(command).__name__}")
    if not state.name and not isinstance(command, (cmd.StartFight,)):
        raise RuleError("no fight: start one with `fudge new NAME`")
    return handler(state, command, dice)


# --- helpers ------------------------------------------------------------------

def combatant(state: FightState, name: str) -> Combatant:
    found = state.find(name)
    if found is None:
        names = ", ".join(c.name for c in state.combatants.values()) or "nobody has joined yet"
        raise RuleError(f"no combatant {name!r} in {state.name}; combatants: {names}")
    return found


def able(state: FightState, name: str) -> Combatant:
    who = combatant(state, name)
    if not who.track.can_act:
        raise RuleError(f"{who.name} is {LEVELS[who.track.level]} and cannot act (F-WND-1)")
    return who


def wound_modifiers(who: Combatant, options: RuleOptions) -> list[ev.Modifier]:
    penalty = who.track.penalty(options)
    return [_modifier(f"wound: {LEVELS[who.track.level]}", penalty)] if penalty else []


@lru_cache(maxsize=256)
def _modifier(name: str, value: int) -> ev.Modifier:
    """A modifier every blow of a fight brings again (a wound, a shield), built once: modifiers are frozen."""
    return ev.Modifier(name=name, value=value)


def shield_value(who: Combatant, options: RuleOptions) -> int:
    shield = who.fighter.sheet.shield
    return options.shield_values[SHIELD_SIZES.index(shield.size)] if shield else 0


def with_roll(side: ev.Side, roll: int) -> ev.Side:
    shared = _ROLLED.get(id(side))
    if shared is not None and shared[0] is side:  # a shared side: its rolls are shared too
        rolled = shared[1].get(roll)
        if rolled is not None:
            return rolled
    result = side.level + roll + sum(m.value for m in side.modifiers)
    posture = side.declaration.posture or 0
    rolled = side.model_copy(update={"roll": roll, "result": result,
                                     "offense": result + posture, "defense": result - posture})
    if shared is not None and shared[0] is side:
        shared[1][roll] = rolled
    return rolled


# Sides are frozen, and a fighter brings the same side to most blows of a fight (and of every fight a
# simulation plays from the same opening): the side before the dice, and the side with each roll, are
# built once and shared. An entry keeps the objects whose ids make its key, so no id can be reused
# while it is kept, and a hit is checked against them.
_SIDES: dict[tuple[Any, ...], tuple[tuple[Any, ...], ev.Side]] = {}
_ROLLED: dict[int, tuple[ev.Side, dict[int, ev.Side]]] = {}  # id of a side in _SIDES -> it, and roll -> side


def _side(combatant: str, trait: str, level: int, mods: Sequence[ev.Modifier],
          declaration: ev.Declaration) -> ev.Side:
    """`ev.Side(...)` before the roll, shared by the blows that bring the very same parts."""
    key = (combatant, trait, level, id(declaration), *map(id, mods))
    kept = _SIDES.get(key)
    if kept is not None and kept[0][0] is declaration and all(a is b for a, b in zip(kept[0][1:], mods)):
        return kept[1]
    side = ev.Side(combatant=combatant, trait=trait, level=level, roll=None, modifiers=tuple(mods),
                   result=None, declaration=declaration)
    if len(_SIDES) >= 256:  # a fight brings a few sides; many more come from wounds, stuns and modifiers
        _SIDES.clear()
        _ROLLED.clear()
    _SIDES[key] = ((declaration, *mods), side)
    _ROLLED[id(side)] = (side, {})
    return side


def roll_event(action: int, roller: str, purpose: str, count: int, dice: Dice,
               sides: int | None = None) -> ev.DiceRolled:
    rolled = dice.roll(roller, count, purpose) if sides is None else dice.roll(roller, count, purpose, sides=sides)
    return ev.DiceRolled(action=action, roller=roller, purpose=purpose, faces=rolled.faces,
                         source=rolled.source, stream=rolled.stream, draw=rolled.draw, sides=sides,
                         substitute=rolled.substitute)


def next_action(state: FightState) -> int:
    return state.last_seq + 1


def reveal_events(state: FightState, reveals: Sequence[cmd.Reveal]) -> list[Any]:
    """A-SEAL-1: open the seals this action needs; each must match what was sealed."""
    out = []
    for reveal in reveals:
        who = combatant(state, reveal.combatant)
        sealed = state.sealed.get(who.key)
        if sealed is None:
            raise RuleError(f"{who.name} has no sealed declaration to reveal")
        if seal_of(reveal.declaration, reveal.salt) != sealed[0]:
            raise RuleError(f"{who.name}'s revealed declaration does not match its seal (A-SEAL-1)")
        out.append(ev.DeclarationRevealed(combatant=who.name, round=state.round,
                                          declaration=reveal.declaration, salt=reveal.salt))
    return out


def declarations_after(state: FightState, reveals: Sequence[cmd.Reveal],
                       fresh: bool = False) -> dict[str, ev.Declaration]:
    """The declarations in force once these seals are opened (`fresh`: in a round just started, only those)."""
    out = {} if fresh else dict(state.declarations)
    for reveal in reveals:
        out[reveal.combatant.lower()] = reveal.declaration
    return out


def round_events(state: FightState, names: Sequence[str]) -> list[Any]:
    """Simultaneous pace: a fighter who already fought this round starts the next one."""
    if state.options.pace != "simultaneous":
        return []
    if state.round == 0 or any(n.lower() in state.fought for n in names):
        return [ev.RoundStarted(round=state.round + 1)]
    return []


# --- fight lifecycle ------------------------------------------------------------

def _start(state: FightState, c: cmd.StartFight, dice: Dice) -> list[Any]:
    if state.name:
        raise RuleError(f"fight {state.name} has already started")
    return [ev.FightStarted(name=c.name, rules=c.rules, options=c.options,
                            seed_commitment=c.seed_commitment, stream=c.stream)]


def _branch(state: FightState, c: cmd.StartBranch, dice: Dice) -> list[Any]:
    return [ev.BranchStarted(name=c.name, parent=c.parent, fork_seq=c.fork_seq,
                             seed_commitment=c.seed_commitment, stream=c.stream)]


def _commit(state: FightState, c: cmd.CommitSeed, dice: Dice) -> list[Any]:
    return [ev.SeedCommitted(seed_commitment=c.seed_commitment, stream=c.stream, reason=c.reason)]


def _reveal_seed(state: FightState, c: cmd.RevealSeed, dice: Dice) -> list[Any]:
    out: list[Any] = []
    for commitment, seed in c.seeds:
        if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
            raise RuleError("a revealed seed does not match its commitment (A-FAIR-1)")
        if commitment not in state.revealed:
            out.append(ev.SeedRevealed(seed_commitment=commitment, seed=seed))
    out.append(ev.SeedCommitted(seed_commitment=c.next_commitment, stream=c.next_stream,
                                reason="the previous seed was revealed"))
    return out


def _join(state: FightState, c: cmd.Join, dice: Dice) -> list[Any]:
    sheet = Sheet.model_validate(c.sheet)
    name = c.name or sheet.name
    if "=" in name or not name.strip():
        raise RuleError(f"{name!r} cannot be a combatant's name")
    if state.find(name):
        raise RuleError(f"{name} has already joined {state.name}; join again with --as ANOTHER-NAME")
    fighter = read_levels(sheet, state.ladder, c.source, state.options.plus_levels)
    for role in ("attack", "defend"):
        trait = getattr(sheet.combat, role, None) if sheet.combat else None
        if trait:
            fighter.trait(trait, state.options)
    side = c.side or sheet.side or name
    return [ev.CombatantJoined(combatant=name, side=side, sheet=sheet.model_dump(mode="json"), source=c.source)]


def _check_declaration(state: FightState, who: Combatant, declaration: ev.Declaration) -> None:
    if declaration.posture is not None:
        if state.options.tactics != "postures":
            raise RuleError("postures need tactics = \"postures\" (F-TAC-1); this fight uses all-out declarations")
        if not -2 <= declaration.posture <= 2:
            raise RuleError("a posture is -2, -1, 0, +1 or +2 (F-TAC-1)")
    if declaration.all_out is not None and state.options.tactics != "all_out":
        raise RuleError("this fight uses postures (F-TAC-1): declare --posture N instead of all-out")
    stun.refuse_all_out_defense(state, who, declaration)


def _declare(state: FightState, c: cmd.Declare, dice: Dice) -> list[Any]:
    who = able(state, c.combatant)
    _check_declaration(state, who, c.declaration)
    started = round_events(state, [who.name])
    number = state.round + len(started)
    declaration = c.declaration
    if state.options.initiative in ("opposed", "ranked") or state.options.ruleset == "atari-isev":
        from engine import atari  # declared before the round it is for (AI-WAIT, AI-MULTI-*, F-INIT-3)
        number = state.round + 1
        declaration = merged_declaration(state.pending.get(who.key), number, declaration)
        atari.check_declaration(state, who, declaration)
    elif c.declaration != ev.Declaration(all_out=c.declaration.all_out, posture=c.declaration.posture):
        raise RuleError("waiting, hurrying, hasty attacks and multiple attacks or avoidances are declared before "
                        "a rolled initiative (initiative = \"opposed\" or \"ranked\")")
    if c.posture_roll or c.posture_die is not None:
        rolled, picked = posture_pick(state, who, c, dice, state.last_seq + len(started) + 1)
        declaration = declaration.model_copy(update={"posture": picked.posture})
        return started + [rolled, ev.Declared(combatant=who.name, round=number, declaration=declaration)]
    return started + [ev.Declared(combatant=who.name, round=number, declaration=declaration)]


def merged_declaration(pending: tuple[int, ev.Declaration] | None, number: int,
                       new: ev.Declaration) -> ev.Declaration:
    """Declarations made before a rolled initiative (F-INIT-3, AI-WAIT, AI-POST) add up: a second one for the
    same round keeps what the first chose unless it chooses that again (`fudge undo` takes one back)."""
    if pending is None or pending[0] != number:
        return new
    blank = ev.Declaration()
    kept = {name: getattr(pending[1], name) for name in ev.Declaration.model_fields
            if getattr(new, name) == getattr(blank, name)}
    return new.model_copy(update=kept)


def posture_pick(state: FightState, who: Combatant, c: cmd.Declare, dice: Dice,
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
    return event, c.declaration.model_copy(update={"posture": D6_POSTURE[rolled.faces[0]]})


def _seal(state: FightState, c: cmd.SealDeclaration, dice: Dice) -> list[Any]:
    who = able(state, c.combatant)
    if state.options.initiative in ("opposed", "ranked"):
        raise RuleError("under rolled initiative declarations are made openly before `fudge round`: drop --sealed")
    started = round_events(state, [who.name])
    return started + [ev.DeclarationSealed(combatant=who.name, round=state.round + len(started), seal=c.seal)]


# --- rolls and exchanges ------------------------------------------------------------

def _roll(state: FightState, c: cmd.RollTrait, dice: Dice) -> list[Any]:
    who = able(state, c.combatant)
    action = next_action(state)
    opts = state.options
    if c.trait is None:  # C-ACT-4: a situational roll, no trait
        trait, level, mods = "situational", 0, []
    else:
        trait, level, _ = who.fighter.trait(c.trait, opts)
        mods = wound_modifiers(who, opts) + stun.modifiers(state, who, "act")
        if opts.ruleset == "atari-isev":  # AI-WILL-1 relief, AI-HEROIC unbalance: on every action
            from engine import atari
            mods = atari.wound_penalty(state, who) + atari.unbalanced(state, who) + stun.modifiers(state, who, "act")
        mods = mods + location_modifiers(who.locations, trait)
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
    out: list[Any] = [*rolled, outcome, *turn_used(state, who, c.free, c.advantage, action)]
    out += advantage_events(state, outcome)
    return out


def settle_roll(name: str, trait: str, level: int, roll: int, mods: tuple[ev.Modifier, ...],
                resolved: dict[str, Any], advantage: bool, action: int, **extra: Any) -> ev.ActionResolved:
    """C-ACT-2,3: success and margin of an unopposed or opposed roll."""
    result = level + roll + sum(m.value for m in mods)
    if resolved.get("opponent") is not None:
        foe_result = (resolved["opponent_level"] + resolved["opponent_roll"]
                      + sum(m.value for m in resolved["opponent_modifiers"]))
        margin = result - foe_result
        return ev.ActionResolved(action=action, combatant=name, trait=trait, level=level, roll=roll,
                                 modifiers=mods, result=result, margin=margin, success=margin > 0,
                                 opponent_result=foe_result, advantage=advantage, **resolved, **extra)
    margin = result - resolved["difficulty"]
    success = extra.pop("automatic", False) or margin >= 0
    return ev.ActionResolved(action=action, combatant=name, trait=trait, level=level, roll=roll,
                             modifiers=mods, result=result, margin=margin, success=success,
                             advantage=advantage, automatic=success and margin < 0, **resolved, **extra)


def advantage_events(state: FightState, outcome: ev.ActionResolved,
                     earlier: ev.AdvantageGained | None = None) -> list[Any]:
    """F-MOD-7: a successful roll for advantage gives the foe a penalty next round.

    `earlier` is the advantage a re-resolved roll had won: the same foe and round stand.
    """
    if not (outcome.advantage and outcome.success):
        return []
    foe_key = earlier.over.lower() if earlier else state.advantage_open.get(outcome.combatant.lower())
    if foe_key is None:
        return []
    return [ev.AdvantageGained(combatant=outcome.combatant, over=state.combatants[foe_key].name,
                               modifier=state.options.advantage_penalty,
                               round=earlier.round if earlier else state.round + 1, action=outcome.action)]


def side_for(state: FightState, who: Combatant, foe: Combatant | None, role: str, declaration: ev.Declaration,
             gm_mod: int, gm_label: str = "GM modifier") -> ev.Side:
    """F-MOD-1,2,3,4,6,7: the trait and every modifier one fighter brings to a blow.

    Without a `foe` (a lone fighter facing several, F-MULTI) the foe's shield
    and weapon size are left to each comparison.
    """
    opts = state.options
    combat = who.fighter.sheet.combat
    wanted = (combat.defend or combat.attack) if (combat and role == "defend") else (combat.attack if combat else "Brawling")
    trait, level, _ = who.fighter.trait(wanted, opts)
    mods = wound_modifiers(who, opts) + stun.modifiers(state, who, role) + location_modifiers(who.locations, "combat")
    if foe is not None and role != "defend" and shield_value(foe, opts):
        mods.append(_modifier(f"{foe.name}'s {foe.fighter.sheet.shield.size} shield",  # type: ignore[union-attr]
                              -shield_value(foe, opts)))
    if declaration.hasty:  # F-INIT-3
        mods.append(ev.Modifier(name="hasty attack", value=opts.hasty_penalty))
    if foe is not None:
        mods += weapon_size_modifiers(state, who, foe)
    if declaration.all_out == "offense" and role != "defend":  # F-MOD-6: a bonus to the attack only
        mods.append(ev.Modifier(name="all-out offense", value=opts.all_out_offense_skill))
    elif declaration.all_out == "defense":
        mods.append(ev.Modifier(name="all-out defense", value=opts.all_out_defense_skill))
    advantage = state.advantages.get(who.key)
    if advantage:
        mods.append(ev.Modifier(name=f"{advantage[0]}'s situational advantage", value=advantage[1]))
    if gm_mod:
        mods.append(ev.Modifier(name=gm_label, value=gm_mod))
    return _side(who.name, trait, level, mods, declaration)


def good_level(state: FightState) -> int:
    """The ladder's Good (F-HIT-2's least aim); a house ladder without one: three above the minimum hit level."""
    good = _good_on(state.ladder)
    return state.options.min_hit + 3 if good is None else good


@lru_cache(maxsize=64)
def _good_on(ladder: Ladder) -> int | None:
    """Good on a ladder (read by name once per ladder: every blow checks its aim against it)."""
    try:
        return ladder.parse("Good")
    except RuleError:
        return None


def make_hit(state: FightState, attacker: Combatant, defender: Combatant, rd: int, bonus: int,
             damage_dice: DamageDice, attack_roll: int | None = None,
             defense_roll: int | None = None) -> tuple[ev.Hit, list[ev.DiceRolled]]:
    """F-DMG-3: one won blow's damage outside a duel (a lone fighter's melee, F-MULTI), as a duel strikes."""
    return strike(attacker.fighter, defender.fighter, (attacker.name, defender.name), rd, bonus, state.options,
                  damage_dice, attack_roll, defense_roll)


def min_hit_for(state: FightState, attacker: Combatant, defender: Combatant, given: int | None) -> int:
    """F-HIT-1: Poor plus the Scale difference, unless the GM sets it."""
    if given is not None:
        return given
    return state.options.min_hit + attacker.fighter.sheet.scale - defender.fighter.sheet.scale


@dataclass(frozen=True)
class Settled:
    outcome: str
    hits: tuple[ev.Hit, ...]
    damage_rolls: tuple[ev.DiceRolled, ...]


DamageDice = Callable[..., ev.DiceRolled]  # (attacker, count=4, sides=None): a recorded damage roll


def settle_exchange(state: FightState, kind: str, sides: Sequence[ev.Side], min_hits: Sequence[int],
                    damage_dice: DamageDice) -> Settled:
    """F-MEL-1,2, F-MOD-6,7, F-TAC-4 (and F-PACE-3 for a directed attack)."""
    opts = state.options
    if opts.ruleset == "atari-isev":
        from engine.atari_rules import settle
        fighters = {k: c.fighter for k, c in state.combatants.items()}
        return Settled(*settle(opts, fighters, sides, min_hits[0], damage_dice))
    a, b = sides
    directions: list[tuple[ev.Side, ev.Side, int, int, int]] = []  # attacker, defender, rd, bonus, min_hit
    if opts.tactics == "postures":
        pairs = [(a, b, min_hits[0])] + ([(b, a, min_hits[1])] if kind == "exchange" else [])
        for att, dfd, least in pairs:
            assert att.offense is not None and dfd.defense is not None
            rd = att.offense - dfd.defense
            if rd >= 1 and att.offense >= least:
                directions.append((att, dfd, rd, 0, least))
    else:
        assert a.result is not None and b.result is not None
        rd = a.result - b.result
        ao = {s.combatant: s.declaration.all_out for s in sides}
        if kind == "attack":
            if rd >= 1 and a.result >= min_hits[0]:
                bonus = opts.all_out_offense_damage if ao[a.combatant] == "offense" else 0
                directions.append((a, b, rd, bonus, min_hits[0]))
        else:
            if rd == 0:
                # F-MOD-6: an all-out attacker who ties loses, unless the foe only defends or also all-out attacks
                lone = [s for s in sides if ao[s.combatant] == "offense"]
                if len(lone) == 1:
                    loser = lone[0]
                    winner = b if loser is a else a
                    least = min_hits[1] if winner is b else min_hits[0]
                    if ao[winner.combatant] != "defense" and winner.result is not None and winner.result >= least:
                        directions.append((winner, loser, 0, opts.all_out_loser_bonus, least))
            else:
                winner, loser = (a, b) if rd > 0 else (b, a)
                least = min_hits[0] if winner is a else min_hits[1]
                bonus = (opts.all_out_offense_damage if ao[winner.combatant] == "offense" else 0) + (
                    opts.all_out_loser_bonus if ao[loser.combatant] == "offense" else 0)
                if ao[winner.combatant] != "defense" and winner.result is not None and winner.result >= least:
                    directions.append((winner, loser, abs(rd), bonus, least))
    directions = [d for d in directions if stun.can_attack(state, state.combatants[d[0].combatant.lower()])]
    hits: list[ev.Hit] = []
    rolls: list[ev.DiceRolled] = []
    for att, dfd, rd, bonus, _ in directions:
        attacker, defender = state.combatants[att.combatant.lower()], state.combatants[dfd.combatant.lower()]
        defense_roll = None if dfd.trait.startswith("difficulty") else dfd.roll  # an unaware defender rolled nothing
        hit, taken = strike(attacker.fighter, defender.fighter, (attacker.name, defender.name), rd, bonus, opts,
                            damage_dice, att.roll, defense_roll)
        rolls.extend(taken)
        hits.append(hit)
    return Settled(describe(sides, hits, kind), tuple(hits), tuple(rolls))


def describe(sides: Sequence[ev.Side], hits: Sequence[ev.Hit], kind: str) -> str:
    if not hits:
        return "stand-off" if kind == "exchange" else f"{sides[1].combatant} is not hit"
    parts = []
    for hit in hits:
        what = LEVELS[hit.level] if hit.level else "no wound"
        parts.append(f"{hit.attacker} {'grazes' if hit.graze else 'hits'} {hit.defender}: {what}")
    return "; ".join(parts)


def wound_events(action: int, hits: Sequence[ev.Hit], state: FightState | None = None,
                 sides: Sequence[ev.Side] = (), new_round: bool = False, exclude: Sequence[int] = (),
                 dice: Dice | None = None, reuse: Sequence[ev.DiceRolled] = ()) -> list[Any]:
    """Each hit's mark: through engine.harm (F-DC, F-STUN, F-DEATH) when the state is known."""
    if state is not None:
        return harm.marks_for_hits(state, action, hits, sides, new_round, frozenset(exclude), dice, reuse)
    return [ev.WoundMarked(action=action, combatant=h.defender, level=h.level, damage=h.damage)
            for h in hits if h.level > 0]


def blow_marks(action: int, hits: Sequence[ev.Hit], affects: str | None = None, *args: Any, **kwargs: Any) -> list[Any]:
    """F-WND-3, F-LOC-2: body blows are marked as wound_events marks them; a blow on a named part wounds that part."""
    return [*wound_events(action, [h for h in hits if not h.location], *args, **kwargs),
            *location_marks(action, hits, affects)]


def damage_roller(action: int, dice: Dice, reuse: Sequence[ev.DiceRolled] = ()) -> DamageDice:
    pool = list(reuse)

    def roll(attacker: str, count: int = 4, sides: int | None = None) -> ev.DiceRolled:
        for index, old in enumerate(pool):
            if old.roller.lower() == attacker.lower() and len(old.faces) == count and old.sides == sides:
                return pool.pop(index)
        return roll_event(action, attacker, "damage", count, dice, sides)

    return roll


def blow_sides(state: FightState, kind: str, first: Combatant, second: Combatant,
               declared: Mapping[str, ev.Declaration], mods: tuple[int, int]) -> list[ev.Side]:
    """The two sides of an exchange or a directed attack before the dice: what `_fight` rolls and
    `engine.odds` weighs (F-MOD-1..7 through `side_for`)."""
    roles = ("attack", "attack") if kind == "exchange" else ("attack", "defend")
    labels = ("GM modifier", "GM modifier") if kind == "exchange" else ("GM modifier", "GM defense modifier")
    return [side_for(state, who, foe, role, declared.get(who.key, NO_DECLARATION), mod, label)
            for who, foe, role, mod, label in zip((first, second), (second, first), roles, mods, labels)]


def _fight(state: FightState, kind: str, first: Combatant, second: Combatant, mods: tuple[int, int],
           min_hit: int | None, reveals: Sequence[cmd.Reveal], dice: Dice, unaware: bool = False,
           difficulty: int | None = None, intents: Sequence[dict[str, Any]] = ({}, {}),
           magic: Sequence[tuple[str, int]] = (),
           targeting: cmd.Targeting = cmd.NO_TARGETING,
           more: tuple[tuple[ev.Modifier, ...], tuple[ev.Modifier, ...]] = ((), ()),
           speed_contest: bool = False) -> list[Any]:
    check_magic(magic, [first, second])
    check_aim(targeting.aim, targeting.aim_at, good_level(state))
    check_called(targeting)
    out: list[Any] = round_events(state, [first.name, second.name]) if kind == "exchange" else []
    out += reveal_events(state, reveals)
    pending = [k for k in state.sealed if k in (first.key, second.key)]
    revealed = {r.combatant.lower() for r in reveals}
    if any(k not in revealed for k in pending):
        raise RuleError("a sealed declaration must be revealed before the blow (A-SEAL-1)")
    new_round = bool(out) and isinstance(out[0], ev.RoundStarted)
    declared = declarations_after(state, reveals, fresh=new_round)  # a new round: none declared yet
    declared = {**state.round_declarations, **declared}
    action = state.last_seq + len(out) + 1
    now = replace(state, round=state.round + 1) if new_round else state  # F-STUN-1 counts rounds
    sides = blow_sides(now, kind, first, second, declared, mods)
    sides = [side.model_copy(update=intent) if intent else side for side, intent in zip(sides, intents)]
    for index, who in enumerate((first, second)):
        extra = (magic_modifiers(magic, who) + ([AIM_PENALTY] if index == 0 and targeting.aim_at else [])
                 + plus_modifiers(who, sides[index].trait, state.round + new_round) + list(more[index]))
        if extra:
            sides[index] = sides[index].model_copy(update={"modifiers": sides[index].modifiers + tuple(extra)})
    defender_unable = kind == "attack" and (unaware or not second.track.can_act)
    rolled: list[ev.DiceRolled] = []
    speed: tuple[int, int] | None = None
    if speed_contest:
        if defender_unable:
            raise RuleError("a speed contest (F-FANCY-1) is between two fighters who both act")
        rolled, speed, boosts = speed_contest_of(
            state, (first, second), lambda who, trait: roll_event(action, who, f"speed contest ({trait})", 4, dice))
        sides = [side.model_copy(update={"modifiers": side.modifiers + tuple(boost)}) for side, boost in zip(sides, boosts)]
    for index, side in enumerate(sides):
        if index == 1 and defender_unable:
            level = difficulty if difficulty is not None else state.options.unaware_difficulty
            sides[1] = side.model_copy(update={
                "trait": "difficulty (unaware or unable, F-MEL-3)", "level": level, "modifiers": (),
                "roll": 0, "result": level, "offense": level, "defense": level})
            continue
        if is_static_npc(state, (first, second)[index]):
            sides[index] = with_roll(side, 0)  # F-NPC-1: no roll
            continue
        rolled.append(roll_event(action, side.combatant, side.trait, 4, dice))
        sides[index] = with_roll(side, sum(rolled[-1].faces))
    min_hits = (min_hit_for(state, first, second, min_hit), min_hit_for(state, second, first, min_hit))
    settled = settle_exchange(now, kind, sides, min_hits, damage_roller(action, dice))
    hits = locate_hits(settled.hits, sides[0], targeting)
    resolved = ev.ExchangeResolved(action=action, kind=kind, round=state.round + new_round,
                                   sides=tuple(sides), min_hit=min_hits, outcome=settled.outcome, hits=hits,
                                   speed=speed, **targeting_record(targeting))
    return out + rolled + list(settled.damage_rolls) + [resolved] + blow_marks(
        action, hits, targeting.affects, state, sides, new_round, dice=dice)


STORY_ONLY = "this fight is told in story elements (F-PACE-1): `fudge story NAME TRAIT --mod N` rolls for a PC's plan"


def _exchange(state: FightState, c: cmd.Exchange, dice: Dice) -> list[Any]:
    if state.options.pace == "story":
        raise RuleError(STORY_ONLY)
    if state.options.pace != "simultaneous":
        raise RuleError("this fight runs directed attacks in turn (F-PACE-3): use `fudge attack`")
    first, second = able(state, c.first), able(state, c.second)
    if first.key == second.key:
        raise RuleError("a fighter cannot exchange blows with itself")
    return _fight(state, "exchange", first, second, c.mods, c.min_hit, c.reveals, dice,
                  intents=exchange_intents(state, c, (first, second)), magic=c.magic, targeting=c.targeting,
                  speed_contest=c.targeting.speed_contest)


def exchange_intents(state: FightState, c: cmd.Exchange, fighters: Sequence[Combatant]) -> list[dict[str, Any]]:
    """F-STUN-1..3: who goes for stun, pulls a punch, or aims at the head, as the command names them."""
    if not (c.stun or c.head or c.pull):
        return [{} for _ in fighters]  # the usual blow: nothing to check or record
    keys = [f.key for f in fighters]
    for name in [*c.stun, *c.head, *(n for n, _ in c.pull)]:
        if name.strip().lower() not in keys:
            raise RuleError(f"{name} is not in this exchange: --stun, --pull and --head name one of its fighters")
    out: list[dict[str, Any]] = []
    for who in fighters:
        intent: dict[str, Any] = {}
        if who.key in {n.strip().lower() for n in c.stun}:
            intent["stun"] = True
        if who.key in {n.strip().lower() for n in c.head}:
            intent["head"] = True
        for name, level in c.pull:
            if name.strip().lower() == who.key:
                intent["pull"] = level
        out.append(intent)
    return out


def _attack(state: FightState, c: cmd.Attack, dice: Dice) -> list[Any]:
    if state.options.pace == "story":
        raise RuleError(STORY_ONLY)
    if state.options.ruleset == "atari-isev":
        from engine import atari
        return atari.attack(state, c, dice)
    if state.options.initiative in ("opposed", "ranked"):
        check_turn(state, able(state, c.attacker))
    attacker, target = able(state, c.attacker), combatant(state, c.target)
    if attacker.key == target.key:
        raise RuleError("a fighter cannot attack itself")
    stun.refuse_attack(state, attacker)
    if state.options.initiative in ("phases-classic", "phases-crunch"):
        check_turn(state, attacker, target)
    intent = {k: v for k, v in (("stun", c.stun), ("pull", c.pull), ("head", c.head)) if v not in (False, None)}
    unaware, more = c.unaware, ((), ())
    if state.options.pace == "alternating":
        unaware, more = alternating_all_out(state, attacker, target, c)
    return _fight(state, "attack", attacker, target, (c.mod, c.defense_mod), c.min_hit, c.reveals, dice,
                  unaware=unaware, difficulty=c.difficulty, intents=(intent, {}), magic=c.magic,
                  targeting=c.targeting, more=more,
                  speed_contest=c.targeting.speed_contest)


def alternating_all_out(state: FightState, attacker: Combatant, target: Combatant,
                        c: cmd.Attack) -> tuple[bool, tuple[tuple[ev.Modifier, ...], tuple[ev.Modifier, ...]]]:
    """F-MOD-8: an all-out defender forfeits his attack this round; a foe who attacked all-out
    defends at -2 on this turn (option all_out_exposure = "no_defense": not at all)."""
    declared = {**state.round_declarations, **declarations_after(state, c.reveals)}.get(attacker.key)
    if attacker.key in state.forfeits or (declared is not None and declared.all_out == "defense"):
        raise RuleError(f"{attacker.name} chose all-out defense this round and forfeits the attack (F-MOD-8); "
                        f"`fudge round` starts the next round")
    defense: tuple[ev.Modifier, ...] = ()
    if target.key in state.forfeits and target.key not in state.declarations and target.key not in state.round_declarations:
        # the all-out defense lasts the round: every defense gets it, not only the first
        defense = (ev.Modifier(name="all-out defense", value=state.options.all_out_defense_skill),)
    if state.exposed.get(target.key) != attacker.key:
        return c.unaware, ((), defense)
    if state.options.all_out_exposure == "no_defense":
        return True, ((), ())
    return c.unaware, ((), defense + (ev.Modifier(name="exposed after all-out offense", value=-2),))


# --- phase initiative -------------------------------------------------------------

def _round(state: FightState, c: cmd.StartRound, dice: Dice) -> list[Any]:
    if state.options.initiative in ("opposed", "ranked"):
        from engine import ranked
        return ranked.start_round(state, c, dice)
    surprised = {combatant(state, n).key for n in c.surprised}
    number = state.round + 1
    out: list[Any] = [ev.RoundStarted(round=number, surprised=tuple(state.combatants[k].name for k in sorted(surprised)))]
    if state.options.initiative == "none":
        if surprised:
            raise RuleError("surprise here shifts phase initiative (PH-5); this fight has no initiative")
        return out
    for who in sorted(state.combatants.values(), key=lambda w: w.joined_seq):
        if not who.track.can_act:
            continue
        _, determinant, _ = who.fighter.trait(state.options.initiative_trait, state.options)
        allot = allotment(determinant, state.options)  # PC-DICE or CT-TABLE
        rolled = dice.roll(who.name, allot.rolled, "initiative") if allot.rolled else None
        faces = rolled.faces if rolled else ()
        gifts = who.fighter.sheet.gifts
        out.append(ev.InitiativeRolled(combatant=who.name, round=number, determinant=determinant,
                                       faces=faces, surprised=who.key in surprised,
                                       source=rolled.source if rolled else "entered",
                                       stream=rolled.stream if rolled else None,
                                       draw=rolled.draw if rolled else None,
                                       fixed=allot.fixed, discarded=discards(faces + allot.fixed, allot, gifts),
                                       bonus_phases=bonus_phases(gifts)))
    return out


def _barter(state: FightState, c: cmd.Barter, dice: Dice) -> list[Any]:
    who = combatant(state, c.combatant)
    initiative = state.initiative.get(who.key)
    if initiative is None:
        raise RuleError(f"{who.name} has no initiative dice this round: `fudge round` rolls them")
    if state.turn is not None:
        raise RuleError("bartering ends when the round's first turn is taken")
    if state.options.bartering == "classic":
        return barter_classic_events(state, who, initiative, c)
    if c.second_trade is not None:
        raise RuleError("crunch bartering trades one + die at a time (CT-BARTER-1): give --trade once")
    after = barter(initiative, c.trade, c.alter, c.direction, state.options)
    return [ev.DieBartered(combatant=who.name, round=state.round, traded=c.trade, altered=c.alter,
                           direction=c.direction, face_before=initiative.dice[c.alter].face,
                           face_after=after.dice[c.alter].face)]


def barter_classic_events(state: FightState, who: Combatant, initiative: Any, c: cmd.Barter) -> list[Any]:
    """PC-BARTER-1..3, PH-6: each traded die and the altered die, each its own event."""
    if c.second_trade is None:
        raise RuleError("classic bartering trades two dice (PC-BARTER-1): give --trade twice")
    after = barter_classic(initiative, (c.trade, c.second_trade), c.alter, c.direction, state.options)
    traded = [ev.DieTraded(combatant=who.name, round=state.round, die=index, face=initiative.dice[index].face)
              for index in (c.trade, c.second_trade)]
    return traded + [ev.DieAltered(combatant=who.name, round=state.round, die=c.alter, direction=c.direction,
                                   face_before=initiative.dice[c.alter].face, face_after=after.dice[c.alter].face)]


def turn_order(state: FightState) -> list[tuple[int, str, tuple[str, ...]]]:
    """PH-1, PH-3: (phase, combatant key, tied names) in acting order for this round.

    Everyone who rolled keeps their places all round, so a turn's index means
    the same after a fighter is taken out; `_next` skips turns of those who
    can no longer act. (`engine.phase_order.slots` adds PH-4's steps.)
    """
    return [(slot.phase, slot.combatant, slot.tied_with) for slot in slots(state)]


def _next(state: FightState, c: cmd.NextTurn, dice: Dice) -> list[Any]:
    if state.options.initiative == "none":
        raise RuleError("this fight has no initiative order: every exchange is simultaneous")
    if state.options.initiative in ("opposed", "ranked"):
        from engine import ranked
        return ranked.next_turn(state, c, dice)
    if not state.initiative:
        raise RuleError("no initiative rolled this round: `fudge round` rolls it")
    order = slots(state)
    index = 0 if state.turn is None else state.turn.index + 1
    while index < len(order) and not state.combatants[order[index].combatant].track.can_act:
        index += 1
    if index >= len(order):
        raise RuleError(f"round {state.round} is over: `fudge round` starts the next one")
    slot = order[index]
    return [ev.TurnTaken(round=state.round, phase=slot.phase, combatant=state.combatants[slot.combatant].name,
                         index=index, tied_with=slot.tied_with, step=slot.step)]


def _order_ties(state: FightState, c: cmd.OrderTies, dice: Dice) -> list[Any]:
    """PH-3: the GM orders tied combatants (GM input)."""
    ordered = ordered_ties(state, c.order)
    return [ordered, *reordered_turn(state, ordered.order)]


def _hold(state: FightState, c: cmd.HoldAction, dice: Dice) -> list[Any]:
    """PH-4 `open`: the actor waits for the others in the phase."""
    return [held_action(state)]


def _intend(state: FightState, c: cmd.DeclareIntent, dice: Dice) -> list[Any]:
    """PH-4 `structured`: the declaration step."""
    who = able(state, c.combatant)
    target = combatant(state, c.target) if c.target is not None else None
    return [declared_intent(state, who, c.what, target)]


# --- fudge points (C-FP) ----------------------------------------------------------

def _spend(state: FightState, c: cmd.SpendPoint, dice: Dice) -> list[Any]:
    who = combatant(state, c.combatant)
    blow_use = c.use in ("scratch", "ticking")
    target = c.target if c.target is not None else latest(state, who, blow_use)
    event = state.events.get(target)
    if event is None:
        raise RuleError(f"event {target} is not a roll or blow in force (it may not exist, or was undone)")
    record = state.actions[event.action]
    if not blow_use and beyond_points(state.events.get(record.resolution), event):
        raise RuleError("a fudge point re-resolves a trait roll, a blow or a shot, not this roll "
                        "(a story element, a median of three, a posture die, a speed contest); "
                        "spend it on a blow taken (scratch, ticking) instead")
    if blow_use:
        return spend_on_blow(state, who, c, target, event)
    if isinstance(state.events.get(record.resolution), (ev.WoundsHealed, ev.DiceRolled)):
        raise RuleError(f"event {target} is a healing or recovery roll: fudge points change action rolls and blows")
    if isinstance(event, ev.DiceRolled) and harm.is_adjustment_roll(event):
        raise RuleError(f"event {target} adjusts a wound (F-DC): spend on the action roll or on the blow instead")
    if not isinstance(event, ev.DiceRolled) or event.roller.lower() != who.key:
        raise RuleError(f"event {target} is not one of {who.name}'s rolls")
    if c.use == "spare":  # CT-SPARE: a spare initiative die, spent like a skill point for +1
        if c.shift not in (None, 1):
            raise RuleError("a spare die gives +1 to a roll (CT-SPARE): no --shift")
        spare = spare_spent(state, who, target)
        return [spare] + reresolve(state, who, record.action, state.events[record.resolution], target, event,
                                   c.model_copy(update={"shift": 1}), dice)
    cost = 1
    if who.fudge_points < cost:
        raise RuleError(f"{who.name} has no fudge points left (C-FP-3)")
    if c.use == "skill" and c.shift is None:
        raise RuleError("a skill spend shifts the result: give --shift +1 or --shift -1")
    spent = ev.FudgePointSpent(combatant=who.name, use=c.use, target=target, cost=cost, shift=c.shift)
    resolution = state.events[record.resolution]
    return [spent] + reresolve(state, who, record.action, resolution, target, event, c, dice)


def beyond_points(resolution: Any, roll: Any) -> bool:
    """Rolls no fudge point re-resolves: F-PACE-1 story elements, C-ACT-5 medians, the F-TAC-3 posture die,
    an F-FANCY-1 speed contest roll (the GM narrates, or a re-resolution could not say what changed)."""
    if isinstance(resolution, ev.StoryRolled) or getattr(resolution, "median_of", ()):
        return True
    return isinstance(roll, ev.DiceRolled) and roll.purpose.startswith(("posture (1d6)", "speed contest"))


def latest(state: FightState, who: Combatant, blow_use: bool) -> int:
    kind = ev.WoundMarked if blow_use else ev.DiceRolled
    for seq in sorted(state.events, reverse=True):
        event = state.events[seq]
        if isinstance(event, kind):
            if isinstance(event, ev.DiceRolled) and (event.purpose == "damage" or harm.is_adjustment_roll(event)):
                continue  # no use spends on a damage roll (luck and skill refuse it): aim at the action roll
            owner = event.combatant if isinstance(event, ev.WoundMarked) else event.roller
            if owner.lower() == who.key:
                return seq
    raise RuleError(f"{who.name} has no {'blow taken' if blow_use else 'roll'} to spend a point on")


def reresolve(state: FightState, who: Combatant, action: int, resolution: Any, target: int,
              roll: ev.DiceRolled, c: cmd.SpendPoint, dice: Dice) -> list[Any]:
    """Void the action's old consequences; append the new ones (C-FP-2)."""
    if isinstance(resolution, ev.ShotResolved):
        return reresolve_shot(state, who, c, target, roll, dice)
    if isinstance(resolution, ev.MeleeResolved):
        return reresolve_melee(state, who, c, target, roll, dice)
    record = state.actions[action]
    resolution_seq = record.resolution
    voids = [resolution_seq, *record.consequences]
    out: list[Any] = []
    new_roll: int | None = None
    if c.use == "luck":
        if roll.purpose == "damage":
            raise RuleError("luck rerolls an action roll; spend on the blow (scratch, ticking) to change a wound")
        rerolled = roll_event(action, roll.roller, roll.purpose, len(roll.faces), dice)
        out.append(rerolled)
        voids.append(target)
        new_roll = sum(rerolled.faces)
    if roll.purpose == "damage":
        raise RuleError("spend skill on the action roll, not on a damage roll")
    label = "spare die (CT-SPARE)" if c.use == "spare" else f"fudge point ({c.use})"
    shifts = c.use in ("skill", "spare")
    if isinstance(resolution, ev.ActionResolved):
        mine = resolution.combatant.lower() == who.key
        if resolution.automatic:
            raise RuleError("panache already made this action succeed (C-FP-2): no point changes it now")
        if c.use == "panache":
            if resolution.difficulty is None or not mine:
                raise RuleError("panache makes an unopposed action succeed: this roll was opposed (C-FP-2)")
        fields = resolution.model_dump(exclude={"type", "v", "result", "margin", "success", "automatic",
                                                "supersedes", "opponent_result"})
        if mine:
            if new_roll is not None:
                fields["roll"] = new_roll
            if shifts:
                fields["modifiers"] = tuple(resolution.modifiers) + (ev.Modifier(name=label, value=c.shift or 0),)
        else:
            if new_roll is not None:
                fields["opponent_roll"] = new_roll
            if shifts:
                fields["opponent_modifiers"] = tuple(resolution.opponent_modifiers) + (ev.Modifier(name=label, value=c.shift or 0),)
        fields["modifiers"] = tuple(ev.Modifier.model_validate(m) for m in fields["modifiers"])
        fields["opponent_modifiers"] = tuple(ev.Modifier.model_validate(m) for m in fields["opponent_modifiers"])
        resolved = {k: fields.pop(k) for k in ("difficulty", "opponent", "opponent_trait", "opponent_level",
                                               "opponent_roll", "opponent_modifiers")}
        if resolved["opponent"] is None:
            resolved = {"difficulty": resolved["difficulty"]}
        new = settle_roll(fields.pop("combatant"), fields.pop("trait"), fields.pop("level"), fields.pop("roll"),
                          fields.pop("modifiers"), resolved, fields.pop("advantage"), action,
                          supersedes=resolution_seq, automatic=c.use == "panache")
        earlier = next((state.events[seq] for seq in record.consequences
                        if isinstance(state.events.get(seq), ev.AdvantageGained)), None)
        steeled = [ev.WillSteeled(combatant=new.combatant, action=action,
                                  levels=max(0, new.result - (new.difficulty or 0)))  # AI-WILL-1 re-read
                   for seq in record.consequences if isinstance(state.events.get(seq), ev.WillSteeled)]
        return [ev.EventsVoided(seqs=tuple(sorted(voids)), reason=f"{who.name} spent a {label}"),
                *out, new, *advantage_events(state, new, earlier), *steeled]
    if c.use == "panache":
        raise RuleError("panache makes an unopposed action succeed: a blow is opposed (C-FP-2)")
    sides = list(resolution.sides)
    for index, side in enumerate(sides):
        if side.combatant.lower() != who.key or (len(sides) > 2 and side.trait != roll.purpose):
            continue  # AI-MULTI-AVD: of a dodge-parry pair, only the roll spent on
        if shifts:
            side = side.model_copy(update={"modifiers": side.modifiers + (ev.Modifier(name=label, value=c.shift or 0),)})
        sides[index] = with_roll(side, new_roll if new_roll is not None else side.roll or 0)
    old_damage = [state.events[s] for s in record.rolls
                  if isinstance(state.events.get(s), ev.DiceRolled) and state.events[s].purpose == "damage"]
    settled = settle_exchange(state, resolution.kind, sides, resolution.min_hit, damage_roller(action, dice, old_damage))
    reused = {id(r) for r in old_damage}
    fresh = [r for r in settled.damage_rolls if id(r) not in reused]
    targeting = targeting_of(resolution)
    hits = locate_hits(settled.hits, sides[0], targeting)
    new = resolution.model_copy(update={"sides": tuple(sides), "outcome": settled.outcome,
                                        "hits": hits, "supersedes": resolution_seq})
    return [ev.EventsVoided(seqs=tuple(sorted(voids)), reason=f"{who.name} spent a {label}"),
            *out, *fresh, new, *blow_marks(action, hits, targeting.affects, state, sides, False, voids, dice, [
                state.events[s] for s in record.rolls if isinstance(state.events.get(s), ev.DiceRolled)
                and harm.is_adjustment_roll(state.events[s])])]


def spend_on_blow(state: FightState, who: Combatant, c: cmd.SpendPoint, target: int, event: Any) -> list[Any]:
    """C-FP-2 Only a Scratch and Still Ticking (F-DEATH-3): replace one blow's wound mark."""
    if not isinstance(event, ev.WoundMarked) or event.combatant.lower() != who.key:
        raise RuleError(f"event {target} is not a blow {who.name} took")
    if not any(m.seq == target and m.healed_from is None for m in who.marks):
        raise RuleError(f"the wound of event {target} has been healed since (F-HEAL): no point changes it now")
    before = build_track(who.boxes, [m for m in who.marks if m.seq < target], state.options)
    if c.use == "scratch":
        if event.level <= SCRATCH:
            raise RuleError("Only a Scratch halves a wound worse than a Scratch")
        if event.halved_from is not None:
            raise RuleError(f"that blow is already halved (from {LEVELS[event.halved_from]}): Only a Scratch "
                            "halves one blow once (C-FP-2)")
        cost, level, ticking, halved = 1, halve(event.level), event.still_ticking, event.level
    else:
        if not would_kill(before, event.level, state.options) or event.still_ticking:
            raise RuleError(f"that blow does not kill {who.name}: Still Ticking is for a deadly blow (F-DEATH-3)")
        cost = state.options.still_ticking_cost_near_death if before.level >= NEAR_DEATH else 1
        level, ticking, halved = event.level, True, event.halved_from
    if who.fudge_points < cost:
        raise RuleError(f"{who.name} has {who.fudge_points} fudge point(s); this costs {cost} (C-FP-3)")
    return [ev.FudgePointSpent(combatant=who.name, use=c.use, target=target, cost=cost),
            ev.EventsVoided(seqs=(target,), reason=f"{who.name} spent a fudge point ({c.use})"),
            ev.WoundMarked(action=event.action, combatant=who.name, level=level, damage=event.damage,
                           still_ticking=ticking, halved_from=halved if c.use == "scratch" else event.halved_from)]


def _gm_wound(state: FightState, c: cmd.GmWound, dice: Dice) -> list[Any]:
    """A-LOG-1: a wound the GM rules (a fall, fire, a trap), marked as a blow's wound would be:
    overflow (F-WND-3), pawns and the DC track, damage-capacity options and the PC death caps apply."""
    if state.options.ruleset == "fate":
        raise RuleError("a Fate fight marks boxes from exchanges (FT-TRACK); a wound level is a Fudge ruling")
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
    marks = [m.model_copy(update={"notes": (ruling, *m.notes)}) if isinstance(m, ev.WoundMarked) else m
             for m in marks]
    if not any(isinstance(m, ev.WoundMarked) for m in marks):
        raise RuleError(f"a {LEVELS[c.level]} leaves no mark on {who.name} under these rules (F-WND-7, F-DEATH)")
    return marks


def _kill(state: FightState, c: cmd.Kill, dice: Dice) -> list[Any]:
    who = combatant(state, c.combatant)
    if who.track.dead:
        raise RuleError(f"{who.name} is already dead")
    return [ev.CombatantKilled(combatant=who.name, reason=c.reason)]


from engine.melee_multi import decide_melee, reresolve_melee  # noqa: E402  (it builds on the helpers above)
from engine.story import decide_story  # noqa: E402

HANDLERS: dict[type, Callable[[FightState, Any, Dice], list[Any]]] = {
    cmd.StartFight: _start,
    cmd.StartBranch: _branch,
    cmd.CommitSeed: _commit,
    cmd.RevealSeed: _reveal_seed,
    cmd.Join: _join,
    cmd.Declare: _declare,
    cmd.SealDeclaration: _seal,
    cmd.StartRound: _round,
    cmd.Exchange: _exchange,
    cmd.Attack: _attack,
    cmd.RollTrait: _roll,
    cmd.Barter: _barter,
    cmd.NextTurn: _next,
    cmd.SpendPoint: _spend,
    cmd.Kill: _kill,
    cmd.GmWound: _gm_wound,
    cmd.OrderTies: _order_ties,
    cmd.DeclareIntent: _intend,
    cmd.Shoot: shoot,
    cmd.HoldAction: _hold,
    cmd.Melee: decide_melee,
    cmd.StoryRoll: decide_story,
}


from engine import aftermath  # noqa: E402  (F-HEAL commands: they use the helpers above)

HANDLERS.update(aftermath.HANDLERS)


def _atari_refuses(handler: Callable[[FightState, Any, Dice], list[Any]],
                   why: str) -> Callable[[FightState, Any, Dice], list[Any]]:
    def refuse(state: FightState, command: Any, dice: Dice) -> list[Any]:
        if state.options.ruleset == "atari-isev":
            raise RuleError(why)
        return handler(state, command, dice)
    return refuse


def _atari(name: str) -> Callable[[FightState, Any, Dice], list[Any]]:
    def handler(state: FightState, command: Any, dice: Dice) -> list[Any]:
        from engine import atari
        return getattr(atari, name)(state, command, dice)  # type: ignore[no-any-return]
    return handler


HANDLERS[cmd.Willpower] = _atari("willpower")
HANDLERS[cmd.ResistSpell] = _atari("resist_spell")
HANDLERS[cmd.HeroicAvoidance] = _atari("heroic")
HANDLERS[cmd.Shoot] = _atari_refuses(HANDLERS[cmd.Shoot], "Atari Isev missiles are attacks: `fudge attack A B --ranged "
                                                          "thrown|propelled` (AI-RNG)")


from engine import fate  # noqa: E402  (FT commands: they use the helpers above)

fate.install(HANDLERS)
