"""`fudge play`'s table shorthands: the words a session reads itself (`SHORTHANDS`, `?`, `q`), and `a`
and `n`, the command they stand for under the fight's rules.

Pure functions of the fight's state (no store, no output), so each ruleset's reading is tested
on its own; cli.play prints what they spelled out and runs it, cli.play_prompt completes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.turns import current_actor, last_turn, still_fights

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import Combatant, FightState

USAGE = 2  # click's exit status for a line it cannot parse

SHORTHANDS = {"n": "next", "u": "undo", "r": "redo"}
LEAVE = ("q", "quit", "exit")
HELP = ("?", "help")


class Leave(Exception):
    """`q`: the GM leaves the session."""


class Refused(Exception):
    """A line the session itself refuses (an unknown command, `a` with nobody's turn): one line, and an exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def find(state: FightState, typed: str) -> Combatant:
    """A combatant by name or unique prefix, in any case, as every command reads names (service.names)."""
    from fudge_combat.engine.kernel.errors import InputError
    from fudge_combat.service.names import resolve

    try:
        return state.combatants[resolve(state, typed).lower()]
    except InputError as exc:
        raise Refused(str(exc), USAGE) from None


def attack_words(state: FightState, words: list[str]) -> list[str]:
    """`a [FIGHTER] TARGET [OPTIONS]` as the command the fight's rules resolve a blow with.

    Turns (phases, rolled initiative, Atari Isev, Fate's turns): the current actor attacks
    (`attack`, `fate attack`). Simultaneous rounds (Fudge, Fate's exchanges) have no current actor:
    the fighter is named, or is the only one standing against the target; the two fight one
    exchange (`exchange`, or `fate exchange` with each acting against the other).
    """
    names, options = leading_names(words)
    if not names:
        raise Refused("`a TARGET` names whom the current actor attacks (`a FIGHTER TARGET` names both)", USAGE)
    actor, target = striker(state, names)
    command = blow(state)
    if command == ["fate", "exchange"]:
        return [*command, f"{actor.name}>{target.name}", f"{target.name}>{actor.name}", *options]
    return [*command, actor.name, target.name, *options]


def leading_names(words: list[str]) -> tuple[list[str], list[str]]:
    """The one or two names a shorthand starts with, and the options after them."""
    names: list[str] = []
    for word in words:
        if word.startswith("-") or len(names) == 2:
            break
        names.append(word)
    return names, words[len(names):]


def striker(state: FightState, names: list[str]) -> tuple[Combatant, Combatant]:
    """Who strikes whom for `a` and `odds`: both named, or the target alone and the striker the current
    actor (turns) or the only foe standing against the target (simultaneous rounds)."""
    target = find(state, names[-1])
    opts = state.options
    turns = opts.pace in ("alternating", "turn")
    if opts.pace in ("story", "scene"):
        command = "`story NAME TRAIT`" if opts.pace == "story" else "`fate scene NAME>FOE ...`"
        raise Refused(f"no blows one at a time at the {opts.pace} pace: {command} rolls for it")
    if len(names) == 2:
        actor = find(state, names[0])
    elif turns:
        found = current_actor(state)
        if found is None:
            raise Refused(nobody_has_the_turn(state))
        actor = found
    else:
        foes = [who for who in state.combatants.values() if who.side != target.side and still_fights(state, who)]
        if len(foes) != 1:
            standing = f"{len(foes)} foes of {target.name} stand" if foes else f"nobody stands against {target.name}"
            raise Refused(f"simultaneous rounds have no current actor and {standing}: "
                          f"name who fights, `a FIGHTER {target.name}`")
        actor = foes[0]
    if actor.key == target.key:
        whose = f"it is {actor.name}'s turn" if len(names) == 1 else f"{actor.name} is named twice"
        raise Refused(f"{whose}, and a fighter does not strike himself: name whom {actor.name} attacks", USAGE)
    return actor, target


def odds_words(state: FightState, words: list[str]) -> list[str]:
    """`odds [FIGHTER] TARGET`: `odds --fight` for the blow `a` would strike, with the striker named."""
    names, options = leading_names(words)
    actor, target = striker(state, names)
    return ["odds", "--fight", actor.name, target.name, *options]


def blow(state: FightState) -> list[str]:
    """The command a blow is under the fight's rules: an attack in turns, an exchange in simultaneous rounds."""
    turns = state.options.pace in ("alternating", "turn")
    return [*ruleset_of(state).blow_prefix, "attack" if turns else "exchange"]


def next_words(state: FightState, rest: list[str]) -> list[str]:
    """`n`: `next`; once the round's turns are used, `round` (phases, rolled initiative: PH-1, F-INIT-2,
    AI-INIT-2) or in Fate's turns by Alertness `fate round` (FT-INIT): the next round, its initiative rolled.

    Under phases `next` moves on after the actor has acted; Fate's turns move on by themselves when he
    acts (FT-INIT), so `n` typed after a blow from that habit would give up the next fighter's turn
    unasked. While someone has the turn `n` is refused, naming the commands that give it up
    (`fate pass`, `fate hold`): giving up a turn is said, never a side effect of `n`."""
    if state.options.initiative != "alertness":
        return ["round", *rest] if last_turn(state) else ["next", *rest]
    actor = current_actor(state)
    if actor is not None:
        raise Refused(f"it is {actor.name}'s turn: Fate's turns move on when he acts, `a TARGET`, or gives it up, "
                      "`fate pass` or `fate hold` (FT-INIT)")
    return ["fate", "round", *rest]


def nobody_has_the_turn(state: FightState) -> str:
    if state.options.initiative == "alertness":
        return "nobody has the turn: `fate round` orders a new round by Alertness (FT-INIT)"
    if state.options.initiative == "none":
        return "these rules have no turn order (the GM says who attacks, F-PACE-3): `a FIGHTER TARGET`"
    return "nobody has the turn: `n` gives the next actor the turn (`round` first, if none is rolled)"
