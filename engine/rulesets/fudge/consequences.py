"""What a command did to Fudge's fighters and turns, in the GM's words (`projections.consequences` asks the
fight's ruleset through its `Reading`): wounds and their penalties on the wound track (F-WND, F-MOD-1,
AI-WILL-1, F-STUN-1), and whose turn it is (PH-1, PH-3, F-INIT-2). Each line is (its kind, its text)."""

from __future__ import annotations

from fudge_combat.engine.kernel.initiative import PHASE_NAME
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.wounds import LEVELS

Said = tuple[str, str]  # (kind, text): a consequence, as `projections.consequences.Consequence` holds it


def harm(before: FightState, after: FightState) -> list[Said]:
    """Each fighter whose track, stun or willpower changed: his level and penalty now, a box marked that
    left the level as it was, or out of the fight still; a stun (F-STUN-1)."""
    from fudge_combat.engine.rulesets.fudge import stun
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound

    out = []
    for key, now in after.combatants.items():
        was = before.combatants.get(key)
        if was is None or (was.track is now.track and was.stunned == now.stunned
                           and before.will_relief.get(key) == after.will_relief.get(key)):
            continue
        level, acting = now.track.level, acting_wound(after, now)
        if not now.track.can_act:
            if was.track.level != level and not was.track.can_act and not now.track.dead:
                out.append(("wound", f"{now.name} is {LEVELS[level]}, still out of the fight"))
        elif level != was.track.level or acting != acting_wound(before, was):
            relief = f" (acts as {LEVELS[acting[0]]}, willpower)" if acting[0] != level else ""
            penalty = f"{acting[1]:+d} to every roll" if acting[1] else "no penalty"
            out.append(("wound", f"{now.name} is {_level_word(level)}{relief}: {penalty}"))
        else:
            out += _boxes_marked(was, now, acting[1])
        effect = stun.effect(after, now)
        if effect and effect != stun.effect(before, was):
            until = f" until round {now.stunned[1]}" if now.stunned else ""
            out.append(("wound", f"{now.name} is {stun.LABEL[effect]}{until} (F-STUN-1)"))
    return out


def _boxes_marked(was: Combatant, now: Combatant, penalty: int) -> list[Said]:
    """A box marked that leaves the level as it was (F-WND-3: a Scratch on a Very Hurt fighter): said, so
    the GM does not read the log's "wounded: Very Hurt" as a blow that made her so."""
    rows, old = getattr(now.track, "boxes", ()), getattr(was.track, "boxes", ())
    out = []
    for index, (row, before) in enumerate(zip(rows, old)):
        marked, had = sum(box is not None for box in row), sum(box is not None for box in before)
        if marked > had:
            still = f"{penalty:+d} to every roll" if penalty else "no penalty"
            out.append(("wound", f"{now.name} marks a {LEVELS[index + 1]} box ({marked} of {len(row)}), "
                                            f"still {LEVELS[now.track.level]}: {still}"))
    return out


def _level_word(level: int) -> str:
    """A wound level after "is": Brynhild is Hurt, is Scratched."""
    return "Scratched" if LEVELS[level] == "Scratch" else LEVELS[level]


def _when(state: FightState, phase: int) -> str:
    return f"initiative {phase:+d}" if state.options.initiative in ("opposed", "ranked") else f"phase {PHASE_NAME[phase]}"


def turn(before: FightState, after: FightState) -> list[Said]:
    """Whose turn it is now (and to declare or to resolve, PH-4), or that the round's turns are all taken."""
    now, was = after.turn, before.turn
    if now is None or now.step == "held" or (was is not None and (now.round, now.phase, now.combatant, now.index,
                                                                    now.step) == (was.round, was.phase, was.combatant,
                                                                                  was.index, was.step)):
        if now is not None and now.acted and not (was is not None and was.acted) and _last_turn(after):
            return [("turn", f"round {after.round}'s turns are all taken: `fudge round` starts the next")]
        return []
    name = after.combatants[now.combatant].name
    verb = {"declare": " to declare", "resolve": " to resolve"}.get(now.step, "")
    return [("turn", f"{name}'s turn{verb} ({_when(after, now.phase)})")]


def _last_turn(state: FightState) -> bool:
    """Nobody able acts after the current turn this round."""
    turn = state.turn
    if turn is None:
        return False
    if state.options.initiative in ("opposed", "ranked"):
        from fudge_combat.engine.rulesets.fudge.ranked import turn_order
        keys = [key for _, key, _ in turn_order(state)]
    else:
        from fudge_combat.engine.rulesets.fudge.phase_order import slots
        keys = [slot.combatant for slot in slots(state)]
    return not any(state.combatants[key].track.can_act for key in keys[turn.index + 1:])
