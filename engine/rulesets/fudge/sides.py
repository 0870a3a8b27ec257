"""Sides: who fights, whether they can act, and the trait and modifiers each brings to a roll or a blow.

Part of the shared toolkit every ruleset builds on (it imports no ruleset).

Speed: sides are frozen, and a fighter brings the same side to most blows of a
fight (and of every fight a simulation plays from the same opening), so the side
before the dice, and the side with each roll, are built once and shared
(`_side`, `with_roll`, `_modifier`: one cache, private to this module).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from msgspec.structs import replace as with_fields

from fudge_combat.engine.rulesets.fudge import stun
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.locations import location_modifiers
from fudge_combat.engine.rulesets.fudge.melee_mods import weapon_size_modifiers
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.wounds import LEVELS, NEAR_DEATH, UNDAMAGED, VERY_HURT, Track
from fudge_combat.engine.kernel.words import some_of
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState

SHIELD_SIZES = ("small", "medium", "large")
NO_DECLARATION = ev.Declaration()  # frozen: one instance serves every fighter who declared nothing


def combatant(state: FightState, name: str) -> Combatant:
    found = state.find(name)
    if found is None:
        names = some_of([c.name for c in state.combatants.values()]) or "nobody has joined yet"
        raise RuleError(f"no combatant {name!r} in {state.name}; combatants: {names}")
    return found


def able(state: FightState, name: str) -> Combatant:
    who = combatant(state, name)
    if who.left:
        raise RuleError(f"{who.name} is out of the fight ({who.left}) and cannot act")
    if not who.track.can_act:
        raise RuleError(who.track.unable(who.name))
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
    rolled = with_fields(side, roll=roll, result=result, offense=result + posture, defense=result - posture)
    if shared is not None and shared[0] is side:
        shared[1][roll] = rolled
    return rolled


# The shared sides (see the module's docstring). An entry keeps the objects whose ids make its key,
# so no id can be reused while it is kept, and a hit is checked against them.
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


def side_for(state: FightState, who: Combatant, foe: Combatant | None, role: str, declaration: ev.Declaration,
             gm_mod: int, gm_label: str = "GM modifier") -> ev.Side:
    """F-MOD-1, F-MOD-2, F-MOD-3, F-MOD-4, F-MOD-6, F-MOD-7: the trait and every modifier one fighter
    brings to a blow.

    Without a `foe` (a lone fighter facing several, F-MULTI) the foe's shield
    and weapon size are left to each comparison.
    """
    opts = state.options
    combat = who.fighter.sheet.combat
    wanted = (combat.defend or combat.attack) if (combat and role == "defend") else (combat.attack if combat else "Brawling")
    trait, level, _ = who.fighter.trait(wanted, opts)
    mods = wound_modifiers(who, opts) + stun.modifiers(state, who, role) + location_modifiers(who.locations, "combat")
    if foe is not None and role != "defend" and (shield := foe.fighter.sheet.shield) and shield_value(foe, opts):
        mods.append(_modifier(f"{foe.name}'s {shield.size} shield", -shield_value(foe, opts)))
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


def blow_sides(state: FightState, kind: str, first: Combatant, second: Combatant,
               declared: Mapping[str, ev.Declaration], mods: tuple[int, int]) -> list[ev.Side]:
    """The two sides of an exchange or a directed attack before the dice: what `engine.rulesets.fudge.blows.fight` rolls and
    `engine.odds.duel` weighs (every modifier through `side_for`)."""
    roles = ("attack", "attack") if kind == "exchange" else ("attack", "defend")
    labels = ("GM modifier", "GM modifier") if kind == "exchange" else ("GM modifier", "GM defense modifier")
    return [side_for(state, who, foe, role, declared.get(who.key, NO_DECLARATION), mod, label)
            for who, foe, role, mod, label in zip((first, second), (second, first), roles, mods, labels)]


def acting_wound(state: FightState, who: Combatant, track: Track | None = None) -> tuple[int, int]:
    """F-MOD-1, AI-WILL-1: the wound level that weighs on `who`'s actions, and its penalty.

    The one source of both the wound modifier on his rolls and the level and penalty `status`
    shows, so the two never disagree. Willpower lowers the level a wound counts as for the
    scene (the marks stay; not at Near Death). A ruleset whose Reading says `campaign_wounds` (Atari Isev)
    reads the campaign's penalties; the others the track's own (F-DC pain thresholds, F-WND-8). `track`: the marks that
    count (the current slot's for a roll, AI-INIT-2); the whole track by default.
    """
    track = who.track if track is None else track
    if not ruleset_of(state).campaign_wounds:
        return track.level, track.penalty(state.options)
    level = track.level
    relief = state.will_relief.get(who.key, 0)
    level = max(UNDAMAGED, level - relief) if level < NEAR_DEATH else level
    return level, state.options.wound_penalties[min(level, VERY_HURT) - 1] if level else 0
