"""What a command changed, in the GM's words: wounds and their penalties, who is out, whose turn it
is, a new round, the end of the fight, what an undo took back and what a point bought.

Read from the projections before and after the command (and its records), not from its event types
alone, so that a command's output, `fudge log`, `fudge replay` and an undo say the same words: an
undo's wound lines come from the track going back, as a blow's come from it going up.

The state keeps no command ids, so what an undo or a redo took back or brought back is read from the
records it named (`touched` finds them in the log); without them the line names the command's id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from msgspec import Struct

from fudge_combat.engine.evolve import EVENT_RULES
from fudge_combat.engine.kernel.event_rules import Named
from fudge_combat.engine.kernel.initiative import PHASE_NAME
from fudge_combat.engine.kernel.words import possessive
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.turns import still_fights
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded


class Consequence(Struct, frozen=True):
    """One thing the GM needs to know after a command: `kind` says what (wound, out, fight-over, round,
    order, turn, undo, redo, points, result, declaration, condition, warning), `text` says it."""

    kind: str
    text: str


def consequences(before: FightState, after: FightState, records: Sequence[Recorded],
                 undone: Sequence[Recorded] = ()) -> list[Consequence]:
    """The consequences of the command whose `records` took `before` to `after`.

    `undone`: the records an undo or a redo among `records` voided or brought back (`touched`), read
    from the log by the caller."""
    out: list[Consequence] = []
    out += _history(records, undone, before)
    out += _rounds(before, after)
    out += _order(before, after)
    out += _points(before, after)
    out += _results(before, after, [*records, *undone])
    out += _declarations(before, after, records)
    rules = ruleset_of(after)  # its wounds and its turns, in its own words (each ruleset's consequences module)
    out += [Consequence(kind, text) for kind, text in rules.harm(before, after)]
    out += _allies(after, records)
    out += _conditions(before, after)
    changed = _changed(before, after)
    out += _standing(before, after, changed)
    out += [Consequence(kind, text) for kind, text in rules.turn(before, after)]
    out += _fight_over(before, after, changed)
    return out


def touched(log: Iterable[Recorded] | Mapping[str, Sequence[Recorded]], records: Sequence[Recorded]) -> list[Recorded]:
    """The records of the commands an undo or a redo in `records` voids or brings back (A-UNDO-1), from
    the log, or from the log's records by command id (a reader of the whole log builds that once)."""
    wanted = set(named_commands(records))
    if not wanted:
        return []
    if isinstance(log, Mapping):
        return sorted((r for command in wanted for r in log.get(command, ())), key=lambda r: r.seq)
    return [r for r in log if r.command in wanted]


def named_commands(records: Sequence[Recorded]) -> list[str]:
    """The ids of the commands an undo or a redo in `records` voids or brings back."""
    out = []
    for record in records:
        if isinstance(record.event, ev.CommandUndone):
            out.append(record.event.target)
        elif isinstance(record.event, ev.CommandRedone):
            out.append(record.event.restores)
    return out


# --- undo and redo (A-UNDO-1) -----------------------------------------------------------------------

def _history(records: Sequence[Recorded], undone: Sequence[Recorded], state: FightState) -> list[Consequence]:
    out = []
    for record in records:
        event = record.event
        if isinstance(event, ev.CommandUndone):
            kind, verb, command = "undo", "undid", event.target
        elif isinstance(event, ev.CommandRedone):
            kind, verb, command = "redo", "redid", event.restores
        else:
            continue
        theirs = [r for r in undone if r.command == command]
        if not theirs:
            out.append(Consequence(kind, f"{verb} command {command[:8]}"))
            continue
        seqs = f"seq {theirs[0].seq}" if len(theirs) == 1 else f"seq {theirs[0].seq}-{theirs[-1].seq}"
        out.append(Consequence(kind, f"{verb} {summary(theirs, state)}, {seqs}"))
    return out


def summary(records: Sequence[Recorded], state: FightState) -> str:
    """A command in a few words, by the event that says most about it: of its events with words (each type's
    `Named`, declared by its ruleset beside its evolve), the first of the lowest rank."""
    named = [(rule.words.rank, index, rule.words, event) for index, event in enumerate(r.event for r in records)
             if (rule := EVENT_RULES.get(type(event))) is not None and isinstance(rule.words, Named)]
    if named:
        _, _, words, event = min(named, key=lambda found: found[:2])
        return words.say(event, state)
    return records[0].event.type.replace("_", " ") if records else "nothing"


def _points_word(state: FightState) -> str:
    return ruleset_of(state).points


# --- points and what they bought (C-FP-2, FT-PTS) -----------------------------------------------------

def _points(before: FightState, after: FightState) -> list[Consequence]:
    out = []
    for key, now in after.combatants.items():
        was = before.combatants.get(key)
        if was is not None and was.fudge_points != now.fudge_points:
            count = now.fudge_points
            out.append(Consequence("points", f"{now.name} has {count} {_points_word(after)} point"
                                             f"{'' if count == 1 else 's'} left"))
    return out


def _results(before: FightState, after: FightState, records: Sequence[Recorded]) -> list[Consequence]:
    """An action re-resolved (a point, a reroll, or an undo of one): its result now, and before."""
    actions = []
    for record in records:
        action = getattr(record.event, "action", None)
        if isinstance(action, int) and action not in actions:
            actions.append(action)
    out = []
    for action in actions:
        was, now = before.actions.get(action), after.actions.get(action)
        if was is None or now is None or was.resolution == now.resolution:
            continue
        try:
            old, new = before.events.get(was.resolution), after.events.get(now.resolution)
        except LookupError:  # an event left in the log by a state that cannot read it: no line, not a failure
            continue
        if old is None or new is None:
            continue
        own = ruleset_of(after).re_resolved(old, new, before, after)  # each part apart, where the ruleset says so
        if own is not None:
            out += [Consequence(kind, text) for kind, text in own]
        else:
            out.append(Consequence("result", f"now {_result(new, after)} (was {_result(old, before)})"))
    return out


def _result(event: Any, state: FightState) -> str:
    own = ruleset_of(state).result(event, state)  # a resolution the fight's ruleset adds, in its words
    if own is not None:
        return own
    name = state.ladder.name
    if isinstance(event, ev.ActionResolved):
        verdict = "succeeds" if event.success else "fails"
        return f"{event.combatant}'s {event.trait} {name(event.result)}: {verdict}"
    if isinstance(event, (ev.ExchangeResolved, ev.ShotResolved)):
        sides = " vs ".join(f"{s.combatant} {name(s.result) if s.result is not None else '-'}" for s in event.sides)
        return f"{sides}: {event.outcome}"
    if isinstance(event, ev.MeleeResolved):
        return f"{event.lone.combatant} {name(event.lone.result) if event.lone.result is not None else '-'}: " \
               f"{event.outcome}"
    if isinstance(event, ev.StoryRolled):
        return f"{event.combatant}'s {event.trait} {name(event.result)}"
    return event.type.replace("_", " ")


# --- declarations (A-SEAL-1, F-TAC-1) -------------------------------------------------------------------

def _declarations(before: FightState, after: FightState, records: Sequence[Recorded]) -> list[Consequence]:
    revealed = {r.event.combatant.lower(): r.event.declaration for r in records
                if isinstance(r.event, ev.DeclarationRevealed)}
    out = []
    for key in before.sealed:
        if key in after.sealed or key not in after.combatants:
            continue
        name = after.combatants[key].name
        if key in revealed:
            out.append(Consequence("declaration", f"{name}'s sealed declaration was {_stance(revealed[key])}"))
        elif after.round > before.round:
            out.append(Consequence("declaration", f"{name}'s sealed declaration expired unused (F-TAC-1)"))
    return out


def _stance(d: ev.Declaration) -> str:
    return f"all-out {d.all_out}" if d.all_out else f"posture {d.posture:+d}" if d.posture is not None else "normal"


# --- wounds (F-WND, F-MOD-1, AI-WILL-1, F-STUN-1) ---------------------------------------------------------

# --- a blow at an ally (docs/table.md) --------------------------------------------------------------------

def _pairs(e: Any, state: FightState) -> list[tuple[str, str]]:
    """Who struck at whom in a resolution: an exchange, a shot, a melee, or one the ruleset adds."""
    own = ruleset_of(state).pairs(e)
    if own is not None:
        return own
    if isinstance(e, ev.ExchangeResolved) and len(e.sides) == 2:
        return [(e.sides[0].combatant, e.sides[1].combatant)]
    if isinstance(e, ev.ShotResolved) and e.sides:
        return [(e.sides[0].combatant, e.target)]
    if isinstance(e, ev.MeleeResolved):
        return [(e.lone.combatant, foe.combatant) for foe in e.foes]
    return []


def _allies(after: FightState, records: Sequence[Recorded]) -> list[Consequence]:
    """A blow between two fighters of one side goes through (the GM may mean it), with one line saying so."""
    out = []
    for record in records:
        for one, other in _pairs(record.event, after):
            first, second = after.find(one), after.find(other)
            if first is not None and second is not None and first.key != second.key and first.side == second.side:
                out.append(Consequence("warning", f"{first.name} and {second.name} are on the same side "
                                                  f"({first.side}): an attack on an ally"))
    return list(dict.fromkeys(out))


# --- conditions (docs/table.md) ----------------------------------------------------------------------------

def _conditions(before: FightState, after: FightState) -> list[Consequence]:
    """A condition marked, or gone: taken off, run out at a round's start, or undone."""
    out = []
    for key, now in after.combatants.items():
        was = before.combatants.get(key)
        if was is None or was.conditions == now.conditions:
            continue
        had = {c.name.lower(): c for c in was.conditions}
        has = {c.name.lower(): c for c in now.conditions}
        for name, c in has.items():
            if had.get(name) != c:
                until = f" until round {c.until}" if c.until is not None else ""
                out.append(Consequence("condition", f"{now.name} is {c.name}{until}"))
        out += [Consequence("condition", f"{now.name} is no longer {c.name}")
                for name, c in had.items() if name not in has]
    return out


# --- out of the fight, and the fight's end ------------------------------------------------------------------

def _why_out(state: FightState, who: Combatant) -> str:
    if who.left:
        return who.left  # fled, surrendered, left: before any ruleset's word
    taken_out = ruleset_of(state).taken_out  # FT-TRACK-3: Fate's word for out and alive
    if taken_out and not who.track.dead:
        return taken_out
    if who.track.out:
        return who.track.out
    return LEVELS[who.track.level]


def _changed(before: FightState, after: FightState) -> set[str] | None:
    """The combatants who may stand otherwise after the command: those it replaced, and those whose part of the
    ruleset's own state it touched (`Decider.still_fights` reads no more); None: anyone (other rules). The
    state is immutable, so a combatant the command left alone is the same object (a roster of hundreds is
    not asked who stands, twice, at every command)."""
    if before.options is not after.options:
        return None
    changed = {key for key, now in after.combatants.items() if before.combatants.get(key) is not now}
    return changed | ruleset_of(after).touched(before.part, after.part)


def _standing(before: FightState, after: FightState, changed: set[str] | None) -> list[Consequence]:
    out = []
    for key, now in after.combatants.items():
        was = before.combatants.get(key)
        if was is None or changed is not None and key not in changed:
            continue
        still, stood = still_fights(after, now), still_fights(before, was)
        if now.track.dead and not was.track.dead:
            how = " (the GM's ruling)" if now.killed_by is not None and was.killed_by is None else ""
            out.append(Consequence("out", f"{now.name} is dead{how}"))
        elif stood and not still:
            out.append(Consequence("out", f"{now.name} is out of the fight ({_why_out(after, now)})"))
        elif still and not stood:
            out.append(Consequence("out", f"{now.name} is back in the fight"))
    return out


def _sides_standing(state: FightState) -> dict[str, list[str]]:
    sides: dict[str, list[str]] = {}
    for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
        if still_fights(state, who):
            sides.setdefault(who.side, []).append(who.name)
    return sides


def _fight_over(before: FightState, after: FightState, changed: set[str] | None) -> list[Consequence]:
    """At most one side still fights (the rulesets' `is_terminal`): the GM ends the battle."""
    if after.ended_through == after.last_seq and after.ended_through != before.ended_through:
        return []  # this command ended the battle
    if before.combatants.keys() != after.combatants.keys():
        return []  # someone joined or a join was undone: no side fell or rose
    if changed is not None and all(still_fights(after, after.combatants[key]) == still_fights(before, before.combatants[key])
                                   for key in changed if key in after.combatants):
        return []  # nobody fell or rose: the same sides stand
    was, now = _sides_standing(before), _sides_standing(after)
    rules = ruleset_of(after)
    end = f"`fudge {rules.end_command}` ends the {rules.battle}"
    if len(was) >= 2 and len(now) <= 1:
        if not now:
            return [Consequence("fight-over", f"nobody is standing: {end}")]
        side, names = next(iter(now.items()))
        who = f"{possessive(side)} side" if side in names else f"side {side} ({', '.join(names)})"
        return [Consequence("fight-over", f"only {who} is standing: {end}")]
    if len(was) <= 1 and len(now) >= 2:
        return [Consequence("fight-over", f"the fight goes on: {len(now)} sides are standing")]
    return []


# --- rounds, order and turns (PH-1, PH-3, F-INIT-2, AI-INIT-2, FT-INIT) ----------------------------------------

def _rounds(before: FightState, after: FightState) -> list[Consequence]:
    out = []
    if after.round > before.round:
        out.append(Consequence("round", f"round {after.round} begins"))
    elif after.round < before.round:
        out.append(Consequence("round", f"back in round {after.round}" if after.round else "back before round 1"))
    out += [Consequence(kind, text) for kind, text in ruleset_of(after).rounds(before, after)]  # a scene
    return out


def _order(before: FightState, after: FightState) -> list[Consequence]:
    """A new order: rolled totals, Fate's Alertness order, or the phase cards after a roll or a barter."""
    if after.ranked and after.ranked != before.ranked:
        totals: dict[int, list[str]] = {}
        for key, rolled in sorted(after.ranked.items(), key=lambda item: after.combatants[item[0]].joined_seq):
            totals.setdefault(rolled.total, []).append(after.combatants[key].name)
        together = " together" if ruleset_of(after).ties_together else ""  # AI-INIT-2: equal totals
        order = ", ".join(f"{' and '.join(names)} {total:+d}{together if len(names) > 1 else ''}"
                          for total, names in sorted(totals.items(), reverse=True))
        return [Consequence("order", f"order: {order}")]
    own = ruleset_of(after).order(before, after)  # an order the ruleset keeps itself (Fate's Alertness)
    if own:
        return [Consequence(kind, text) for kind, text in own]
    if after.initiative and _cards(after) != _cards(before):
        return [Consequence("order", f"order: {_phase_order(after)}")]
    return []


def _cards(state: FightState) -> dict[str, Any]:
    return {key: (i.dice, i.tie_rank, i.surprised, i.bonus) for key, i in state.initiative.items()}


def _phase_order(state: FightState) -> str:
    from fudge_combat.engine.rulesets.fudge.phase_order import slots

    phases: dict[int, list[str]] = {}
    for slot in slots(state):
        if slot.step == "declare":
            continue
        names = phases.setdefault(slot.phase, [])
        name = state.combatants[slot.combatant].name
        if name not in names:
            names.append(name)
    return "; ".join(f"{PHASE_NAME[phase]} {', '.join(names)}" for phase, names in phases.items())
