"""What an after-action report counts in a fight's log: rolls and their luck, the dice's fairness, each
combatant's wounds over time, the points spent. Pure: records in, numbers out (words are the CLI's).

Which rolls count where:
- a roll is every event that carries dice (engine.audit.DICE_EVENTS): the dice of actions, blows, damage,
  luck and sweeps (DiceRolled), and initiative dice (phase dice PH-2 and CT-TABLE, InitiativeRolled; rolled
  initiative F-INIT-2 and AI-INIT-2, InitiativeRanked);
- fairness counts every Fudge die thrown, in force or undone: a die thrown is a sample of the dice,
  whatever the GM did with the command afterwards. Typed substitutes (3d6 or d% read on a chart) and
  the d6 of a damage roll are not Fudge dice: they are counted apart (`not_fudge`), never in the table;
- luck counts the rolls in force, what the fight was decided by (an undone or rerolled roll is shown
  as such, with its percentile, but not in the index).

Who is out of the fight is read where each battle or scene ended (BattleEnded, FateSceneEnded): the
end clears knockouts (F-STUN-1) and Fate's Taken Out box (FT-TRACK-3), which does not bring anyone back
into the fight that ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from msgspec import Struct, field

from fudge_combat.engine.audit import DICE_EVENTS
from fudge_combat.engine.kernel.history import effective, voided
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.turns import still_fights
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded
from fudge_combat.projections.fold import evolve_all
from fudge_combat.projections.luck import chi_square, face_counts, luck_index, p_value_2dof, roll_luck

VERDICT_P = 0.01  # below this p-value the faces are called unlikely for fair dice
MIN_DICE = 30  # fewer Fudge dice than this are too few to judge (about 10 expected per face)


class Roll(Struct, frozen=True):
    seq: int
    round: int
    roller: str
    purpose: str
    faces: tuple[int, ...]
    source: str
    fudge_dice: bool  # Fudge dice read as they fell (not a d6, not a typed substitute)
    luck: Fraction | None
    voided: bool
    sides: int | None = None  # None: Fudge dice (or a typed substitute read as them); 6: a d6
    substitute: bool = False  # C-DICE-4: a 3d6 or d% typed, read on the chart as Fudge faces


class Fairness(Struct, frozen=True):
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

    @property
    def verdict(self) -> str:
        """What the counts say, in words every format shows (a small p on a few dice says nothing)."""
        if self.dice < MIN_DICE:
            return "too few dice to judge"
        return "consistent with fair dice" if self.p_value >= VERDICT_P else f"unlikely for fair dice (p < {VERDICT_P})"

    @property
    def suspect(self) -> bool:
        return self.dice >= MIN_DICE and self.p_value < VERDICT_P


class Spent(Struct, frozen=True):
    seq: int
    command: str
    combatant: str
    use: str
    cost: int
    target: int
    voided: bool


class Track(Struct):
    """One combatant's wound level after each event: (seq, level index) points, and the level names."""

    name: str
    levels: tuple[str, ...]
    points: list[tuple[int, int]] = field(default_factory=list)


def name_of(state: FightState, key: str) -> str:
    who = state.find(key) if key else None
    return who.name if who is not None else key


Walked = Sequence[tuple[Recorded, FightState]]  # a log's events with the state as of each (evolve_all)


def rolls(records: Sequence[Recorded], walked: Walked | None = None) -> list[Roll]:
    """Every roll of the log with its luck (its mid-percentile in the exact distribution of its dice): every
    event that carries dice, initiative's included."""
    gone = voided(records)
    out = []
    for record, state in walked if walked is not None else evolve_all(records):
        event = record.event
        if not isinstance(event, DICE_EVENTS) or not event.faces:
            continue
        sides, substitute = None, False
        if isinstance(event, ev.DiceRolled):
            sides, substitute = event.sides, event.substitute is not None
            plain = sides is None and not substitute
            luck = roll_luck(event.faces, sides) if not substitute else None
            roller, purpose = event.roller, event.purpose
        else:  # initiative: Fudge dice thrown (phase dice, or 4dF + trait); frozen or bartered faces are not throws
            plain, luck, roller, purpose = True, roll_luck(event.faces), event.combatant, "initiative"
        out.append(Roll(record.seq, state.round, name_of(state, roller), purpose, tuple(event.faces),
                        event.source, plain, luck, record.seq in gone, sides, substitute))
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


def not_fudge(all_rolls: Sequence[Roll]) -> dict[str, int]:
    """The throws that are not Fudge dice, by kind: dice of `d6`, and `typed substitute` rolls (a 3d6 or d% typed
    for 4dF): counted, never judged against a third each."""
    out: dict[str, int] = {}
    for roll in all_rolls:
        if not roll.fudge_dice:
            kind = "typed substitute" if roll.substitute else f"d{roll.sides}"
            out[kind] = out.get(kind, 0) + (1 if roll.substitute else len(roll.faces))
    return out


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
    """The wound level as a number, as the fight's ruleset reads it: the Fudge track's (F-WND), or Fate's
    worst box marked (FT-TRACK)."""
    return ruleset_of(state).severity(state, who)


def tracks(records: Sequence[Recorded]) -> list[Track]:
    """Each combatant's wound level after every event in force, from the event he joined on: the fight as it
    stands (A-UNDO-2), an undone command's wounds never drawn (the story shows them, struck through)."""
    out: dict[str, Track] = {}
    kept = effective(records)
    for record, state in evolve_all(kept):
        levels = ruleset_of(state).severity_levels
        for key, who in state.combatants.items():
            track = out.setdefault(key, Track(who.name, levels))
            level = severity(state, who)
            if not track.points or track.points[-1][1] != level or record is kept[-1]:
                track.points.append((record.seq, level))
    return list(out.values())


# The events that end a battle or a scene, and those that are part of playing one (what is left, such as
# healing, recovery, a GM's kill or a seed, is the aftermath of the fight that ended).
ENDINGS = (ev.BattleEnded, ev.FateSceneEnded)
PLAY = (ev.RoundStarted, ev.FateTurnOrder, ev.InitiativeRolled, ev.InitiativeRanked, ev.ActionResolved,
        ev.ExchangeResolved, ev.ShotResolved, ev.MeleeResolved, ev.FateResolved, ev.StoryRolled, ev.WoundMarked,
        ev.StunMarked, ev.FateBoxMarked, ev.LocationWounded)


class Standing(Struct, frozen=True):
    """Who was out of the fight and who still stood when a battle or scene ended (`ended`: the seq of its end,
    None for the fight still going)."""

    ended: int | None
    out: tuple[str, ...]
    standing: tuple[str, ...]


def standings(records: Sequence[Recorded]) -> list[Standing]:
    """Each battle or scene played, as the rules left it when it ended (the state just before its end: the end
    clears a knockout, F-STUN-1, or Taken Out, FT-TRACK-3), and the fight going on after the last end, if any
    of it was played. The dead (F-WND-6, a GM's kill after the fight) are out of every one they were in."""
    kept = effective(records)
    ends: list[tuple[int | None, FightState]] = []
    before, played = FightState(), False
    for record, state in evolve_all(kept):
        if isinstance(record.event, ENDINGS):
            if played or not ends:
                ends.append((record.seq, before))
            played = False
        elif isinstance(record.event, PLAY):
            played = True
        before = state
    if played or not ends:
        ends.append((None, before))
    final = before
    out = []
    for seq, state in ends:
        fell = [who for who in state.combatants.values()
                if not still_fights(state, who) or final.combatants[who.key].track.dead]
        out.append(Standing(seq, tuple(final.combatants[who.key].name for who in fell),
                            tuple(final.combatants[key].name for key in state.combatants
                                  if all(who.key != key for who in fell))))
    return out
