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

from engine.options import RuleOptions
from engine.sheets import Sheet
from engine.wounds import HURT, INCAPACITATED, SCRATCH, Mark, Track, build_track

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


def track_of(sheet: Sheet, boxes: Iterable[int], marks: Iterable[Mark], options: RuleOptions,
             out: str | None = None) -> Track:
    """The track a combatant's marks make, with its pain threshold and whether it is out."""
    if is_pawn(sheet):
        track = build_track(PAWN_BOXES, pawn_marks(marks), options)
        if track.level >= INCAPACITATED and out is None:
            out = OUT_OF_BATTLE
    else:
        track = build_track(boxes, marks, options)
    return Track(track.boxes, track.dead, track.killed_by, out, pain_of(sheet))
