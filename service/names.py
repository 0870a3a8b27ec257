"""Names as a GM types them at the table: any case, a unique beginning ("grok" for "Grok the Orc").

A command is written with the full names the fight knows before it is decided (`canonical`), so
its log never depends on how a name was abbreviated: an old log replays as it did, and a log
written today replays the same whatever fighters join later. Which of a command's fields name a
combatant is marked on the commands (engine.kernel.command_marks.CombatantName); a field left
unmarked is never touched, and tests/test_names.py makes every text field of every command say
which it is.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, Union, get_args, get_origin

from fudge_combat.engine.kernel.command_marks import NAMES_A_COMBATANT, field_hints, is_part, with_values
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.words import some_of
from fudge_combat.engine.turns import current_actor

if TYPE_CHECKING:  # a usage error's "did you mean" (cli.main) reads `one_of` without loading the engine's state
    from fudge_combat.engine.kernel.state import Combatant, FightState

Model = TypeVar("Model")  # a command or a part of one: a struct, or a ruleset of another package's model


def matching(known: Sequence[str], typed: str) -> list[str]:
    """The names `typed` may mean: the one it spells (in any case), else every one it begins."""
    wanted = typed.strip().lower()
    if not wanted:
        return []
    whole = [name for name in known if name.lower() == wanted]
    return whole or [name for name in known if name.lower().startswith(wanted)]


MAX_FIGHT_NAME = 64  # characters: a fight's name is typed at the table and shown on every board line


def fight_name_problem(name: str) -> str | None:
    """What makes `name` no name for a fight (None: nothing). A fight's name is typed, shown on every
    board and in file names and URLs: non-empty, at most MAX_FIGHT_NAME characters, printable (no control
    character, line break or escape), no space at either end, and text (an argument of bytes that are not
    UTF-8 reaches Python as lone surrogates)."""
    if any("\udc80" <= c <= "\udcff" for c in name):
        return "is not UTF-8 text: type it in UTF-8"
    if not name.strip():
        return "is empty: a fight needs a name with a visible character"
    if len(name) > MAX_FIGHT_NAME:
        return f"has {len(name)} characters: at most {MAX_FIGHT_NAME}"
    if not name.isprintable():
        return "holds a control character or a line break: use letters, digits, spaces and punctuation"
    if name != name.strip():
        return "begins or ends with a space"
    return None


def check_fight_name(name: str) -> str:
    """`name` if it can name a fight (fight_name_problem), else an InputError naming it and the cause."""
    problem = fight_name_problem(name)
    if problem is not None:
        raise InputError(f"the fight name {shown(name)} {problem}")
    return name


def shown(text: str) -> str:
    """A name as an error line quotes it: quoted, every character that is not printable escaped, and a
    long one cut (a line names it, it does not carry it)."""
    quoted = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:MAX_FIGHT_NAME])
    return f"'{quoted}'" + (f"... ({len(text)} characters)" if len(text) > MAX_FIGHT_NAME else "")


def close_to(known: Sequence[str], typed: str, most: int = 3) -> list[str]:
    """Names like `typed` but not begun by it: a slip of the fingers ("brinhild", "grk" for Grok the Orc).

    Each name is compared whole, word by word, and by as many letters as were typed (difflib's ratio,
    0.6 or more), so a short misspelt beginning finds a long name.
    """
    from difflib import SequenceMatcher

    wanted = typed.strip().lower()
    scored = []
    for name in known:
        lower = name.lower()
        parts = {lower, lower[:len(wanted)], *lower.split()}
        score = max((SequenceMatcher(None, wanted, part).ratio() for part in parts if part), default=0.0)
        if score >= 0.6:
            scored.append((-score, name))
    return [name for _, name in sorted(scored)[:most]]


def one_of(names: Sequence[str]) -> str:
    """`A`, `A or B`, `A, B or C`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def pick(known: Sequence[str], typed: str, unknown: Callable[[list[str]], str]) -> str:
    """The one name `typed` means; refused when it could be several (they are listed), or none
    (`unknown` says so, given the close names to suggest)."""
    found = matching(known, typed)
    if len(found) == 1:
        return found[0]
    if found:
        raise InputError(f"{typed.strip()!r} could be {one_of(found)}: type more of the name")
    raise InputError(unknown(close_to(known, typed)))


def resolve(state: FightState, typed: str) -> str:
    """The full name of the combatant `typed` means in this fight (InputError if none or several)."""
    known = [who.name for who in state.combatants.values()]

    def unknown(close: list[str]) -> str:
        if not known:
            return f"no combatant {typed!r} in {state.name}: nobody has joined yet (`fudge join SHEET`)"
        if close:
            return f"no combatant {typed!r} in {state.name}: did you mean {one_of(close)}? (combatants: {some_of(known)})"
        return f"no combatant {typed!r} in {state.name}; combatants: {some_of(known)}"

    return pick(known, typed, unknown)


def find(state: FightState, typed: str) -> Combatant | None:
    """The combatant `typed` means, or None when it means none or several (no error: for lookups
    whose caller reports a missing name its own way)."""
    found = matching([who.name for who in state.combatants.values()], typed)
    return state.find(found[0]) if len(found) == 1 else None


def canonical(state: FightState, command: Model) -> Model:
    """`command` with the full name in every field that names a combatant (any depth: a Fate action's
    target, a `--magic` pair, a list of foes); the same command when every name was already full."""
    return rename(command, lambda typed: resolve(state, typed))


def rename(model: Model, name: Callable[[str], str]) -> Model:
    """`model` with `name(typed)` in each field marked as naming a combatant, at any depth."""
    changes = {}
    for field, annotation in field_hints(type(model)):
        value = getattr(model, field)
        new = _value(value, annotation, name)
        if new != value:
            changes[field] = new
    return with_values(model, changes) if changes else model


def _value(value: Any, annotation: Any, name: Callable[[str], str], marked: bool = False) -> Any:
    if value is None:
        return None
    if marked and isinstance(value, str):
        return name(value)
    if is_part(value):
        return rename(value, name)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _value(value, args[0], name, NAMES_A_COMBATANT in args[1:])
    if origin in (Union, types.UnionType):
        present = [arg for arg in args if arg is not type(None)]
        return _value(value, present[0], name) if len(present) == 1 else value
    if origin is tuple and isinstance(value, tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value(item, args[0], name) for item in value)
        return tuple(_value(item, arg, name) for item, arg in zip(value, args))
    return value


def no_turn(state: FightState, usage: str) -> str:
    """Why no one acts by default, and how to name both (`usage`: the two-name form)."""
    kind = state.options.initiative
    if kind == "alertness":
        from fudge_combat.engine.kernel.reading import ruleset_of  # its own turn order (Fate's, FT-INIT)

        why = ("`fudge fate round` orders the round (FT-INIT)" if not ruleset_of(state).own_order(state)[0]
               else f"round {state.round} is over; `fudge fate round` starts the next")
    elif kind == "none":
        why = "these rules give no turns (F-INIT-1)"
    elif not state.initiative and not state.ranked:
        why = "`fudge round` rolls initiative, then `fudge next` gives the first turn"
    else:
        why = "`fudge next` gives the next turn"
    return f"nobody has the turn: {why}; or name both: `{usage}`"


def actor_and_target(state: FightState, typed: Sequence[str], usage: str) -> tuple[str, str]:
    """`TARGET` alone (the actor who has the turn acts on him) or `ACTOR TARGET`, as typed."""
    if len(typed) == 2:
        return typed[0], typed[1]
    actor = current_actor(state)
    if actor is None:
        raise InputError(no_turn(state, usage))
    return actor.name, typed[0]
