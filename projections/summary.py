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
from typing import Any

from msgspec import Struct
from msgspec.structs import asdict

from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.words import counted, possessive
from fudge_combat.engine.turns import still_fights
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded
from fudge_combat.projections.board import fit, track
from fudge_combat.projections.text import safe


class Fighter(Struct, frozen=True):
    """One fighter's line of the summary."""

    name: str
    side: str
    stands: bool
    state: str  # `standing_words`: "stands, Hurt -1", "out: dead (Near Death)"
    points_spent: int
    aspects_invoked: int  # FT-PTS (0 where the ruleset has no aspects)


class Summary(Struct, frozen=True):
    """The summary of a fight at its end: what it was (battle or scene), how long it lasted, who fought."""

    over: str  # "battle" or "scene"
    fought: int
    unit: str  # what `fought` counts: "round" or, at Fate's exchange and scene paces, "exchange"
    points: str  # whose points the fighters spent: "fudge" or "fate"
    fighters: tuple[Fighter, ...]

    def lines(self) -> list[str]:
        """The summary in words, each line escaped: a line of who stands and who is out, then a line each."""
        standing = [who for who in self.fighters if who.stands]
        out = [who for who in self.fighters if not who.stands]
        sides = list(dict.fromkeys(who.side for who in standing))
        if not self.fighters:
            said = "nobody fought"
        elif not standing:
            said = "nobody stands"
        else:
            said = "; ".join(f"{possessive(safe(side))} side stands "
                             f"({', '.join(safe(w.name) for w in standing if w.side == side)})" for side in sides)
        if out:
            said += f"; {', '.join(safe(who.name) for who in out)} {'is' if len(out) == 1 else 'are'} out"
        lines = [f"the {self.over} is over after {counted(self.fought, self.unit)}: {said}"]
        width = max((len(safe(who.name)) for who in self.fighters), default=0)
        sides_width = max((len(safe(who.side)) for who in self.fighters), default=0)
        for who in self.fighters:
            used = f"{counted(who.points_spent, f'{self.points} point')} spent"
            if who.aspects_invoked:
                used += f", {counted(who.aspects_invoked, 'aspect')} invoked"
            lines.append(f"  {fit(safe(who.name), width)}  {fit(safe(who.side), sides_width)}  "
                         f"{who.state.ljust(28)}  {used}".rstrip())
        return lines

    def as_json(self) -> dict[str, Any]:
        """`fudge end --json`'s `summary`: the same facts as data (names as the log holds them)."""
        return {"over": self.over, "fought": {self.unit + "s": self.fought}, "points": self.points,
                "fighters": [asdict(who) for who in self.fighters]}


def summary(state: FightState, log: Sequence[Recorded]) -> Summary:
    """The summary of the fight `state` (before its end), `log` its events in force."""
    rules = ruleset_of(state)
    if rules.plays_rounds(state.options.pace):
        fought, unit = state.round, "round"
    else:  # Fate's exchange and scene paces count their rolls, not rounds
        fought, unit = sum(isinstance(r.event, ev.FateResolved) for r in log), "exchange"
    spent = points_spent(log)
    joined = sorted(state.combatants.values(), key=lambda who: who.joined_seq)
    return Summary(
        over="scene" if rules.scenes else "battle", fought=fought, unit=unit, points=rules.points,
        fighters=tuple(Fighter(name=who.name, side=who.side, stands=still_fights(state, who),
                               state=standing_words(state, who), points_spent=spent.get(who.key, 0),
                               aspects_invoked=rules.invoked(state, who)) for who in joined))


def summary_lines(state: FightState, log: Sequence[Recorded]) -> list[str]:
    """The summary of the fight `state` (before its end), `log` its events in force; each line escaped."""
    return summary(state, log).lines()


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
