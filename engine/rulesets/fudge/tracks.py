"""Which track a combatant's marks are placed on: boxes, or an NPC pawn's (F-WND-7).

Every track is derived from the ordered marks (F-WND-3); this module only
chooses how, and adds what the sheet says about pain (F-DC gifts).

Readings taken for pawns (F-WND-7, Undamaged -> Hurt -> Out of the battle):
a Scratch does nothing to a pawn; a Hurt makes an unhurt pawn Hurt; a second
Hurt, or any Very Hurt or worse, puts it out of the battle (shown as
Incapacitated: it takes no actions); a pawn out of the battle takes no more
marks.
"""

from __future__ import annotations

from collections.abc import Iterable

from msgspec import Struct

from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.sheets import Fighter, Sheet
from fudge_combat.engine.kernel.wounds import DEAD, HURT, INCAPACITATED, SCRATCH, UNDAMAGED, VERY_HURT, Mark, Track, build_track

PAWN_BOXES = (0, 1, 0, 1, 0)
OUT_OF_BATTLE = "out of the battle"
KNOCKED_OUT = "knocked out"
PAIN_GIFTS = {"high pain threshold": 1, "low pain threshold": -1}  # F-DC: penalties one level less / more


def is_pawn(sheet: Sheet) -> bool:
    return sheet.track == "pawn"


def pain_of(sheet: Sheet) -> int:
    return sum(PAIN_GIFTS.get(gift.strip().lower(), 0) for gift in sheet.gifts)


def pawn_marks(marks: Iterable[Mark]) -> list[Mark]:
    """F-WND-7: a Scratch is nothing to a pawn; Very Hurt or worse takes it out."""
    out = []
    for mark in marks:
        if mark.level <= SCRATCH:
            continue
        level = HURT if mark.level == HURT else INCAPACITATED
        out.append(Mark(level, mark.seq, mark.still_ticking, mark.healed_from))
        if level == INCAPACITATED or sum(1 for m in out if m.level == HURT) > 1:
            break
    return out


MEDIOCRE, POOR, TERRIBLE = -1, -2, -3
SCRATCHES_PER_HIT = 3  # F-WND-8: "perhaps three Scratches equal one hit"


class DamageCapacityTrack(Track, frozen=True):
    """F-WND-8: wounds recorded on the Damage Capacity attribute; the boxes only show the marks.

    Each hit worse than a Scratch lowers DC one level, and every third Scratch
    counts as a hit (reading). Mediocre is Hurt, Poor Very Hurt, Terrible -3
    (or Incapacitated, option), below Terrible Incapacitated; an undamaged
    character of low DC takes no penalty, and a hit character whose DC is
    still above Mediocre only counts as Scratched.
    """

    capacity: int = 0  # DC before any hit
    hits: int = 0
    terrible_incapacitates: bool = False

    @property
    def current(self) -> int:
        return self.capacity - self.hits

    @property
    def level(self) -> int:
        if self.dead:  # only the GM's kill: running out of boxes does not kill on this track
            return DEAD
        if self.hits == 0:
            return SCRATCH if any(b is not None for row in self.boxes for b in row) else UNDAMAGED
        dc = self.current
        if dc > MEDIOCRE:
            return SCRATCH
        if dc == MEDIOCRE:
            return HURT
        if dc == POOR or (dc == TERRIBLE and not self.terrible_incapacitates):
            return VERY_HURT
        return INCAPACITATED

    def penalty(self, options: RuleOptions) -> int:
        if self.current == TERRIBLE and self.hits and not self.terrible_incapacitates:
            penalty = -3
            return min(0, penalty + self.pain) if self.pain else penalty
        return Track.penalty(self, options)


def dc_track(fighter: Fighter, boxes: Iterable[int], marks: Iterable[Mark], options: RuleOptions) -> Track:
    marks = list(marks)
    hits = sum(1 for m in marks if m.level > SCRATCH) + sum(1 for m in marks if m.level == SCRATCH) // SCRATCHES_PER_HIT
    shown = build_track(boxes, marks, options)
    capacity = fighter.trait("Damage Capacity", options)[1]
    return DamageCapacityTrack(shown.boxes, False, None, capacity=capacity, hits=hits,
                               terrible_incapacitates=options.dc_track_terrible == "incapacitated")


def track_of(fighter: Fighter, boxes: Iterable[int], marks: Iterable[Mark], options: RuleOptions,
             out: str | None = None) -> Track:
    """The track a combatant's marks make, with its pain threshold and whether it is out."""
    sheet = fighter.sheet
    if is_pawn(sheet):
        track = build_track(PAWN_BOXES, pawn_marks(marks), options)
        if track.level >= INCAPACITATED and out is None:
            out = OUT_OF_BATTLE
    elif options.dc_track:
        track = dc_track(fighter, boxes, marks, options)
    else:
        track = build_track(boxes, marks, options)
    if isinstance(track, DamageCapacityTrack):
        return DamageCapacityTrack(track.boxes, track.dead, track.killed_by, out, pain_of(sheet),
                                   track.capacity, track.hits, track.terrible_incapacitates)
    return Track(track.boxes, track.dead, track.killed_by, out, pain_of(sheet))
