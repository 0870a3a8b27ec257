"""`fold` works on a private draft changed in place (`engine.kernel.state.Draft`); the states it returns are
the ones `evolve`, one new state per event, builds, and the state it starts from is left as it was.

The logs are whole simulated fights of every preset and policy (exchanges, melees, phase and rolled
initiative, atari isev, fate, fudge-point spends that void and re-resolve), and the random GM sessions
of tests/test_properties.py (trait rolls, advantages, undo and redo).
"""

from __future__ import annotations

import functools
import pickle
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from fudge_combat.events.records import json_form
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.engine.kernel.state import Draft, draft_of, freeze
from fudge_combat.engine.kernel.history import effective
from fudge_combat.projections.fold import fold, replay
from fudge_combat.engine.evolve import evolve
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.sim.runner import Entrant, LightSession, Setup, fight_seed, play
from tests.test_properties import new_session, play as play_session, session as gm_session

SHEETS = Path(__file__).resolve().parents[1] / "examples" / "sheets"
FIGHTERS = {"fudge": ("snorri", "brynhild", "leroy"), "fudge-phases": ("leroy", "brynhild"),
            "atari-isev": ("max", "cutthroat"), "fate": ("cyrus", "finn")}


@functools.lru_cache(maxsize=None)
def setup_of(preset: str, policy: str, crowd: bool) -> Setup:
    label, options = resolve(preset)
    names = FIGHTERS[preset] if crowd else FIGHTERS[preset][:2]
    entrants = []
    for index, name in enumerate(names):
        sheet = parse_sheet((SHEETS / f"{name}.toml").read_text(), f"{name}.toml")
        entrants.append(Entrant(json_form(sheet), f"{name}.toml", "one" if index == 0 else "two"))
    return Setup(label, json_form(options), tuple(entrants), policy, 12)


def fight_log(preset: str, policy: str, crowd: bool, index: int) -> list:
    session = LightSession(fight_seed(7, index))
    play(session, setup_of(preset, policy, crowd))
    return session.records


def evolve_fold(records: list, state: FightState | None = None) -> FightState:
    """The plain fold: one new state per event."""
    return functools.reduce(evolve, records, state or FightState())


fights = st.tuples(st.sampled_from(sorted(FIGHTERS)), st.sampled_from(("plain", "sensible", "reckless")),
                   st.booleans(), st.integers(0, 10_000))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fights, st.floats(0, 1))
def test_fold_equals_the_evolve_fold_and_leaves_its_start_alone(fight: tuple, split: float) -> None:
    records = effective(fight_log(*fight))
    whole = fold(records)
    assert type(whole) is FightState
    assert whole == evolve_fold(records)

    cut = int(len(records) * split)
    start = evolve_fold(records[:cut])
    before = pickle.dumps(start)
    resumed = fold(records[cut:], start)
    assert type(resumed) is FightState
    assert resumed == whole
    assert pickle.dumps(start) == before  # the state the fold started from is unchanged
    assert start == evolve_fold(records[:cut])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fights)
def test_replay_as_of_every_point_equals_the_evolve_fold(fight: tuple) -> None:
    """A-REPLAY-1: as-of views through the draft fold are the plain fold's, voids included."""
    log = fight_log(*fight)
    for as_of in range(0, len(log) + 1, max(1, len(log) // 6)):
        prefix = [r for r in log if r.seq <= as_of]
        expected = evolve_fold(effective(prefix))
        if prefix:
            expected = replace(expected, last_seq=prefix[-1].seq)
        assert replay(log, as_of) == expected


def test_a_fold_of_nothing_returns_its_start() -> None:
    start = FightState(name="x")
    assert fold([], start) is start
    assert fold([]) == FightState()


def test_a_draft_changes_in_place_and_freezes_into_a_plain_state() -> None:
    start = FightState(name="x", round=1)
    draft = draft_of(start)
    assert isinstance(draft, Draft) and draft == draft  # noqa: PLR0124
    assert replace(draft, round=2) is draft and draft.round == 2
    assert start.round == 1  # the original is a separate object
    frozen = freeze(draft, last_seq=5)
    assert type(frozen) is FightState and frozen.round == 2 and frozen.last_seq == 5
    assert replace(frozen, round=3) is not frozen and frozen.round == 2  # immutable again
    assert frozen == replace(start, round=2, last_seq=5)


def test_replace_on_a_draft_refuses_an_unknown_field() -> None:
    draft = draft_of(FightState())
    try:
        replace(draft, no_such_field=1)
    except TypeError as error:
        assert "no_such_field" in str(error)
    else:
        raise AssertionError("an unknown field was accepted")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(gm_session)
def test_a_gm_sessions_log_folds_alike_both_ways(steps: list) -> None:
    """The GM sessions of tests/test_properties.py (trait rolls, advantages, declarations, all-out, every
    fudge-point use, undo and redo, late joins), folded both ways at every point of the log."""
    session = play_session(new_session(), steps)
    log = session.fights.log(session.name)
    for cut in range(len(log) + 1):
        records = effective(log[:cut])
        start = evolve_fold(records[: len(records) // 2])
        assert fold(records) == evolve_fold(records)
        assert fold(records[len(records) // 2:], start) == evolve_fold(records)
