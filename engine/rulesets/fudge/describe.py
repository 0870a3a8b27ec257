"""Fudge's events in words: one line per event, for `log`, `replay`, a command's output and the report.

Each function takes the event, the fight's ladder (levels by name) and the word for the points its fighters
spend ("fudge", or "fate" under Fate), and returns plain text: the shell escapes it for where it shows it.
`events.EVENTS` declares each beside the event's evolve.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine.kernel.words import counted
from fudge_combat.engine.kernel.dice import format_faces
from fudge_combat.engine.kernel.initiative import PHASE_NAME
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.engine.rulesets.fudge.locations import LOCATION_LEVELS
from fudge_combat.events import structs as ev


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
    return f"{e.combatant} steels the will: wounds count {counted(e.levels, 'level')} lighter this scene (AI-WILL-1)"


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
    return f"{e.combatant} spends {counted(e.cost, points + ' point')}: {e.use}{shift} on event {e.target}"


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
    return f"{when}{roll}{e.combatant} heals {counted(e.levels, 'level')}{': ' + changes if changes else ''}"


