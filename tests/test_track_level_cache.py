"""F-WND-4: a track's level is worked out once and kept on the track (engine.kernel.wounds.Track, in its own
`__dict__`); whatever way a track with other boxes is made from one whose level was read (msgspec's
`replace`, the state's `replace`, a copy, a pickle), its level is that of its own boxes."""

from __future__ import annotations

import copy
import pickle

from hypothesis import given, strategies as st
import msgspec

from fudge_combat.engine.kernel.wounds import DEAD, UNDAMAGED, Track
from fudge_combat.engine.kernel.state import replace as fast_replace

rows = st.lists(st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=1, max_size=3), min_size=5, max_size=5)
tracks = st.builds(lambda boxes, dead: Track(tuple(map(tuple, boxes)), dead=dead), rows, st.booleans())


def expected(track: Track) -> int:
    """F-WND-4 read off the boxes: the highest level with a marked box, Dead above all."""
    if track.dead:
        return DEAD
    return max((index for index, row in enumerate(track.boxes, start=1) if any(b is not None for b in row)),
               default=UNDAMAGED)


@given(tracks, tracks)
def test_F_WND_4_a_track_made_from_one_whose_level_was_read_has_its_own_level(track: Track, other: Track) -> None:
    """F-WND-4: the kept level never travels to a track with other boxes or another death."""
    assert track.level == expected(track)  # read: now kept on `track`
    assert track.__dict__["_level"] == expected(track)
    for made in (msgspec.structs.replace(track, boxes=other.boxes), msgspec.structs.replace(track, dead=other.dead),
                 fast_replace(track, boxes=other.boxes, dead=other.dead), pickle.loads(pickle.dumps(track)),
                 copy.copy(track), copy.deepcopy(track)):
        assert made.level == expected(made)
    assert (track == other) == ((track.boxes, track.dead) == (other.boxes, other.dead)
                                and track.killed_by == other.killed_by and track.out == other.out
                                and track.pain == other.pain)


@given(tracks)
def test_F_WND_4_reading_the_level_changes_neither_equality_nor_hash(track: Track) -> None:
    """F-WND-4: the kept level is not part of the track's value."""
    fresh = msgspec.structs.replace(track)
    assert track.level == expected(track)
    assert track == fresh and hash(track) == hash(fresh)
