"""PH-1, PH-3, PH-4, CT-SPARE: who acts when in a phase round, and what a turn allows.

Pure functions of the folded state. `slots` lists the round's turns in the
order `fudge next` hands them out; the checks here raise RuleError with what
to do next when a command comes out of turn.
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.initiative import PHASE_NAME, PHASES, PHASE_VALUE
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState, replace

PHASE_SYSTEMS = ("phases-classic", "phases-crunch")
NOT_PHASED = ("holding and declaring within a phase need phase initiative (PH-4: initiative = \"phases-classic\" "
              "or \"phases-crunch\"); this fight has none")


class Slot(Struct, frozen=True):
    """One turn of the round: a combatant in a phase, and the step it is (PH-4)."""

    phase: int
    combatant: str  # key
    tied_with: tuple[str, ...]
    step: Literal["act", "declare", "resolve"] = "act"  # "declare" / "resolve" under `structured`


def with_tie_order(s: FightState, order: tuple[str, ...]) -> FightState:
    """PH-3: a new GM order of ties replaces the round's earlier one."""
    ranks = {name.lower(): rank for rank, name in enumerate(order)}
    return replace(s, initiative={k: replace(v, tie_rank=ranks.get(k)) for k, v in s.initiative.items()})


def phased(state: FightState) -> bool:
    return state.options.initiative in PHASE_SYSTEMS


def order_trait(state: FightState) -> str:
    """PH-3: the in-phase order trait; by default the determinant that counts the dice."""
    return state.options.initiative_order_trait or state.options.initiative_trait


def speed(state: FightState, who: Combatant) -> int:
    return who.fighter.trait(order_trait(state), state.options)[1]


def _tied(state: FightState, key: str, others: list[str]) -> tuple[str, ...]:
    """Names tied with `key` on the order trait that the GM's order (PH-3) has not ranked apart."""
    mine = state.initiative[key]
    level = speed(state, state.combatants[key])
    out = []
    for other in others:
        if other == key or not state.combatants[other].track.can_act:
            continue
        if speed(state, state.combatants[other]) != level:
            continue
        if mine.tie_rank is not None and state.initiative[other].tie_rank is not None:
            continue
        out.append(state.combatants[other].name)
    return tuple(out)


# The last `slots` worked out, with what it was worked out from (see `slots`).
_last_slots: tuple[Any, tuple[Slot, ...]] = (None, ())


def slots(state: FightState) -> list[Slot]:
    """PH-1, PH-2, PH-3, PH-4: the round's turns, phase by phase (`++` first, `--` last); see `slots_of`.

    Every `fudge next` asks for the round's order, which changes only when initiative is rolled,
    bartered or ordered, or a fighter can no longer act: it is worked out again only when one of
    the things it reads differs from the last call's (compared by value, so a new but equal state
    reads the same order). The pair is replaced whole, so threads never mix two calls.
    """
    global _last_slots
    key = (state.options, state.initiative, len(state.combatants),
           tuple((who.name, who.fighter, who.joined_seq, who.track.can_act)
                 for who in map(state.combatants.__getitem__, state.initiative)))
    cached = _last_slots
    if cached[0] != key:
        cached = _last_slots = (key, tuple(slots_of(state)))
    return list(cached[1])


def slots_of(state: FightState) -> list[Slot]:
    """PH-1, PH-2, PH-3, PH-4: the round's turns, phase by phase (`++` first, `--` last).

    Within a phase: descending order trait, then the GM's order of ties, then
    the joining order (stable; the tie is shown). With `duplicates_act` a
    second action in a phase comes after everyone's first. An action held
    (PH-4 `open`) moves after every other in its phase. Under `structured`
    each phase is all declarations, slowest first, then all resolutions,
    fastest first.
    """
    out: list[Slot] = []
    never = len(state.combatants) + 1
    for name in PHASES:
        phase = PHASE_VALUE[name]
        acting: list[tuple[bool, int, int, int, int, str]] = []
        for key, initiative in state.initiative.items():
            who = state.combatants[key]
            count = initiative.phases(state.options).count(phase)
            rank = initiative.tie_rank if initiative.tie_rank is not None else never
            held = phase in initiative.held
            acting += [(held, repeat, -speed(state, who), rank, who.joined_seq, key) for repeat in range(count)]
        acting.sort()
        keys = [entry[-1] for entry in acting]
        distinct = sorted(set(keys), key=keys.index)
        ordered = [(key, _tied(state, key, distinct)) for key in keys]
        if state.options.phase_declaration == "structured":
            out += [Slot(phase, key, ties, "declare") for key, ties in reversed(ordered)]
            out += [Slot(phase, key, ties, "resolve") for key, ties in ordered]
        else:
            out += [Slot(phase, key, ties) for key, ties in ordered]
    return out


def ordered_ties(state: FightState, names: tuple[str, ...]) -> ev.TiesOrdered:
    """PH-3: check a GM order of tied combatants; it may not reorder turns already taken."""
    if not phased(state):
        raise RuleError("ordering ties is for phase initiative (PH-3); this fight has none")
    if not state.initiative:
        raise RuleError("no initiative rolled this round: `fudge round` rolls it")
    if len(names) < 2:
        raise RuleError("name at least two tied combatants, first to act first (PH-3)")
    keys = []
    for name in names:
        who = state.find(name)
        if who is None:
            raise RuleError(f"no combatant {name!r} in {state.name}: name the tied combatants as they joined")
        if who.key not in state.initiative:
            raise RuleError(f"{name} has no initiative this round: only those who rolled can be ordered")
        if who.key in keys:
            raise RuleError(f"{who.name} is named twice")
        keys.append(who.key)
    levels = {speed(state, state.combatants[k]) for k in keys}
    if len(levels) > 1:
        shown = ", ".join(f"{state.combatants[k].name} {speed(state, state.combatants[k]):+d}" for k in keys)
        raise RuleError(f"only combatants tied on {order_trait(state)} can be ordered ({shown}): "
                        f"the trait orders the others (PH-3)")
    event = ev.TiesOrdered(round=state.round, order=tuple(state.combatants[k].name for k in keys))
    turn = state.turn
    if turn is not None:
        before = [(s.phase, s.combatant, s.step) for s in slots(state)][: turn.index + 1]
        after = [(s.phase, s.combatant, s.step) for s in slots(with_tie_order(state, event.order))]
        untouched = not turn.acted and turn.step == "act"  # the turn just given: nothing done in it yet
        if after[: turn.index] != before[: turn.index] or (after[turn.index] != before[-1] and not untouched):
            raise RuleError("that order would change turns already taken this round; order ties before "
                            "their phase begins, or as soon as `fudge next` shows the tie (PH-3)")
    return event


def reordered_turn(state: FightState, order: tuple[str, ...]) -> list[ev.TurnTaken]:
    """PH-3: ordered as the tied phase's turn was just given, the turn passes to whoever now goes first."""
    turn = state.turn
    if turn is None:
        return []
    slot = slots(with_tie_order(state, order))[turn.index]
    if slot.combatant == turn.combatant:
        return []
    return [ev.TurnTaken(round=state.round, phase=slot.phase, combatant=state.combatants[slot.combatant].name,
                         index=turn.index, tied_with=slot.tied_with, step=slot.step)]


# --- what a turn allows ------------------------------------------------------------------

def _intent(state: FightState, key: str, phase: int) -> Any:
    return next((i for i in state.initiative[key].intents if i.phase == phase), None)


def check_held(state: FightState, who: Combatant) -> None:
    turn = state.turn
    if turn is not None and turn.step == "held" and turn.combatant == who.key:
        raise RuleError(f"{who.name} holds the action until the others in phase {PHASE_NAME[turn.phase]} "
                        f"have acted; `fudge next` moves on (PH-4)")


def held_action(state: FightState) -> ev.ActionHeld:
    """PH-4 `open`: the actor holds the action until the others in the phase have acted."""
    if not phased(state):
        raise RuleError(NOT_PHASED)
    if state.options.phase_declaration != "open":
        raise RuleError('holding an action is for phase_declaration = "open" (PH-4); under "structured" the '
                        'fastest already declares last')
    turn = state.turn
    if turn is None:
        raise RuleError("no one's turn yet: `fudge next` gives the first turn")
    who = state.combatants[turn.combatant]
    phase = PHASE_NAME[turn.phase]
    check_held(state, who)
    if turn.acted:
        raise RuleError(f"{who.name} already acted in phase {phase}: there is nothing left to hold")
    if turn.phase in state.initiative[who.key].held:
        raise RuleError(f"{who.name} already held once in phase {phase}: act now or `fudge next`")
    later = [s for s in slots(state)[turn.index + 1:] if s.phase == turn.phase and s.combatant != who.key
             and state.combatants[s.combatant].track.can_act]
    if not later:
        raise RuleError(f"nobody acts after {who.name} in phase {phase}: there is no one to wait for")
    return ev.ActionHeld(round=state.round, phase=turn.phase, combatant=who.name)


NO_TURN = "no one's turn yet: `fudge round` rolls initiative, `fudge next` gives the first turn"


def check_turn(state: FightState, actor: Combatant, target: Combatant | None = None) -> None:
    """PH-1, PH-3, PH-4, F-INIT-2, AI-INIT-2: in a turn order an attack (or a shot) is the current actor's,
    once a turn; with a target, PH-4's steps apply too (no attack while holding; structured declaration)."""
    turn = state.turn
    if turn is None:
        raise RuleError(NO_TURN)
    when = f"phase {PHASE_NAME[turn.phase]}" if phased(state) else f"initiative {turn.phase:+d}"
    if turn.combatant != actor.key:
        raise RuleError(f"it is {state.combatants[turn.combatant].name}'s turn ({when}); `fudge next` moves on")
    if target is not None:
        check_attack_step(state, actor, target)
    if turn.acted:
        done = f"in {when}" if phased(state) else f"this turn ({when})"
        raise RuleError(f"{actor.name} already acted {done}; `fudge next` moves on")


def check_attack_step(state: FightState, attacker: Combatant, target: Combatant) -> None:
    """PH-4: no attack while holding (`open`); under `structured` an attack is resolved at its step, as declared."""
    check_held(state, attacker)
    turn = state.turn
    if not phased(state) or state.options.phase_declaration != "structured" or turn is None:
        return
    phase = PHASE_NAME[turn.phase]
    if turn.step == "declare":
        raise RuleError(f"phase {phase} is declaring (PH-4 structured): {attacker.name} declares with "
                        f"`fudge intend {attacker.name} --attack {target.name}`; attacks resolve once all "
                        f"in the phase have declared")
    intent = _intent(state, attacker.key, turn.phase)
    if intent is None:
        raise RuleError(f"{attacker.name} declared nothing in phase {phase}: nothing to resolve (PH-4)")
    if intent.target != target.key:
        declared = (f"an attack on {state.combatants[intent.target].name}" if intent.target
                    else repr(intent.what))
        raise RuleError(f"{attacker.name} declared {declared} in phase {phase}, not an attack on "
                        f"{target.name} (PH-4)")


def declared_intent(state: FightState, who: Combatant, what: str, target: Combatant | None) -> ev.IntentDeclared:
    """PH-4 `structured`: a declaration by the combatant whose declaration turn it is."""
    if not phased(state):
        raise RuleError(NOT_PHASED)
    if state.options.phase_declaration != "structured":
        raise RuleError('declaring before resolving is phase_declaration = "structured" (PH-4); in this fight '
                        'the actor simply acts on the turn')
    turn = state.turn
    if turn is None:
        raise RuleError("no one's turn yet: `fudge next` gives the first declaration turn")
    actor = state.combatants[turn.combatant].name
    phase = PHASE_NAME[turn.phase]
    if turn.step != "declare":
        raise RuleError(f"phase {phase} is resolving (PH-4 structured): declarations came first, slowest first; "
                        f"it is {actor}'s turn to resolve")
    if turn.combatant != who.key:
        raise RuleError(f"it is {actor}'s turn to declare in phase {phase} (slowest first, PH-4); "
                        f"`fudge next` moves on")
    if turn.acted:
        raise RuleError(f"{who.name} already declared in phase {phase}; `fudge next` moves on")
    if target is None and not what.strip():
        raise RuleError("say what the combatant does (text), or --attack TARGET")
    if target is not None and target.key == who.key:
        raise RuleError("a fighter cannot attack itself")
    text = what.strip() or "attack"
    return ev.IntentDeclared(round=state.round, phase=turn.phase, combatant=who.name, what=text,
                             target=target.name if target else None)


def turn_used(state: FightState, who: Combatant, free: bool, advantage: bool, action: int) -> list[ev.Event]:
    """A roll under phase initiative, once the turns have begun, is the actor's action in the phase.

    Before the first turn (a surprise check, a roll before the round) any roll
    is free. A reaction or a GM-called roll is `free`; so is the roll for an
    advantage after a won all-out defense (F-MOD-7), which follows a defense.
    """
    turn = state.turn
    if not phased(state) or turn is None or free or advantage:
        return []
    actor = state.combatants[turn.combatant].name
    phase = PHASE_NAME[turn.phase]
    check_held(state, who)
    if turn.combatant != who.key:
        raise RuleError(f"it is {actor}'s turn (phase {phase}); a roll that is not {who.name}'s action "
                        f"takes --free")
    if turn.acted:
        raise RuleError(f"{who.name} already acted in phase {phase}; `fudge next` moves on "
                        f"(a roll that is not an action takes --free)")
    if state.options.phase_declaration == "structured":
        if turn.step == "declare":
            raise RuleError(f"phase {phase} is declaring (PH-4 structured): declare the roll with "
                            f"`fudge intend {who.name} WHAT`; it is rolled once all have declared")
        intent = _intent(state, who.key, turn.phase)
        if intent is None:
            raise RuleError(f"{who.name} declared nothing in phase {phase}: nothing to resolve (PH-4)")
        if intent.target is not None:
            raise RuleError(f"{who.name} declared an attack on {state.combatants[intent.target].name}: "
                            f"resolve it with `fudge attack`")
    return [ev.TurnUsed(round=state.round, phase=turn.phase, combatant=who.name, action=action)]


# --- CT-SPARE ------------------------------------------------------------------------------

def spare_spent(state: FightState, who: Combatant, target: int) -> ev.SpareDieSpent:
    """CT-SPARE: the first spare die left, spent on a roll of this round, once bartering is over."""
    if not state.options.spares_as_points:
        raise RuleError("spare dice are not points in this fight (spares_as_points = false, CT-SPARE)")
    if not phased(state):
        raise RuleError("spare dice come from phase initiative; this fight has none (CT-SPARE)")
    initiative = state.initiative.get(who.key)
    if initiative is None:
        raise RuleError(f"{who.name} has no initiative dice this round (CT-SPARE)")
    if state.turn is None:
        raise RuleError("spares are spent once bartering is over: `fudge next` takes the first turn (CT-SPARE)")
    if target < initiative.seq:
        raise RuleError(f"event {target} is a roll of an earlier round: a spare die counts this round only (CT-SPARE)")
    left = [i for i in initiative.spares(state.options) if not initiative.dice[i].spent]
    if not left:
        raise RuleError(f"{who.name} has no spare die left this round (CT-SPARE)")
    return ev.SpareDieSpent(combatant=who.name, round=state.round, die=left[0], target=target)
