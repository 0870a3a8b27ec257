"""F-HEAL: what rest, a healing roll and the end of a battle do to the wound marks.

Healing never edits a track: it lowers the level of the marks a combatant
took (each from the level it was dealt, F-HEAL-4, not from the box it landed
in) and the track is placed again from the healed marks. So an
Incapacitated box noted "H" heals as the Hurt it was.

Readings taken:
- A healing roll (or a week of rest) that heals at least one level also
  erases Scratches: a Scratch is below the first level that counts.
- Natural healing with a Constitution roll (F-HEAL-3): the difficulty is set
  by the patient's current wound level (Fair for Hurt, Good for Very Hurt,
  Great for Incapacitated or worse); a failed roll heals nothing that week.
"""

from __future__ import annotations

from collections.abc import Iterable

from fudge_combat.engine.kernel.wounds import HURT, INCAPACITATED, SCRATCH, UNDAMAGED, VERY_HURT, Mark
from fudge_combat.events.structs import HealedMark

SKILL_HEALING: tuple[tuple[int, int], ...] = ((3, 3), (2, 2), (1, 1))  # F-HEAL-2: (lowest result, levels healed)
NATURAL_DIFFICULTY: dict[int, int] = {HURT: 0, VERY_HURT: 1, INCAPACITATED: 2}  # F-HEAL-3: Fair, Good, Great


def levels_for_result(result: int) -> int:
    """F-HEAL-2: Good heals one level, Great two, Superb (or better) three; less heals nothing."""
    for lowest, levels in SKILL_HEALING:
        if result >= lowest:
            return levels
    return 0


def natural_difficulty(level: int) -> int:
    """F-HEAL-3: the Constitution difficulty for a week's healing at this wound level."""
    return NATURAL_DIFFICULTY[min(max(level, HURT), INCAPACITATED)]


def healed_level(level: int, levels: int) -> int:
    """F-HEAL-2: Scratch does not count as a level, so a Hurt healed one level is gone."""
    if levels <= 0:
        return level
    after = level - levels
    return after if after >= HURT else UNDAMAGED


def heal(marks: Iterable[Mark], levels: int) -> tuple[HealedMark, ...]:
    """Every mark healed `levels` levels from its own level (F-HEAL-4)."""
    return tuple(HealedMark(seq=m.seq, before=m.level, after=healed_level(m.level, levels))
                 for m in marks if healed_level(m.level, levels) != m.level)


def erase_scratches(marks: Iterable[Mark]) -> tuple[HealedMark, ...]:
    """F-HEAL-1: after the battle (or a short rest) the Scratches are gone."""
    return tuple(HealedMark(seq=m.seq, before=m.level, after=UNDAMAGED) for m in marks if m.level == SCRATCH)


def apply(marks: Iterable[Mark], changes: Iterable[HealedMark]) -> tuple[Mark, ...]:
    """The marks after healing: healed-away marks leave, the others keep the level they were dealt."""
    by_seq = {c.seq: c for c in changes}
    out = []
    for mark in marks:
        change = by_seq.get(mark.seq)
        if change is None:
            out.append(mark)
        elif change.after > UNDAMAGED:
            original = mark.healed_from if mark.healed_from is not None else mark.level
            out.append(Mark(change.after, mark.seq, mark.still_ticking, original))
    return tuple(out)
