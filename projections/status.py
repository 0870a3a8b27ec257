"""`fudge status`'s text and JSON: what a fight's state shows of its round, turn and combatants.

Derived from the state alone, with every text a line of the status text holds escaped where it is
joined (`status_text`), so that the stored read model (projections.board_view) holds the very text the
shell prints, and the shell (cli.render, cli.fight) only prints it.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine.kernel.words import counted
from fudge_combat.engine.kernel.initiative import PHASE_NAME, PHASES
from fudge_combat.engine.rulesets.fudge.locations import LOCATION_LEVELS
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events import structs as ev
from fudge_combat.engine.rulesets.fudge import stun
from fudge_combat.engine.rulesets.fudge.tracks import DamageCapacityTrack, is_pawn
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.rulesets.fudge.describe import declaration_text
from fudge_combat.projections.text import safe

BOX_LEVELS = LEVELS[1:6]


def boxes_json(who: Combatant) -> dict[str, list[str | None]]:
    return {BOX_LEVELS[i]: [LEVELS[b] if b is not None else None for b in row]
            for i, row in enumerate(who.track.boxes)}


def initiative_json(state: FightState, who: Combatant) -> dict[str, Any]:
    initiative = state.initiative.get(who.key)
    if initiative is None:
        return {"dice": [], "phases": [], "surprised": False}
    out: dict[str, Any] = {
        "dice": [_die_json(d) for d in initiative.dice],
        "phases": [PHASE_NAME[p] for p in initiative.phases(state.options)],
        "surprised": initiative.surprised}
    # Keys beyond the first three appear only when they say something, so older views read the same.
    if initiative.bonus:
        out["gift_phases"] = [PHASE_NAME[p] for p in initiative.bonus]
    if state.options.spares_as_points:
        out["spares"] = [i + 1 for i in initiative.spares(state.options) if not initiative.dice[i].spent]
    if initiative.intents:
        out["intents"] = [{"phase": PHASE_NAME[i.phase], "what": i.what,
                           "target": state.combatants[i.target].name if i.target else None}
                          for i in initiative.intents]
    return out


def _die_json(die: Any) -> dict[str, Any]:
    out = {"face": PHASE_NAME[die.face], "traded": die.traded, "locked": die.locked}
    for flag in ("fixed", "discarded", "spent"):
        if getattr(die, flag):
            out[flag] = True
    return out


def wound_json(state: FightState, who: Combatant) -> dict[str, Any]:
    """The wound as marked, and the penalty his rolls use (AI-WILL-1: `acts_as` when willpower lightens it)."""
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound
    acts_as, penalty = acting_wound(state, who)
    out: dict[str, Any] = {"wound_level": LEVELS[who.track.level], "penalty": penalty}
    if acts_as != who.track.level:
        out["acts_as"] = LEVELS[acts_as]
    return out


def status_json(state: FightState) -> dict[str, Any]:
    out = status_json_head(state)
    out["combatants"] = [combatant_json(state, who)
                         for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq)]
    return status_json_tail(state, out)


def status_json_head(state: FightState) -> dict[str, Any]:
    """`status_json`'s keys before the combatants (projections.board_view keeps each combatant's part apart).

    `turn` is whose turn it is under every pace, as the board's header says it (engine.turns): the actor
    `fudge next` gave it to, or the next in Fate's Alertness order; null where the pace has no turns
    (simultaneous rounds, Fate's exchanges and scenes) or none is given yet."""
    from fudge_combat.engine.turns import current_actor

    turn = state.turn
    actor = current_actor(state)
    return {
        "fight": state.name,
        "rules": state.rules,
        "round": state.round,
        "phase": phase_label(state, turn.phase) if turn else None,
        "turn": actor.name if actor is not None else None,
        "last_seq": state.last_seq,
    }


def status_json_tail(state: FightState, out: dict[str, Any]) -> dict[str, Any]:
    """The keys after the combatants."""
    turn = state.turn
    if turn is not None and turn.step != "act":
        out["step"] = turn.step  # PH-4 `structured`
    return out


def combatant_json(state: FightState, who: Combatant) -> dict[str, Any]:
    """One combatant in `status_json`."""
    return {
        "name": who.name,
        "side": who.side,
        **wound_json(state, who),
        "fudge_points": who.fudge_points,
        "boxes": boxes_json(who),
        "declaration": _declaration(state, who),
        "initiative": (ranked_json(state, who) if state.options.initiative in ("opposed", "ranked")
                       else initiative_json(state, who)),
        **({"locations": locations_json(who)} if who.locations else {}),
        **({"conditions": conditions_json(who)} if who.conditions else {}),
        **({"left": who.left} if who.left else {}),
        **aftermath_json(state, who),
        **ruleset_of(state).status_json(state, who),
    }


def conditions_json(who: Combatant) -> list[dict[str, Any]]:
    """The conditions the GM marked (docs/table.md), in the order marked: a rules' own state says what the
    rules say of it (`rules`)."""
    from fudge_combat.engine.rulesets.fudge.conditions import NAMED

    return [{"name": c.name, "note": c.note or None, "until_round": c.until, "rules": NAMED.get(c.name.lower())}
            for c in who.conditions]


def condition_words(who: Combatant, notes: bool = True) -> list[str]:
    """Each condition in words, unescaped: "prone until round 3: tripped"; `notes` False leaves the notes out."""
    return [c.name + (f" until round {c.until}" if c.until is not None else "") + (f": {c.note}" if notes and c.note else "")
            for c in who.conditions]


def locations_json(who: Combatant) -> dict[str, dict[str, str | None]]:
    """F-LOC-2: each wounded part's level and what it hinders."""
    return {part: {"level": LOCATION_LEVELS[level], "affects": affects}
            for part, (level, affects) in sorted(who.locations.items())}


def aftermath_json(state: FightState, who: Combatant) -> dict[str, Any]:
    """Pawn track, stun and healed marks: keys present only when they say something (F-WND-7, F-STUN, F-HEAL)."""
    out: dict[str, Any] = {}
    if is_pawn(who.fighter.sheet):
        out["track"] = "pawn"
    if isinstance(who.track, DamageCapacityTrack):
        out["damage_capacity"] = {"undamaged": state.ladder.name(who.track.capacity),
                                  "now": state.ladder.name(who.track.current), "hits": who.track.hits}
    if who.track.out:
        out["out"] = who.track.out
    effect = stun.effect(state, who)
    if who.stuns or effect:
        out["stun"] = {"marks": who.stuns, "effect": stun.LABEL[effect] if effect else None,
                       "until_round": who.stunned[1] if who.stunned else None}
    healed = [{"seq": m.seq, "dealt": LEVELS[m.healed_from], "now": LEVELS[m.level]}
              for m in who.marks if m.healed_from is not None]
    if healed:
        out["healed"] = healed
    return out


def aftermath_text(state: FightState, who: Combatant) -> str:
    """One line of the extras in `aftermath_json`, or nothing."""
    extra = aftermath_json(state, who)
    parts = []
    if "track" in extra:
        parts.append("pawn (Undamaged, Hurt, Out of the battle)")
    if "damage_capacity" in extra:
        dc = extra["damage_capacity"]
        parts.append(f"Damage Capacity {dc['now']} ({counted(dc['hits'], 'hit')} from {dc['undamaged']})")
    if "out" in extra:
        parts.append(extra["out"])
    if "stun" in extra:
        effect = extra["stun"]["effect"]
        parts.append(f"{effect} until round {extra['stun']['until_round']}" if effect
                     else f"stun marks {extra['stun']['marks']}")
    parts += [f"healed {h['dealt']} -> {h['now']}" for h in extra.get("healed", [])]
    return f"    {'; '.join(parts)}" if parts else ""


def _declaration(state: FightState, who: Combatant) -> str | None:
    if who.key in state.sealed:
        return "sealed"
    declared = state.declarations.get(who.key)
    if declared is None:
        coming = state.pending.get(who.key)  # declared before the roll of the round it is for (AI-WAIT)
        return f"for round {coming[0]}: {declaration_text(coming[1])}" if coming is not None else None
    if declared.all_out:
        return f"all-out {declared.all_out}"
    if declared.posture is not None:
        return f"posture {declared.posture:+d}"
    return None


def card(state: FightState, who: Combatant) -> list[str]:
    """The initiative card (003): dice sorted into the five phase rows, traded dice under `--`.

    `*` marks a phase acted in; a fixed die is `#Nf`; a gift's phase is `[gift]`;
    discarded dice, spare dice and declared intents follow the rows.
    """
    initiative = state.initiative.get(who.key)
    if initiative is None:
        return []
    rows: dict[str, list[str]] = {name: [] for name in PHASES}
    discarded = []
    for index, die in enumerate(initiative.dice, start=1):
        shown = f"[{PHASE_NAME[die.face]}]#{index}{'f' if die.fixed else ''}"
        if die.discarded:
            discarded.append(shown)
            continue
        rows["--" if die.traded else PHASE_NAME[die.face]].append(shown)
    for phase in initiative.bonus:
        rows[PHASE_NAME[phase]].append("[gift]")
    acting = {PHASE_NAME[p] for p in initiative.phases(state.options)}
    lines = []
    for name in PHASES:
        mark = "*" if name in acting else " "
        lines.append(f"    {mark} {name:>2}: {' '.join(rows[name])}")
    if initiative.surprised:
        lines.append("      surprised: every phase drops one level (PH-5)")
    if discarded:
        lines.append(f"      discarded before bartering: {' '.join(discarded)}")
    if any(d.fixed for d in initiative.dice):
        lines.append("      f: a fixed die, frozen on its face")
    if state.options.spares_as_points:
        spares = [i for i in initiative.spares(state.options)]
        left = [f"#{i + 1}" for i in spares if not initiative.dice[i].spent]
        spent = [f"#{i + 1}" for i in spares if initiative.dice[i].spent]
        lines.append(f"      spare dice, +1 to a roll each (CT-SPARE): {' '.join(left) or 'none'}"
                     f"{f'; spent: ' + ' '.join(spent) if spent else ''}")
    for intent in initiative.intents:
        what = f"attack {state.combatants[intent.target].name}" if intent.target else intent.what
        lines.append(f"      declared in {PHASE_NAME[intent.phase]}: {what}")
    return lines


def status_text(state: FightState) -> str:
    """Every line escaped on its own: a line feed in a name from a sheet cannot forge a line."""
    return "\n".join(safe(line) for line in _status_lines(state))


def _status_lines(state: FightState) -> list[str]:
    lines = status_head_lines(state)
    for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
        lines.extend(combatant_text_lines(state, who))
    return lines


def status_head_lines(state: FightState) -> list[str]:
    """The status text's lines before the combatants' (unescaped)."""
    lines = [f"{state.name} ({state.rules}) round {state.round}, last event {state.last_seq}"]
    if state.turn:
        step = {"declare": " (declares)", "resolve": " (resolves)", "held": " (holds)"}.get(state.turn.step, "")
        lines.append(f"turn: {state.combatants[state.turn.combatant].name} in phase {phase_label(state, state.turn.phase)}{step}")
    scene = ruleset_of(state).scene
    if scene is not None:
        lines[0] += f", scene {scene(state)}, pace {state.options.pace}"
    return lines


def combatant_text_lines(state: FightState, who: Combatant) -> list[str]:
    """One combatant's lines of the status text (unescaped)."""
    own = ruleset_of(state).status_lines
    if own is not None:  # the ruleset's own boxes (Fate's, FT-TRACK)
        return [f"  {who.name} ({who.side})", *own(state, who), *conditions_lines(who, left=True)]
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound
    acts_as, penalty = acting_wound(state, who)  # AI-WILL-1: what his rolls use
    level = LEVELS[who.track.level] + (f" (acts as {LEVELS[acts_as]}, willpower)"
                                       if acts_as != who.track.level else "")
    boxes = "  ".join(
        f"{BOX_LEVELS[i]} " + "".join("[ ]" if b is None else f"[{'x' if b == i + 1 else LEVELS[b][0]}]" for b in row)
        for i, row in enumerate(who.track.boxes))
    declared = _declaration(state, who)
    shown = f" {penalty:+d}" if penalty and who.track.can_act else "" if who.track.can_act else " (cannot act)"
    lines = [f"  {who.name} ({who.side}): {level}{shown}, "
             f"fudge points {who.fudge_points}{f', declared {declared}' if declared else ''}",
             f"    {boxes}"]
    if who.locations:
        lines.append("    parts: " + ", ".join(
            f"{part} {LOCATION_LEVELS[level]}{f' (-1 {affects})' if affects and level >= 2 else ''}"
            for part, (level, affects) in sorted(who.locations.items())))
    lines.extend(line for line in [aftermath_text(state, who)] if line)
    lines.extend(conditions_lines(who))
    lines.extend(card(state, who))
    lines.extend(ranked_line(state, who))
    return lines


def conditions_lines(who: Combatant, left: bool = False) -> list[str]:
    """The conditions marked, and with `left` who left the fight and how (Fate's lines say nothing of it; the
    Fudge track's `out` says it in `aftermath_text`). Unescaped."""
    lines = [f"    out of the fight: {who.left}"] if left and who.left else []
    if who.conditions:
        lines.append("    conditions: " + "; ".join(condition_words(who)))
    return lines


def phase_label(state: FightState, phase: int) -> str:
    """A turn's place: a phase name, or the initiative total under rolled initiative."""
    return f"{phase:+d}" if state.options.initiative in ("opposed", "ranked") else PHASE_NAME[phase]


def ranked_json(state: FightState, who: Combatant) -> dict[str, Any]:
    """Rolled initiative (F-INIT-2, AI-INIT-2): this round's total, the round's declaration, willpower relief."""
    rolled = state.ranked.get(who.key)
    declared = state.round_declarations.get(who.key)
    pending = state.pending.get(who.key)
    return {"total": rolled.total if rolled else None, "automatic": bool(rolled and rolled.automatic),
            "declared": declaration_text(declared) if declared else None,
            "will_relief": state.will_relief.get(who.key, 0),
            **({"declared_next": {"round": pending[0], "declaration": declaration_text(pending[1])}}
               if pending else {})}


def ranked_line(state: FightState, who: Combatant) -> list[str]:
    rolled = state.ranked.get(who.key)
    lines = [f"    initiative {rolled.total:+d}"] if rolled else []
    declared = state.round_declarations.get(who.key)
    if declared is not None:
        lines.append(f"    declared: {declaration_text(declared)}")
    pending = state.pending.get(who.key)
    if pending is not None:  # made before the round it is for (F-INIT-2, AI-WAIT)
        lines.append(f"    declared for round {pending[0]}: {declaration_text(pending[1])}")
    if state.will_relief.get(who.key):
        lines.append(f"    willpower: wounds count {counted(state.will_relief[who.key], 'level')} lighter this scene")
    return lines
