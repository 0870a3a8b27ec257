"""What an after-action report counts in a fight's log: rolls and their luck, the dice's fairness, each
combatant's wounds over time, the points spent. Pure: records in, numbers out (words are the CLI's).

Which rolls count where:
- fairness counts every Fudge die thrown, in force or undone: a die thrown is a sample of the dice,
  whatever the GM did with the command afterwards. Typed substitutes (3d6 or d% read on a chart) and
  the d6 of a damage roll are not Fudge dice and are left out;
- luck counts the rolls in force, what the fight was decided by (an undone or rerolled roll is shown
  as such, with its percentile, but not in the index).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from engine.history import effective, voided
from engine.state import Combatant, FightState
from engine.wounds import LEVELS
from events import models as ev
from events.envelope import Recorded
from projections.fold import evolve_all
from projections.luck import chi_square, face_counts, luck_index, p_value_2dof, roll_luck

FATE_LEVELS = ("Unharmed", "Clipped", "Hurt", "Injured", "Taken Out")


@dataclass(frozen=True)
class Roll:
    seq: int
    round: int
    roller: str
    purpose: str
    faces: tuple[int, ...]
    source: str
    fudge_dice: bool  # Fudge dice read as they fell (not a d6, not a typed substitute)
    luck: Fraction | None
    voided: bool


@dataclass(frozen=True)
class Fairness:
    roller: str
    source: str  # "generated" or "entered" (typed from the table's dice)
    counts: tuple[int, int, int]  # -, blank, +

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @property
    def chi_square(self) -> float:
        return chi_square(self.counts)

    @property
    def p_value(self) -> float:
        return p_value_2dof(self.chi_square)


@dataclass(frozen=True)
class Spent:
    seq: int
    command: str
    combatant: str
    use: str
    cost: int
    target: int
    voided: bool


@dataclass
class Track:
    """One combatant's wound level after each event: (seq, level index) points, and the level names."""

    name: str
    levels: tuple[str, ...]
    points: list[tuple[int, int]] = field(default_factory=list)


def name_of(state: FightState, key: str) -> str:
    who = state.find(key) if key else None
    return who.name if who is not None else key


Walked = Sequence[tuple[Recorded, FightState]]  # a log's events with the state as of each (evolve_all)


def rolls(records: Sequence[Recorded], walked: Walked | None = None) -> list[Roll]:
    """Every roll of the log with its luck (its mid-percentile in the exact distribution of its dice)."""
    gone = voided(records)
    out = []
    for record, state in walked if walked is not None else evolve_all(records):
        event = record.event
        if isinstance(event, ev.DiceRolled) and event.faces:
            plain = event.sides is None and event.substitute is None
            luck = roll_luck(event.faces, event.sides) if event.substitute is None else None
            out.append(Roll(record.seq, state.round, name_of(state, event.roller), event.purpose, tuple(event.faces),
                            event.source, plain, luck, record.seq in gone))
    return out


def luck_by_roller(all_rolls: Sequence[Roll]) -> dict[str, tuple[int, float]]:
    """Roller -> (rolls in force with a known distribution, luck index)."""
    by: dict[str, list[Fraction]] = {}
    for roll in all_rolls:
        if roll.luck is not None and not roll.voided:
            by.setdefault(roll.roller, []).append(roll.luck)
    return {who: (len(values), luck_index(values) or 0.0) for who, values in by.items()}


def fairness(all_rolls: Sequence[Roll]) -> list[Fairness]:
    """Faces counted per roller and source, and for the whole table per source ("all")."""
    counts: dict[tuple[str, str], list[int]] = {}
    for roll in all_rolls:
        if not roll.fudge_dice:
            continue
        seen = face_counts(roll.faces)
        for key in ((roll.roller, roll.source), ("all", roll.source)):
            total = counts.setdefault(key, [0, 0, 0])
            for index in range(3):
                total[index] += seen[index]
    rollers = sorted(k for k in counts if k[0] != "all") + sorted(k for k in counts if k[0] == "all")
    return [Fairness(who, source, (counts[(who, source)][0], counts[(who, source)][1], counts[(who, source)][2]))
            for who, source in rollers]


def spent(records: Sequence[Recorded], walked: Walked | None = None) -> list[Spent]:
    """Fudge or fate points spent, and aspects checked (Fate's rerolls)."""
    gone = voided(records)
    out = []
    for record, state in walked if walked is not None else evolve_all(records):
        event = record.event
        if isinstance(event, ev.FudgePointSpent):
            out.append(Spent(record.seq, record.command, name_of(state, event.combatant), event.use, event.cost,
                             event.target, record.seq in gone))
        elif isinstance(event, ev.AspectChecked):
            out.append(Spent(record.seq, record.command, name_of(state, event.combatant),
                             f"aspect {event.aspect}", 0, event.target, record.seq in gone))
    return out


def severity(state: FightState, who: Combatant) -> int:
    """The wound level as a number: the Fudge track's (F-WND), or Fate's worst box marked (FT-TRACK)."""
    if state.options.ruleset != "fate":
        return 6 if who.track.dead else who.track.level
    from engine.fate import penalty_view

    view = penalty_view(state, who)
    if view["taken_out"] or who.track.dead:
        return 4
    marked = [index + 1 for index, name in enumerate(view["capacity"]) if view["boxes"][name]]
    return min(3, max(marked, default=0))


def tracks(records: Sequence[Recorded]) -> list[Track]:
    """Each combatant's wound level after every event in force, from the event he joined on: the fight as it
    stands (A-UNDO-2), an undone command's wounds never drawn (the story shows them, struck through)."""
    out: dict[str, Track] = {}
    kept = effective(records)
    for record, state in evolve_all(kept):
        levels = FATE_LEVELS if state.options.ruleset == "fate" else LEVELS
        for key, who in state.combatants.items():
            track = out.setdefault(key, Track(who.name, levels))
            level = severity(state, who)
            if not track.points or track.points[-1][1] != level or record is kept[-1]:
                track.points.append((record.seq, level))
    return list(out.values())
