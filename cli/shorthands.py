"""`fudge play`'s table shorthands: the words a session reads itself (`SHORTHANDS`, `?`, `q`), and `a`
and `n`, the command they stand for under the fight's rules.

Pure functions of the fight's state (no store, no output), so each ruleset's reading is tested
on its own; cli.play prints what they spelled out and runs it, cli.play_prompt completes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.turns import current_actor, last_turn, still_fights, yet_to_act

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
    if state.options.pace == "simultaneous" and len(names) == 1 and len(foes(state, find(state, names[0]))) > 1:
        return [*melee(state, None, find(state, names[0])), *options]
    actor, target = striker(state, names)
    command = blow(state)
    if command == ["fate", "exchange"]:
        return [*command, *engaged(state, actor, target), *options]
    if state.options.pace == "simultaneous":
        return [*melee(state, actor, target), *options]
    return [*command, actor.name, target.name, *options]


def foes(state: FightState, who: Combatant) -> list[Combatant]:
    """Those still standing on another side than `who`'s, in join order."""
    return sorted((other for other in state.combatants.values() if other.side != who.side and still_fights(state, other)),
                  key=lambda c: c.joined_seq)


def melee(state: FightState, actor: Combatant | None, target: Combatant) -> list[str]:
    """Simultaneous rounds (F-PACE-2): each engaged pair rolls once a round, and a fighter alone against
    several foes fights them all with one roll (F-MULTI-1, F-MULTI-2, F-MULTI-3): `melee`. The pair named is
    an `exchange` unless one of the two stands alone against several and the other has no other foe;
    `actor` None: the target, alone, against every foe standing.

    A blow that would open a new round (one of them fought in this one) while another fighter has not
    fought yet is refused: a round is never opened implicitly while someone can still act in it."""
    if actor is None:
        words, fighters = ["melee", target.name, *[f.name for f in foes(state, target)]], [target, *foes(state, target)]
    elif len(foes(state, target)) > 1 and [f.key for f in foes(state, actor)] == [target.key]:
        words, fighters = ["melee", target.name, *[f.name for f in foes(state, target)]], [target, *foes(state, target)]
    elif len(foes(state, actor)) > 1 and [f.key for f in foes(state, target)] == [actor.key]:
        words = ["melee", actor.name, *[f.name for f in foes(state, actor)], "--target", target.name]
        fighters = [actor, *foes(state, actor)]
    else:
        words, fighters = ["exchange", actor.name, target.name], [actor, target]
    again = [who for who in fighters if who.key in state.fought]
    keys = {who.key for who in fighters}
    waiting = [who for who in yet_to_act(state) if who.key not in keys]
    if state.round and again and waiting:
        verb = "has" if len(waiting) == 1 else "have"
        raise Refused(f"{again[0].name} fought in round {state.round} and {and_list([w.name for w in waiting])} "
                      f"{verb} not: this would open round {state.round + 1} (F-PACE-2); fight them first, "
                      f"or `round --force` opens it")
    return words


def engaged(state: FightState, actor: Combatant, target: Combatant) -> list[str]:
    """Fate's exchange takes everyone who engages (FT-PACE: all declare, all roll, each compared with whom
    he opposes): the pair named, and each other fighter standing against his only foe standing. One
    with several foes is not guessed: the GM names whom he opposes."""
    out = [f"{actor.name}>{target.name}", f"{target.name}>{actor.name}"]
    for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
        if who.key in (actor.key, target.key) or not still_fights(state, who):
            continue
        opposed = foes(state, who)
        if len(opposed) > 1:
            raise Refused(f"an exchange takes everyone who engages (FT-PACE), and {who.name} stands against "
                          f"{and_list([f.name for f in opposed])}: name whom each opposes, "
                          f"`fate exchange {out[0]} {out[1]} {who.name}>{opposed[0].name} ...`", USAGE)
        if opposed:
            out.append(f"{who.name}>{opposed[0].name}")
    return out


def and_list(names: list[str]) -> str:
    """"Leroy", "Leroy and Brynhild", "Leroy, Theodora and Brynhild"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def leading_names(words: list[str]) -> tuple[list[str], list[str]]:
    """The one or two names a shorthand starts with, and the options after them."""
    names: list[str] = []
    for word in words:
        if word.startswith("-") or len(names) == 2:
            break
        names.append(word)
    return names, words[len(names):]


def striker(state: FightState, names: list[str], word: str = "a") -> tuple[Combatant, Combatant]:
    """Who strikes whom for `a` and `odds` (`word`, the shorthand typed, which a refusal names): both named,
    or the target alone and the striker the current actor (turns) or the only foe standing against the
    target (simultaneous rounds)."""
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
            raise Refused(nobody_has_the_turn(state, word))
        actor = found
    else:
        foes = [who for who in state.combatants.values() if who.side != target.side and still_fights(state, who)]
        if len(foes) != 1:
            standing = f"{len(foes)} foes of {target.name} stand" if foes else f"nobody stands against {target.name}"
            raise Refused(f"simultaneous rounds have no current actor and {standing}: "
                          f"name who fights, `{word} FIGHTER {target.name}`")
        actor = foes[0]
    if actor.key == target.key:
        whose = f"it is {actor.name}'s turn" if len(names) == 1 else f"{actor.name} is named twice"
        raise Refused(f"{whose}, and a fighter does not strike himself: name whom {actor.name} attacks", USAGE)
    return actor, target


def odds_words(state: FightState, words: list[str]) -> list[str]:
    """`odds [FIGHTER] TARGET`: `odds --fight` for the blow `a` would strike, with the striker named."""
    names, options = leading_names(words)
    actor, target = striker(state, names, "odds")
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
        return ["round", *rest] if starts_a_round(state) else ["next", *rest]
    actor = current_actor(state)
    if actor is not None:
        raise Refused(f"it is {actor.name}'s turn: Fate's turns move on when he acts, `a TARGET`, or gives it up, "
                      "`fate pass` or `fate hold` (FT-INIT)")
    return ["fate", "round", *rest]


def starts_a_round(state: FightState) -> bool:
    """In turns by rolled initiative (phases PH-1, F-INIT-2, AI-INIT-2) the next step is a new round: the
    round's last turn is given, or no initiative is rolled yet (before the first round)."""
    if state.options.initiative in ("none", "alertness"):
        return False
    return last_turn(state) or not (state.initiative or state.ranked)


def nobody_has_the_turn(state: FightState, word: str = "a") -> str:
    if state.options.initiative == "alertness":
        return "nobody has the turn: `fate round` orders a new round by Alertness (FT-INIT)"
    if state.options.initiative == "none":
        return f"these rules have no turn order (the GM says who attacks, F-PACE-3): `{word} FIGHTER TARGET`"
    return "nobody has the turn: `n` gives the next actor the turn (`round` first, if none is rolled)"
