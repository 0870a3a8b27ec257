"""The battle's summary, as `fudge end` (and Fate's `end-scene`) print it: who stands, who is out and how,
the rounds fought, the points spent, a line per fighter.

    the battle is over after 2 rounds: heroes' side stands (Snorri, Leroy); Brynhild is out
      Snorri    heroes    stands, Scratch              1 fudge point spent
      Brynhild  raiders   out: dead (Near Death)       0 fudge points spent

Read from the fight as it stood before its end (the end clears stun marks and knockouts: a fighter
knocked out was out of the battle) and from the events in force (undone ones do not count).
"""

from __future__ import annotations

from collections.abc import Sequence

from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.words import counted, possessive
from fudge_combat.engine.turns import still_fights
from fudge_combat.events import models as ev
from fudge_combat.events.envelope import Recorded
from fudge_combat.projections.board import fit, track
from fudge_combat.projections.text import safe


def summary_lines(state: FightState, log: Sequence[Recorded]) -> list[str]:
    """The summary of the fight `state` (before its end), `log` its events in force; each line escaped."""
    rules = ruleset_of(state)
    if rules.plays_rounds(state.options.pace):
        fought = counted(state.round, "round")
    else:  # Fate's exchange and scene paces count their rolls, not rounds
        fought = counted(sum(isinstance(r.event, ev.FateResolved) for r in log), "exchange")
    joined = sorted(state.combatants.values(), key=lambda who: who.joined_seq)
    standing = [who for who in joined if still_fights(state, who)]
    out = [who for who in joined if not still_fights(state, who)]
    sides = list(dict.fromkeys(who.side for who in standing))
    if not joined:
        said = "nobody fought"
    elif not standing:
        said = "nobody stands"
    else:
        said = "; ".join(f"{possessive(safe(side))} side stands "
                         f"({', '.join(safe(w.name) for w in standing if w.side == side)})" for side in sides)
    if out:
        said += f"; {', '.join(safe(who.name) for who in out)} {'is' if len(out) == 1 else 'are'} out"
    lines = [f"the {'scene' if rules.scenes else 'battle'} is over after {fought}: {said}"]
    spent = points_spent(log)
    width = max((len(safe(who.name)) for who in joined), default=0)
    sides_width = max((len(safe(who.side)) for who in joined), default=0)
    for who in joined:
        state_words = standing_words(state, who)
        used = f"{counted(spent.get(who.key, 0), f'{rules.points} point')} spent"
        invoked = rules.invoked(state, who)  # FT-PTS: the aspects he invoked
        if invoked:
            used += f", {counted(invoked, 'aspect')} invoked"
        lines.append(f"  {fit(safe(who.name), width)}  {fit(safe(who.side), sides_width)}  "
                     f"{state_words.ljust(28)}  {used}".rstrip())
    return lines


def standing_words(state: FightState, who: Combatant) -> str:
    """"stands, Hurt -1", "out: dead (Near Death)", "out: fled", "out: Taken Out"."""
    out, level, _, _ = track(state, who)
    if still_fights(state, who):
        return f"stands, {level}"
    if who.left:
        return f"out: {who.left}"
    if who.track.dead:
        return "out: dead" if level == "Dead" else f"out: dead ({level})"
    why = out.removeprefix("OUT of the fight").strip(" ()")
    return f"out: {why or level}"


def points_spent(log: Sequence[Recorded]) -> dict[str, int]:
    """Fudge (or fate) points each fighter spent, by key, over the events in force (C-FP-3)."""
    spent: dict[str, int] = {}
    for record in log:
        if isinstance(record.event, ev.FudgePointSpent):
            key = record.event.combatant.lower()
            spent[key] = spent.get(key, 0) + record.event.cost
    return spent
