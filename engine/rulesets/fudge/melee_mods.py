"""Melee modifiers that need no more than the fighters and the options (001 4.3.1, 4.3.3).

F-MOD-4 weapon size, F-MOD-5 magic, F-HIT-2 aimed blows, F-NPC-1 static NPCs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from msgspec.structs import replace as with_fields

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import structs as ev

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import Combatant, FightState

SHIELD_ORDER = ("small", "medium", "large")


def is_static_npc(state: FightState, who: Combatant) -> bool:
    """F-NPC-1: with `npc_static`, an NPC's result is its trait level (sheets of kind "npc")."""
    return state.options.npc_static and who.fighter.sheet.kind == "npc"


def magic_modifiers(magic: Sequence[tuple[str, int]], who: Combatant) -> list[ev.Modifier]:
    """F-MOD-5: a blessing (+) or curse (-) the GM gives one fighter, recorded by name."""
    return [ev.Modifier(name="magic blessing" if value > 0 else "magic curse", value=value)
            for name, value in magic if name.lower() == who.key and value]


def check_magic(magic: Sequence[tuple[str, int]], fighters: Sequence[Combatant]) -> None:
    keys = {f.key for f in fighters}
    for name, value in magic:
        if name.lower() not in keys:
            raise RuleError(f"--magic {name}={value:+d}: {name} does not fight in this blow")
        if value == 0:
            raise RuleError(f"--magic {name}=0: a blessing is +1 or more, a curse -1 or worse (F-MOD-5)")


def weapon_size_modifiers(state: FightState, who: Combatant, foe: Combatant) -> list[ev.Modifier]:
    """F-MOD-4 (option `weapon_size`): weapon + shield at least 2 below the foe's gives -1 to skill.

    The weapon value is the sheet's weapon damage (F-DMG-1: size + sharp);
    the shield its melee value (F-MOD-3).
    """
    if not state.options.weapon_size:
        return []

    def size(fighter: Combatant) -> int:
        sheet = fighter.fighter.sheet
        shield = state.options.shield_values[SHIELD_ORDER.index(sheet.shield.size)] if sheet.shield else 0
        return (sheet.weapon.damage if sheet.weapon else 0) + shield

    if size(foe) - size(who) >= 2:
        return [ev.Modifier(name=f"smaller weapon than {foe.name}'s", value=-1)]
    return []


AIM_PENALTY = ev.Modifier(name="aimed blow", value=-1)


def check_aim(aim: int | None, aim_at: str | None, least_part: int) -> None:
    """F-HIT-2: an aimed blow names a part and needs Good or Great (GM input) to strike it."""
    if aim_at is None and aim is None:
        return
    if not aim_at or not aim_at.strip():
        raise RuleError("an aimed blow names the part it aims at: --aim-at PART (F-HIT-2)")
    if aim is None or aim < least_part:
        raise RuleError("an aimed blow at a small part needs a minimum result of Good or Great: --aim LEVEL (F-HIT-2)")


def aimed_hits(hits: Sequence[ev.Hit], aimer: ev.Side, aim: int | None, aim_at: str | None) -> tuple[ev.Hit, ...]:
    """F-HIT-2: the aimer's hit strikes the part when his result reaches the aim; otherwise elsewhere."""
    if aim_at is None or aim is None:
        return tuple(hits)
    out = []
    for hit in hits:
        if hit.attacker == aimer.combatant:
            reached = aimer.result is not None and aimer.result >= aim
            hit = with_fields(hit, aimed_at=aim_at, location=aim_at if reached else None)
        out.append(hit)
    return tuple(out)


def plus_modifiers(who: Combatant, trait: str, round_number: int) -> list[ev.Modifier]:
    """F-FANCY-2: a plus level (`Good+`) is +1 on every other round, starting with round 2."""
    if trait in who.fighter.plus and round_number >= 2 and round_number % 2 == 0:
        return [ev.Modifier(name="plus level (even round)", value=1)]
    return []


def speed_contest_of(state: FightState, fighters: Sequence[Combatant],
                     roll: Callable[[str, str], ev.DiceRolled]
                     ) -> tuple[list[ev.DiceRolled], tuple[int, int], list[list[ev.Modifier]]]:
    """F-FANCY-1: an opposed Speed roll after declarations; the winner adds the difference to his weapon skill.

    Each result counts the fighter's wound penalty (F-MOD-1), as every action does.
    """
    rolls, results = [], []
    for who in fighters:
        trait, level, _ = who.fighter.trait(state.options.speed_trait, state.options)
        rolls.append(roll(who.name, trait))
        results.append(level + sum(rolls[-1].faces) + who.track.penalty(state.options))
    difference = results[0] - results[1]
    boosts: list[list[ev.Modifier]] = [[], []]
    if difference:
        boosts[0 if difference > 0 else 1] = [ev.Modifier(name="won the speed contest", value=abs(difference))]
    return rolls, (results[0], results[1]), boosts
