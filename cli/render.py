"""Text and JSON views of projections and events (stdout only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fudge_combat.cli.terminal import safe
from fudge_combat.engine.kernel.dice import format_faces
from fudge_combat.engine.kernel.initiative import PHASE_NAME, PHASES
from fudge_combat.engine.rulesets.fudge.locations import LOCATION_LEVELS
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events import models as ev
from fudge_combat.events.envelope import Recorded
from fudge_combat.engine.rulesets.fudge import stun
from fudge_combat.engine.rulesets.fudge.tracks import DamageCapacityTrack, is_pawn
from fudge_combat.engine.kernel.state import Combatant, FightState

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
    """`status_json`'s keys before the combatants (cli.status_view keeps each combatant's part apart).

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
        **aftermath_json(state, who),
        **(fate_status_json(state, who) if ruleset_of(state).boxes else {}),
    }


def locations_json(who: Combatant) -> dict[str, dict[str, str | None]]:
    """F-LOC-2: each wounded part's level and what it hinders."""
    return {part: {"level": LOCATION_LEVELS[level], "affects": affects}
            for part, (level, affects) in sorted(who.locations.items())}


def fate_status_json(state: FightState, who: Combatant) -> dict[str, Any]:
    from fudge_combat.cli import fate_render
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
    if ruleset_of(state).scenes:
        lines[0] += f", scene {state.fate_scene}, pace {state.options.pace}"
    return lines


def combatant_text_lines(state: FightState, who: Combatant) -> list[str]:
    """One combatant's lines of the status text (unescaped)."""
    if ruleset_of(state).boxes:
        from fudge_combat.cli import fate_render
        return [f"  {who.name} ({who.side})", *fate_render.status_lines(state, who)]
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
        from fudge_combat.cli import fate_render
        return safe(fate_render.box_line(event, state, seq))
    return safe(describe(event, state.ladder, points=ruleset_of(state).points))


def wound_line(event: ev.WoundMarked, state: FightState, who: Combatant, seq: int | None) -> str:
    """F-WND-3, F-WND-4, F-WND-1: the level the fighter ends at (overflow included), consequence first when he is out."""
    from fudge_combat.engine.rulesets.fudge.tracks import track_of
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
    """One line per event, for `log`, `replay` and command output: the event type's line in `DESCRIBE`
    (Fate's in `fate_render`). `points` names the points spent: fudge, or fate under Fate."""
    line = DESCRIBE.get(type(event))
    if line is not None:
        return line(event, ladder, points)
    from fudge_combat.cli import fate_render
    return fate_render.describe(event, ladder)


def _fight_started(e: ev.FightStarted, ladder: Any, points: str) -> str:
    return f"fight {e.name} started under {e.rules} (dice seed committed {e.seed_commitment[:12]}…)"


def _branch_started(e: ev.BranchStarted, ladder: Any, points: str) -> str:
    return f"branch {e.name} of {e.parent} at event {e.fork_seq}"


def _seed_committed(e: ev.SeedCommitted, ladder: Any, points: str) -> str:
    return f"new dice seed committed {e.seed_commitment[:12]}… ({e.reason})"


def _seed_revealed(e: ev.SeedRevealed, ladder: Any, points: str) -> str:
    return f"dice seed {e.seed_commitment[:12]}… revealed"


def _joined(e: ev.CombatantJoined, ladder: Any, points: str) -> str:
    return f"{e.combatant} joined (side {e.side}) from {e.source}"


def _round_started(e: ev.RoundStarted, ladder: Any, points: str) -> str:
    extra = f", surprised: {', '.join(e.surprised)}" if e.surprised else ""
    return f"round {e.round} begins{extra}"


def _stance(d: ev.Declaration) -> str:
    """A declaration's all-out or posture, the stance every ruleset has (F-MOD-6, F-MOD-7, F-TAC-1)."""
    return f"all-out {d.all_out}" if d.all_out else f"posture {d.posture:+d}" if d.posture is not None else "normal"


def _declared(e: ev.Declared, ladder: Any, points: str) -> str:
    d = e.declaration
    if d != ev.Declaration(all_out=d.all_out, posture=d.posture):  # more than a stance: the round's whole choice
        return f"{e.combatant} declares for round {e.round}: {declaration_text(d)}"
    return f"{e.combatant} declares {_stance(d)}"


def _sealed(e: ev.DeclarationSealed, ladder: Any, points: str) -> str:
    return f"{e.combatant} seals a declaration ({e.seal[:12]}…)"


def _revealed(e: ev.DeclarationRevealed, ladder: Any, points: str) -> str:
    return f"{e.combatant}'s sealed declaration opens: {_stance(e.declaration)}"


def _dice_rolled(e: ev.DiceRolled, ladder: Any, points: str) -> str:
    if e.sides is not None:
        return f"{e.roller} rolls {e.purpose}: {len(e.faces)}d{e.sides} {format_faces(e.faces, e.sides)} ({e.source})"
    typed = f"{e.substitute} read as " if e.substitute else ""
    return f"{e.roller} rolls {e.purpose}: {typed}{format_faces(e.faces)} = {sum(e.faces):+d} ({e.source})"


def _action_resolved(e: ev.ActionResolved, ladder: Any, points: str) -> str:
    name = ladder.name
    against = f"vs {e.opponent} {name(e.opponent_result)}" if e.opponent else f"vs {name(e.difficulty)}"
    verdict = "succeeds automatically" if e.automatic else "succeeds" if e.success else "fails"
    three = f" (median of {', '.join(f'{t:+d}' for t in e.median_of)})" if e.median_of else ""
    return (f"{e.combatant} {e.trait} {name(e.level)} {e.roll:+d}{three}{mods(e.modifiers)}"
            f" = {name(e.result)} {against}: {verdict} (margin {e.margin:+d})")


def _side(s: ev.Side, ladder: Any) -> str:
    result = ladder.name(s.result) if s.result is not None else "-"
    return f"{s.combatant} {s.trait} {ladder.name(s.level)} {s.roll or 0:+d}{mods(s.modifiers)} = {result}"


def _exchange_resolved(e: ev.ExchangeResolved, ladder: Any, points: str) -> str:
    sides = "; ".join(_side(s, ladder) for s in e.sides)
    return f"{sides} → {e.outcome}{''.join(hit_detail(h) for h in e.hits)}"


def _shot_resolved(e: ev.ShotResolved, ladder: Any, points: str) -> str:
    return shot_line(e, ladder)


def _wound_marked(e: ev.WoundMarked, ladder: Any, points: str) -> str:
    """Without the fight's state (`line` says where the fighter ends when it has one)."""
    how = " (Still Ticking)" if e.still_ticking else ""
    how += f" (halved from {LEVELS[e.halved_from]})" if e.halved_from else ""
    how += "".join(f" ({note})" for note in e.notes)
    return f"{e.combatant} is wounded: {LEVELS[e.level]}{how}"


def _location_wounded(e: ev.LocationWounded, ladder: Any, points: str) -> str:
    hinders = f", -1 to {e.affects}" if e.affects and e.level >= 2 else ""
    return f"{e.combatant}'s {e.location} is {LOCATION_LEVELS[e.level]} (a {LEVELS[e.wound_level]} blow{hinders})"


def _killed(e: ev.CombatantKilled, ladder: Any, points: str) -> str:
    return f"{e.combatant} is dead{f' ({e.reason})' if e.reason else ''}"


def _advantage(e: ev.AdvantageGained, ladder: Any, points: str) -> str:
    return f"{e.combatant} gains a situational advantage: {e.over} {e.modifier:+d} next round"


def _initiative_rolled(e: ev.InitiativeRolled, ladder: Any, points: str) -> str:
    extra = ""
    if e.fixed:
        extra += f", fixed {' '.join(PHASE_NAME[f] for f in e.fixed)}"
    if e.discarded:
        extra += f", discards die {', '.join(str(i + 1) for i in e.discarded)}"
    if e.bonus_phases:
        extra += f", gift phase {' '.join(PHASE_NAME[p] for p in e.bonus_phases)}"
    return (f"{e.combatant} rolls initiative {e.determinant:+d}: "
            f"{format_faces(e.faces) or 'no dice'}{extra}{' (surprised)' if e.surprised else ''}")


def _bartered(e: ev.DieBartered, ladder: Any, points: str) -> str:
    return (f"{e.combatant} trades die {e.traded + 1} to {'raise' if e.direction > 0 else 'lower'} "
            f"die {e.altered + 1}: {PHASE_NAME[e.face_before]} → {PHASE_NAME[e.face_after]}")


def _turn(e: ev.TurnTaken, ladder: Any, points: str) -> str:
    """A turn by rolled initiative (F-INIT-2, AI-INIT-2), or in a phase (PH-1, PH-4)."""
    if e.initiative is not None:
        ties = f" (simultaneous with {', '.join(e.tied_with)})" if e.tied_with else ""
        return f"initiative {e.initiative:+d}: {e.combatant} acts{ties}"
    ties = f" (tied with {', '.join(e.tied_with)}: GM orders)" if e.tied_with else ""
    verb = {"declare": "declares", "resolve": "resolves"}.get(e.step, "acts")
    return f"phase {PHASE_NAME[e.phase]}: {e.combatant} {verb}{ties}"


def _ranked(e: ev.InitiativeRanked, ladder: Any, points: str) -> str:
    how = ("automatic initiative" if e.automatic
           else f"{e.trait} {ladder.name(e.level)} {format_faces(e.faces)} = {sum(e.faces):+d}")
    return f"{e.combatant} initiative: {how}{mods(e.modifiers)} → {e.total:+d}"


def _steeled(e: ev.WillSteeled, ladder: Any, points: str) -> str:
    return f"{e.combatant} steels the will: wounds count {e.levels} level(s) lighter this scene (AI-WILL-1)"


def _die_traded(e: ev.DieTraded, ladder: Any, points: str) -> str:
    return f"{e.combatant} trades in die {e.die + 1} ({PHASE_NAME[e.face]})"


def _die_altered(e: ev.DieAltered, ladder: Any, points: str) -> str:
    return (f"{e.combatant} {'raises' if e.direction > 0 else 'lowers'} die {e.die + 1}: "
            f"{PHASE_NAME[e.face_before]} → {PHASE_NAME[e.face_after]}")


def _ties_ordered(e: ev.TiesOrdered, ladder: Any, points: str) -> str:
    return f"the GM orders the ties this round: {', '.join(e.order)}"


def _intent(e: ev.IntentDeclared, ladder: Any, points: str) -> str:
    what = f"attack {e.target}" if e.target else e.what
    return f"phase {PHASE_NAME[e.phase]}: {e.combatant} declares: {what}"


def _turn_used(e: ev.TurnUsed, ladder: Any, points: str) -> str:
    return f"phase {PHASE_NAME[e.phase]}: that roll is {e.combatant}'s action"


def _held(e: ev.ActionHeld, ladder: Any, points: str) -> str:
    return f"phase {PHASE_NAME[e.phase]}: {e.combatant} holds the action until the others have acted"


def _spare_spent(e: ev.SpareDieSpent, ladder: Any, points: str) -> str:
    return f"{e.combatant} spends spare die {e.die + 1}: +1 to event {e.target}"


def _spent(e: ev.FudgePointSpent, ladder: Any, points: str) -> str:
    shift = f" {e.shift:+d}" if e.shift else ""
    return f"{e.combatant} spends {e.cost} {points} point(s): {e.use}{shift} on event {e.target}"


def _voided(e: ev.EventsVoided, ladder: Any, points: str) -> str:
    return f"events {', '.join(map(str, e.seqs))} voided: {e.reason}"


def _undone(e: ev.CommandUndone, ladder: Any, points: str) -> str:
    return f"undo: command {e.target[:8]} voided"


def _redone(e: ev.CommandRedone, ladder: Any, points: str) -> str:
    return f"redo: command {e.restores[:8]} restored"


def _melee_resolved(e: ev.MeleeResolved, ladder: Any, points: str) -> str:
    """F-MULTI: the lone fighter's roll against each foe's, with his modifiers against one foe (F-MOD-3, F-MOD-4)."""
    lone = e.lone
    group = f" (GM's NPC roll {e.group_roll:+d})" if e.group_roll is not None else ""
    against = {c.foe: c for c in e.comparisons if c.lone_modifiers}  # this foe's shield, sizes
    foes = "; ".join(_side(s, ladder)
                     + (f" ({lone.combatant} vs {s.combatant}{mods(against[s.combatant].lone_modifiers)} = "
                        f"{ladder.name(against[s.combatant].lone_result)})" if s.combatant in against else "")
                     for s in e.foes)
    return f"{_side(lone, ladder)} vs {foes}{group} → {e.outcome}{''.join(hit_detail(h) for h in e.hits)}"


def _story_rolled(e: ev.StoryRolled, ladder: Any, points: str) -> str:
    name = ladder.name
    results = ", ".join(name(r) for r in e.results)
    what = f"median of {results}: {name(e.result)}" if e.median else name(e.result)
    element = f" [{e.element}]" if e.element else ""
    return (f"{e.combatant} {e.trait} {name(e.level)}{mods(e.modifiers)} for the story element"
            f"{element}: {what} (the GM narrates the outcome)")


def _battle_ended(e: ev.BattleEnded, ladder: Any, points: str) -> str:
    return f"the battle ends (round {e.round}): stun marks clear"


def _stun_marked(e: ev.StunMarked, ladder: Any, points: str) -> str:
    what = {"stun": "Stunned", "very_stunned": "Very Stunned", "knocked_out": "knocked out"}[e.effect]
    notes = "".join(f" ({note})" for note in e.notes)
    return f"{e.combatant} is {what} (a stunning {LEVELS[e.dealt]}){notes}"


def _healed(e: ev.WoundsHealed, ladder: Any, points: str) -> str:
    """F-HEAL-1, F-HEAL-2, F-HEAL-3: Scratches erased, or levels healed by a roll or by weeks of rest."""
    changes = ", ".join(f"{LEVELS[c.before]} -> {LEVELS[c.after] if c.after else 'healed'}" for c in e.changes)
    if e.cause in ("end", "rest") and not e.weeks:
        return f"{e.combatant}'s Scratches are erased ({len(e.changes)})"
    roll = ""
    if e.result is not None:
        against = f" vs {ladder.name(e.difficulty)}" if e.difficulty is not None else ""
        roll = (f"{e.healer or e.combatant} {e.trait} {ladder.name(e.skill_level)} {e.roll:+d}"
                f"{mods(e.modifiers)} = {ladder.name(e.result)}{against}: ")
    when = f"week {e.weeks}: " if e.cause == "natural" else ""
    return f"{when}{roll}{e.combatant} heals {e.levels} level(s){': ' + changes if changes else ''}"


# An event's line, by its type, as engine.evolve's HANDLERS fold it; Fate's are in fate_render.
DESCRIBE: dict[type, Callable[[Any, Any, str], str]] = {
    ev.FightStarted: _fight_started,
    ev.BranchStarted: _branch_started,
    ev.SeedCommitted: _seed_committed,
    ev.SeedRevealed: _seed_revealed,
    ev.CombatantJoined: _joined,
    ev.RoundStarted: _round_started,
    ev.Declared: _declared,
    ev.DeclarationSealed: _sealed,
    ev.DeclarationRevealed: _revealed,
    ev.DiceRolled: _dice_rolled,
    ev.ActionResolved: _action_resolved,
    ev.ExchangeResolved: _exchange_resolved,
    ev.ShotResolved: _shot_resolved,
    ev.WoundMarked: _wound_marked,
    ev.LocationWounded: _location_wounded,
    ev.CombatantKilled: _killed,
    ev.AdvantageGained: _advantage,
    ev.InitiativeRolled: _initiative_rolled,
    ev.DieBartered: _bartered,
    ev.TurnTaken: _turn,
    ev.InitiativeRanked: _ranked,
    ev.WillSteeled: _steeled,
    ev.DieTraded: _die_traded,
    ev.DieAltered: _die_altered,
    ev.TiesOrdered: _ties_ordered,
    ev.IntentDeclared: _intent,
    ev.TurnUsed: _turn_used,
    ev.ActionHeld: _held,
    ev.SpareDieSpent: _spare_spent,
    ev.FudgePointSpent: _spent,
    ev.EventsVoided: _voided,
    ev.CommandUndone: _undone,
    ev.CommandRedone: _redone,
    ev.MeleeResolved: _melee_resolved,
    ev.StoryRolled: _story_rolled,
    ev.BattleEnded: _battle_ended,
    ev.StunMarked: _stun_marked,
    ev.WoundsHealed: _healed,
}


def log_json(records: list[Recorded], voided: dict[int, int]) -> list[dict[str, Any]]:
    out = []
    for r in records:
        payload = r.event.model_dump(mode="json")
        out.append({"seq": r.seq, "type": r.event.type, "command": r.command, "at": r.at,
                    "voided": r.seq in voided, "voided_by": voided.get(r.seq), "issued": r.issued,
                    **{k: v for k, v in payload.items() if k not in ("type",)}})
    return out
