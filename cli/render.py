"""Text and JSON views of projections and events (stdout only)."""

from __future__ import annotations

from typing import Any

from cli.terminal import safe
from engine.dice import format_faces
from engine.initiative import PHASE_NAME, PHASES
from engine.locations import LOCATION_LEVELS
from engine.wounds import LEVELS
from events import models as ev
from events.envelope import Recorded
from engine import stun
from engine.tracks import DamageCapacityTrack, is_pawn
from engine.state import Combatant, FightState

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
    from engine.atari import acting_wound
    acts_as, penalty = acting_wound(state, who)
    out: dict[str, Any] = {"wound_level": LEVELS[who.track.level], "penalty": penalty}
    if acts_as != who.track.level:
        out["acts_as"] = LEVELS[acts_as]
    return out


def status_json(state: FightState) -> dict[str, Any]:
    turn = state.turn
    out = {
        "fight": state.name,
        "rules": state.rules,
        "round": state.round,
        "phase": phase_label(state, turn.phase) if turn else None,
        "turn": state.combatants[turn.combatant].name if turn else None,
        "last_seq": state.last_seq,
        "combatants": [
            {
                "name": who.name,
                "side": who.side,
                **wound_json(state, who),
                "fudge_points": who.fudge_points,
                "boxes": boxes_json(who),
                "declaration": _declaration(state, who),
                "initiative": (ranked_json(state, who) if state.options.initiative in ("opposed", "ranked")
                               else initiative_json(state, who)),
                **({"locations": locations_json(who)} if who.locations else {}),
                **aftermath_json(state, who),
                **(fate_status_json(state, who) if state.options.ruleset == "fate" else {}),
            }
            for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq)
        ],
    }
    if turn is not None and turn.step != "act":
        out["step"] = turn.step  # PH-4 `structured`
    return out


def locations_json(who: Combatant) -> dict[str, dict[str, str | None]]:
    """F-LOC-2: each wounded part's level and what it hinders."""
    return {part: {"level": LOCATION_LEVELS[level], "affects": affects}
            for part, (level, affects) in sorted(who.locations.items())}


def fate_status_json(state: FightState, who: Combatant) -> dict[str, Any]:
    from cli import fate_render
    return fate_render.status_json(state, who)


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
        parts.append(f"Damage Capacity {dc['now']} ({dc['hits']} hit(s) from {dc['undamaged']})")
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
        return None
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
    lines = [f"{state.name} ({state.rules}) round {state.round}, last event {state.last_seq}"]
    if state.turn:
        step = {"declare": " (declares)", "resolve": " (resolves)", "held": " (holds)"}.get(state.turn.step, "")
        lines.append(f"turn: {state.combatants[state.turn.combatant].name} in phase {phase_label(state, state.turn.phase)}{step}")
    if state.options.ruleset == "fate":
        from cli import fate_render
        lines[0] += f", scene {state.fate_scene}, pace {state.options.pace}"
        for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
            lines.append(f"  {who.name} ({who.side})")
            lines.extend(fate_render.status_lines(state, who))
        return lines
    for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
        from engine.atari import acting_wound
        acts_as, penalty = acting_wound(state, who)  # AI-WILL-1: what his rolls use
        level = LEVELS[who.track.level] + (f" (acts as {LEVELS[acts_as]}, willpower)"
                                           if acts_as != who.track.level else "")
        boxes = "  ".join(
            f"{BOX_LEVELS[i]} " + "".join("[ ]" if b is None else f"[{'x' if b == i + 1 else LEVELS[b][0]}]" for b in row)
            for i, row in enumerate(who.track.boxes))
        declared = _declaration(state, who)
        shown = f" {penalty:+d}" if penalty and who.track.can_act else "" if who.track.can_act else " (cannot act)"
        lines.append(f"  {who.name} ({who.side}): {level}{shown}, "
                     f"fudge points {who.fudge_points}{f', declared {declared}' if declared else ''}")
        lines.append(f"    {boxes}")
        if who.locations:
            lines.append("    parts: " + ", ".join(
                f"{part} {LOCATION_LEVELS[level]}{f' (-1 {affects})' if affects and level >= 2 else ''}"
                for part, (level, affects) in sorted(who.locations.items())))
        lines.extend(line for line in [aftermath_text(state, who)] if line)
        lines.extend(card(state, who))
        lines.extend(ranked_line(state, who))
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
        lines.append(f"    willpower: wounds count {state.will_relief[who.key]} level(s) lighter this scene")
    return lines


def declaration_text(d: ev.Declaration) -> str:
    parts = [f"all-out {d.all_out}"] if d.all_out else []
    if d.posture is not None:
        parts.append(f"posture {d.posture:+d}")
    if d.wait:
        parts.append(f"{'hurry' if d.wait > 0 else 'wait'} {d.wait:+d}")
    parts += [n for n, on in (("hasty attack", d.hasty), ("two attacks", d.two_attacks), ("multi-strike", d.sweep)) if on]
    if d.two_avoidances:
        parts.append(f"two avoidances ({d.two_avoidances})")
    return ", ".join(parts) or "normal"


def mods(modifiers: tuple[ev.Modifier, ...]) -> str:
    return "".join(f" {m.value:+d} {m.name}" for m in modifiers)


def hit_detail(h: ev.Hit) -> str:
    """Every number from a won blow to its wound level (F-DMG, F-GRAZE, F-DROLL, F-MMM, F-TECH, F-RNG-5)."""
    factor = f"factor {h.damage_factor:+d}"
    if h.offensive is not None and h.defensive is not None:
        factor += f" (offense {h.offensive:+d} − defense {h.defensive:+d}"
        factor += f", tech Scale {h.tech:+d})" if h.tech is not None else ")"
    extra = ""
    if h.bullets is not None:
        extra += f", {h.bullets} of {h.bullets_max} bullets"
    if h.rd_weight is not None:
        extra += f", RD counted ×{h.rd_weight}"
    if h.parity is not None:
        extra += f", parity +{h.parity[0]} offense / +{h.parity[1]} defense"
    if h.damage_roll_mode is not None and h.damage_roll is not None:
        extra += f", {h.damage_roll_mode}"
    if h.level_shift is not None:
        extra += f", level shifted {h.level_shift:+d}"
    if h.mmm_bonus is not None:
        extra += f", min-mid-max bonus {h.mmm_bonus:+d}"
        extra += f" reads {h.mmm_read} = {h.mmm_value}" if h.mmm_read is not None else " (no roll)"
    return (f" [{h.attacker}→{h.defender}: RD {h.relative_degree:+d}, {factor}"
            f"{f', bonus {h.bonus:+d}' if h.bonus else ''}"
            f"{f', damage roll {h.damage_roll:+d}' if h.damage_roll is not None else ''}{extra}"
            f"{', graze' if h.graze else f', damage {h.damage}'} → {LEVELS[h.level]}"
            f"{f' at the {h.location}' if h.location else f', not at the {h.aimed_at}' if h.aimed_at else ''}]")


def shot_line(event: ev.ShotResolved, ladder: Any) -> str:
    """F-RNG: each roll against what it had to make, then the hits."""
    name = ladder.name
    parts = []
    for index, s in enumerate(event.sides):
        line = f"{s.combatant} {s.trait} {name(s.level)} {s.roll or 0:+d}{mods(s.modifiers)} = {name(s.result)}"
        if index < len(event.difficulties) and not (event.mode == "aware" and index == 1):
            line += f" vs {name(event.difficulties[index])}"
        parts.append(line)
    how = {"unaware": "at an unaware target", "aware": f"dodged ({event.weapon})", "shoot_back": "shooting back"}
    return (f"shot {how[event.mode]}: {'; '.join(parts)} → {event.outcome}"
            f"{''.join(hit_detail(h) for h in event.hits)}")


def line(event: Any, state: FightState, seq: int | None = None) -> str:
    """An event's line in the words of the fight it belongs to (its ladder; fate points under Fate).

    `state` is the state after the event, or later with `seq` the event's own number (a command's
    output shows its events with the state after the command): a wound line is read from it, so
    `log`, `replay` and a command's output say the same. One line, whatever its names hold: control
    characters from sheets and logs are shown escaped.
    """
    if isinstance(event, ev.WoundMarked):
        who = state.find(event.combatant)
        if who is not None:
            return safe(wound_line(event, state, who, seq))
    if isinstance(event, ev.FateBoxMarked):
        from cli import fate_render
        return safe(fate_render.box_line(event, state, seq))
    return safe(describe(event, state.ladder, points="fate" if state.options.ruleset == "fate" else "fudge"))


def wound_line(event: ev.WoundMarked, state: FightState, who: Combatant, seq: int | None) -> str:
    """F-WND-3,4, F-WND-1: the level the fighter ends at (overflow included), consequence first when he is out."""
    from engine.tracks import track_of
    track = who.track
    if seq is not None and any(m.seq > seq for m in who.marks):
        track = track_of(who.fighter, who.boxes, [m for m in who.marks if m.seq <= seq], state.options, who.out)
    how = " (Still Ticking)" if event.still_ticking else ""
    if event.halved_from is not None and event.halved_from != event.level:
        how += f" (halved from {LEVELS[event.halved_from]})"
    how += "".join(f" ({note})" for note in event.notes)
    ends = track.level
    article = "an" if LEVELS[event.level][0] in "AEIOU" else "a"
    blow = f"{article} {LEVELS[event.level]} blow"
    if track.dead:
        return f"{event.combatant} is dead: {blow}{how}"
    if not track.can_act:
        return f"{event.combatant} is out of the fight ({LEVELS[ends]}){': ' + blow if ends != event.level else ''}{how}"
    return f"{event.combatant} is wounded: {LEVELS[ends]}{f' ({blow})' if ends != event.level else ''}{how}"


def describe(event: Any, ladder: Any, points: str = "fudge") -> str:
    """One line per event, for `log`, `replay` and command output."""
    name = ladder.name
    if isinstance(event, ev.FightStarted):
        return f"fight {event.name} started under {event.rules} (dice seed committed {event.seed_commitment[:12]}…)"
    if isinstance(event, ev.BranchStarted):
        return f"branch {event.name} of {event.parent} at event {event.fork_seq}"
    if isinstance(event, ev.SeedCommitted):
        return f"new dice seed committed {event.seed_commitment[:12]}… ({event.reason})"
    if isinstance(event, ev.SeedRevealed):
        return f"dice seed {event.seed_commitment[:12]}… revealed"
    if isinstance(event, ev.CombatantJoined):
        return f"{event.combatant} joined (side {event.side}) from {event.source}"
    if isinstance(event, ev.RoundStarted):
        extra = f", surprised: {', '.join(event.surprised)}" if event.surprised else ""
        return f"round {event.round} begins{extra}"
    if isinstance(event, ev.Declared) and event.declaration != ev.Declaration(
            all_out=event.declaration.all_out, posture=event.declaration.posture):
        return f"{event.combatant} declares for round {event.round}: {declaration_text(event.declaration)}"
    if isinstance(event, ev.Declared):
        d = event.declaration
        what = f"all-out {d.all_out}" if d.all_out else f"posture {d.posture:+d}" if d.posture is not None else "normal"
        return f"{event.combatant} declares {what}"
    if isinstance(event, ev.DeclarationSealed):
        return f"{event.combatant} seals a declaration ({event.seal[:12]}…)"
    if isinstance(event, ev.DeclarationRevealed):
        d = event.declaration
        what = f"all-out {d.all_out}" if d.all_out else f"posture {d.posture:+d}" if d.posture is not None else "normal"
        return f"{event.combatant}'s sealed declaration opens: {what}"
    if isinstance(event, ev.DiceRolled):
        if event.sides is not None:
            return (f"{event.roller} rolls {event.purpose}: {len(event.faces)}d{event.sides} "
                    f"{format_faces(event.faces, event.sides)} ({event.source})")
        typed = f"{event.substitute} read as " if event.substitute else ""
        return (f"{event.roller} rolls {event.purpose}: {typed}{format_faces(event.faces)} = {sum(event.faces):+d} "
                f"({event.source})")
    if isinstance(event, ev.ActionResolved):
        against = (f"vs {event.opponent} {name(event.opponent_result)}" if event.opponent
                   else f"vs {name(event.difficulty)}")
        verdict = ("succeeds automatically" if event.automatic else "succeeds" if event.success else "fails")
        three = (f" (median of {', '.join(f'{t:+d}' for t in event.median_of)})" if event.median_of else "")
        return (f"{event.combatant} {event.trait} {name(event.level)} {event.roll:+d}{three}{mods(event.modifiers)}"
                f" = {name(event.result)} {against}: {verdict} (margin {event.margin:+d})")
    if isinstance(event, ev.ExchangeResolved):
        sides = "; ".join(f"{s.combatant} {s.trait} {name(s.level)} {s.roll or 0:+d}{mods(s.modifiers)} = "
                          f"{name(s.result) if s.result is not None else '-'}" for s in event.sides)
        detail = "".join(hit_detail(h) for h in event.hits)
        return f"{sides} → {event.outcome}{detail}"
    if isinstance(event, ev.ShotResolved):
        return shot_line(event, ladder)
    if isinstance(event, ev.WoundMarked):
        how = " (Still Ticking)" if event.still_ticking else ""
        how += f" (halved from {LEVELS[event.halved_from]})" if event.halved_from else ""
        how += "".join(f" ({note})" for note in event.notes)
        return f"{event.combatant} is wounded: {LEVELS[event.level]}{how}"
    if isinstance(event, ev.LocationWounded):
        hinders = f", -1 to {event.affects}" if event.affects and event.level >= 2 else ""
        return (f"{event.combatant}'s {event.location} is {LOCATION_LEVELS[event.level]} "
                f"(a {LEVELS[event.wound_level]} blow{hinders})")
    if isinstance(event, ev.CombatantKilled):
        return f"{event.combatant} is dead{f' ({event.reason})' if event.reason else ''}"
    if isinstance(event, ev.AdvantageGained):
        return f"{event.combatant} gains a situational advantage: {event.over} {event.modifier:+d} next round"
    if isinstance(event, ev.InitiativeRolled):
        extra = ""
        if event.fixed:
            extra += f", fixed {' '.join(PHASE_NAME[f] for f in event.fixed)}"
        if event.discarded:
            extra += f", discards die {', '.join(str(i + 1) for i in event.discarded)}"
        if event.bonus_phases:
            extra += f", gift phase {' '.join(PHASE_NAME[p] for p in event.bonus_phases)}"
        return (f"{event.combatant} rolls initiative {event.determinant:+d}: "
                f"{format_faces(event.faces) or 'no dice'}{extra}{' (surprised)' if event.surprised else ''}")
    if isinstance(event, ev.DieBartered):
        return (f"{event.combatant} trades die {event.traded + 1} to {'raise' if event.direction > 0 else 'lower'} "
                f"die {event.altered + 1}: {PHASE_NAME[event.face_before]} → {PHASE_NAME[event.face_after]}")
    if isinstance(event, ev.TurnTaken) and event.initiative is not None:
        ties = f" (simultaneous with {', '.join(event.tied_with)})" if event.tied_with else ""
        return f"initiative {event.initiative:+d}: {event.combatant} acts{ties}"
    if isinstance(event, ev.InitiativeRanked):
        how = ("automatic initiative" if event.automatic
               else f"{event.trait} {name(event.level)} {format_faces(event.faces)} = {sum(event.faces):+d}")
        return f"{event.combatant} initiative: {how}{mods(event.modifiers)} → {event.total:+d}"
    if isinstance(event, ev.WillSteeled):
        return f"{event.combatant} steels the will: wounds count {event.levels} level(s) lighter this scene (AI-WILL-1)"
    if isinstance(event, ev.TurnTaken):
        ties = f" (tied with {', '.join(event.tied_with)}: GM orders)" if event.tied_with else ""
        verb = {"declare": "declares", "resolve": "resolves"}.get(event.step, "acts")
        return f"phase {PHASE_NAME[event.phase]}: {event.combatant} {verb}{ties}"
    if isinstance(event, ev.DieTraded):
        return f"{event.combatant} trades in die {event.die + 1} ({PHASE_NAME[event.face]})"
    if isinstance(event, ev.DieAltered):
        return (f"{event.combatant} {'raises' if event.direction > 0 else 'lowers'} die {event.die + 1}: "
                f"{PHASE_NAME[event.face_before]} → {PHASE_NAME[event.face_after]}")
    if isinstance(event, ev.TiesOrdered):
        return f"the GM orders the ties this round: {', '.join(event.order)}"
    if isinstance(event, ev.IntentDeclared):
        what = f"attack {event.target}" if event.target else event.what
        return f"phase {PHASE_NAME[event.phase]}: {event.combatant} declares: {what}"
    if isinstance(event, ev.TurnUsed):
        return f"phase {PHASE_NAME[event.phase]}: that roll is {event.combatant}'s action"
    if isinstance(event, ev.ActionHeld):
        return f"phase {PHASE_NAME[event.phase]}: {event.combatant} holds the action until the others have acted"
    if isinstance(event, ev.SpareDieSpent):
        return f"{event.combatant} spends spare die {event.die + 1}: +1 to event {event.target}"
    if isinstance(event, ev.FudgePointSpent):
        shift = f" {event.shift:+d}" if event.shift else ""
        return f"{event.combatant} spends {event.cost} {points} point(s): {event.use}{shift} on event {event.target}"
    if isinstance(event, ev.EventsVoided):
        return f"events {', '.join(map(str, event.seqs))} voided: {event.reason}"
    if isinstance(event, ev.CommandUndone):
        return f"undo: command {event.target[:8]} voided"
    if isinstance(event, ev.CommandRedone):
        return f"redo: command {event.restores[:8]} restored"
    if isinstance(event, ev.MeleeResolved):
        lone = event.lone
        group = f" (GM's NPC roll {event.group_roll:+d})" if event.group_roll is not None else ""
        against = {c.foe: c for c in event.comparisons if c.lone_modifiers}  # F-MOD-3/4: this foe's shield, sizes
        foes = "; ".join(f"{s.combatant} {s.trait} {name(s.level)} {s.roll or 0:+d}{mods(s.modifiers)} = "
                         f"{name(s.result) if s.result is not None else '-'}"
                         + (f" ({lone.combatant} vs {s.combatant}{mods(against[s.combatant].lone_modifiers)} = "
                            f"{name(against[s.combatant].lone_result)})" if s.combatant in against else "")
                         for s in event.foes)
        detail = "".join(hit_detail(h) for h in event.hits)
        return (f"{lone.combatant} {lone.trait} {name(lone.level)} {lone.roll or 0:+d}{mods(lone.modifiers)} = "
                f"{name(lone.result) if lone.result is not None else '-'} vs {foes}{group} → {event.outcome}{detail}")
    if isinstance(event, ev.StoryRolled):
        results = ", ".join(name(r) for r in event.results)
        what = f"median of {results}: {name(event.result)}" if event.median else name(event.result)
        element = f" [{event.element}]" if event.element else ""
        return (f"{event.combatant} {event.trait} {name(event.level)}{mods(event.modifiers)} for the story element"
                f"{element}: {what} (the GM narrates the outcome)")
    if isinstance(event, (ev.WoundsHealed, ev.StunMarked, ev.BattleEnded)):
        return describe_aftermath(event, ladder)
    from cli import fate_render
    return fate_render.describe(event, ladder)


def describe_aftermath(event: Any, ladder: Any) -> str:
    """F-HEAL, F-STUN events, one line each."""
    if isinstance(event, ev.BattleEnded):
        return f"the battle ends (round {event.round}): stun marks clear"
    if isinstance(event, ev.StunMarked):
        what = {"stun": "Stunned", "very_stunned": "Very Stunned", "knocked_out": "knocked out"}[event.effect]
        notes = "".join(f" ({note})" for note in event.notes)
        return f"{event.combatant} is {what} (a stunning {LEVELS[event.dealt]}){notes}"
    changes = ", ".join(f"{LEVELS[c.before]} -> {LEVELS[c.after] if c.after else 'healed'}" for c in event.changes)
    if event.cause in ("end", "rest") and not event.weeks:
        return f"{event.combatant}'s Scratches are erased ({len(event.changes)})"
    roll = ""
    if event.result is not None:
        against = f" vs {ladder.name(event.difficulty)}" if event.difficulty is not None else ""
        roll = (f"{event.healer or event.combatant} {event.trait} {ladder.name(event.skill_level)} {event.roll:+d}"
                f"{mods(event.modifiers)} = {ladder.name(event.result)}{against}: ")
    when = f"week {event.weeks}: " if event.cause == "natural" else ""
    return f"{when}{roll}{event.combatant} heals {event.levels} level(s){': ' + changes if changes else ''}"


def log_json(records: list[Recorded], voided: dict[int, int]) -> list[dict[str, Any]]:
    out = []
    for r in records:
        payload = r.event.model_dump(mode="json")
        out.append({"seq": r.seq, "type": r.event.type, "command": r.command, "at": r.at,
                    "voided": r.seq in voided, "voided_by": voided.get(r.seq), "issued": r.issued,
                    **{k: v for k, v in payload.items() if k not in ("type",)}})
    return out
