"""The persistent map behind FightState's per-action maps: every version stays what it was."""

from __future__ import annotations

import pickle

from hypothesis import given, strategies as st

from fudge_combat.engine.kernel.pmap import PMap


def test_older_versions_keep_their_contents_after_newer_sets() -> None:
    a = PMap()
    b = a.set(1, "one")
    c = b.set(2, "two")
    d = c.set(1, "uno")
    assert dict(a) == {} and len(a) == 0
    assert dict(b) == {1: "one"}
    assert dict(c) == {1: "one", 2: "two"}
    assert dict(d) == {1: "uno", 2: "two"}
    assert b[1] == "one" and d[1] == "uno" and 2 not in b and b.get(2) is None


def test_a_version_set_twice_branches_without_disturbing_either_branch() -> None:
    base = PMap({0: "zero"}).set(1, "one")
    left = base.set(2, "left")
    right = base.set(2, "right")
    assert left[2] == "left" and right[2] == "right" and 2 not in base
    assert sorted(left.items()) == [(0, "zero"), (1, "one"), (2, "left")]
    assert list(base.keys()) == [0, 1]


def test_equality_hashing_and_pickling() -> None:
    a = PMap().set("x", 1)
    b = PMap().set("x", 1)
    assert a == b and a == {"x": 1} and {"x": 1} == a and a != {"x": 2}
    assert pickle.loads(pickle.dumps(a)) == a
    try:
        hash(a)
    except TypeError:
        pass
    else:
        raise AssertionError("a PMap is not hashable, like a dict")


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 5), st.integers(0, 50)), max_size=60))
def test_every_version_matches_a_copied_dict(steps: list[tuple[int, int, int]]) -> None:
    """Any order of sets on any earlier version, then reading the versions in any order."""
    versions = [PMap()]
    models: list[dict[int, int]] = [{}]
    for pick, key, value in steps:
        index = pick % len(versions)
        versions.append(versions[index].set(key, value))
        models.append({**models[index], key: value})
    for index in reversed(range(len(versions))):
        assert dict(versions[index].items()) == models[index]
    for version, model in zip(versions, models):
        assert version == model and len(version) == len(model)
