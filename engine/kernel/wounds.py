"""F-WND: the wound track, derived from the ordered marks a combatant took.

A track is never edited in place: it is the result of placing every effective
mark in order (F-WND-3). Voiding a mark (undo, a fudge point) and placing the
rest again is therefore always consistent with the overflow rule.
"""

from collections.abc import Iterable

from msgspec import Struct

from fudge_combat.engine.kernel.options import RuleOptions

LEVELS = ("Undamaged", "Scratch", "Hurt", "Very Hurt", "Incapacitated", "Near Death", "Dead")
UNDAMAGED, SCRATCH, HURT, VERY_HURT, INCAPACITATED, NEAR_DEATH, DEAD = range(7)
LEVEL_BY_NAME = {name.lower(): index for index, name in enumerate(LEVELS)}


class Mark(Struct, frozen=True):
    """One wound taken: its level as dealt, and whether a point keeps it from killing."""

    level: int
    seq: int
    still_ticking: bool = False
    healed_from: int | None = None  # F-HEAL-4: the level dealt, when healing lowered `level`


class Track(Struct, frozen=True, dict=True):
    """Boxes for Scratch..Near Death; each box holds the original level of its mark or None.

    `level` is worked out on first reading and kept in the track's own `__dict__` (msgspec's `dict=True`):
    a fight reads it about ten times per blow and per turn (who can act, penalties, who still stands on
    each side), and the board of a large roster for every fighter. Not a field: it is neither compared,
    hashed, shown, stored, nor copied by `replace` or a pickle to a track with other boxes."""

    boxes: tuple[tuple[int | None, ...], ...]
    dead: bool = False
    killed_by: int | None = None
    out: str | None = None  # F-STUN-1 knocked out, F-WND-7 a pawn out of the battle: no actions
    pain: int = 0  # F-DC pain threshold: +1 High (penalties one level less), -1 Low (one more)

    @property
    def level(self) -> int:
        """F-WND-4: the highest level with a marked box (Dead above all)."""
        kept = self.__dict__
        level = kept.get("_level")
        if level is None:
            level = kept["_level"] = self._marked_level()  # a cache of the frozen fields, not a change
        return level

    def _marked_level(self) -> int:
        if self.dead:
            return DEAD
        boxes = self.boxes
        for index in range(len(boxes), 0, -1):
            row = boxes[index - 1]
            if row.count(None) < len(row):  # a box is marked
                return index
        return UNDAMAGED

    def penalty(self, options: RuleOptions) -> int:
        """F-MOD-1: only the worst wound's penalty counts."""
        level = self.level
        if level == UNDAMAGED:
            return 0
        penalty = options.wound_penalties[min(level, VERY_HURT) - 1]
        if penalty and self.pain:
            penalty = min(0, penalty + self.pain)
        return penalty

    @property
    def can_act(self) -> bool:
        """F-WND-1: Incapacitated and worse take no actions."""
        return self.level < INCAPACITATED and self.out is None

    def unable(self, name: str) -> str:
        """Why `name`, who cannot act, cannot: the wound level, or the knockout a track shows as Undamaged."""
        if self.level >= INCAPACITATED or self.out is None:
            return f"{name} is {LEVELS[self.level]} and cannot act (F-WND-1)"
        return f"{name} is {self.out} and cannot act (F-STUN-1)"


def empty_track(counts: Iterable[int]) -> Track:
    return Track(tuple((None,) * n for n in counts))


def place(track: Track, mark: Mark, options: RuleOptions) -> Track:
    """F-WND-3, F-WND-5, F-WND-6: mark a box of the wound's level or the next higher open one."""
    if track.dead or mark.level <= UNDAMAGED:
        return track
    top = len(track.boxes)
    ceiling = VERY_HURT if (mark.level == SCRATCH and options.scratch_cap) else top
    for level in range(min(mark.level, top), ceiling + 1):
        row = track.boxes[level - 1]
        if None in row:
            index = row.index(None)
            new_row = row[:index] + (mark.level,) + row[index + 1:]
            boxes = track.boxes[: level - 1] + (new_row,) + track.boxes[level:]
            return Track(boxes, track.dead, track.killed_by, track.out, track.pain)
    if ceiling < top or mark.still_ticking or options.death_rule == "gm":
        return track  # a capped Scratch is lost; a spared or GM-ruled blow leaves Near Death as it is
    return Track(track.boxes, True, mark.seq, track.out, track.pain)


def build_track(counts: Iterable[int], marks: Iterable[Mark], options: RuleOptions) -> Track:
    track = empty_track(counts)
    for mark in marks:
        track = place(track, mark, options)
    return track


def would_kill(track: Track, level: int, options: RuleOptions) -> bool:
    return place(track, Mark(level, -1), options).dead and not track.dead


def level_for_damage(damage: int, thresholds: tuple[int, ...]) -> int:
    """F-DMG-4: read damage points on the wound thresholds."""
    level = UNDAMAGED
    for index, lowest in enumerate(thresholds, start=1):
        if damage >= lowest:
            level = index
    return level


def halve(level: int) -> int:
    """C-FP-2 Only a Scratch: levels count 1..5, halved rounding down, never below Scratch."""
    return max(SCRATCH, level // 2)
