"""`fudge sim`: Monte Carlo fights through the same commands, decide and evolve as a live fight.

The simulation's light session (records in memory, no JSON body or hash
chain) and the `Fights` service over a store play the same fight event by
event for the same seed; the same master seed gives the same results for any
split into jobs; kept fights replay and verify; the statistics are the
textbook ones.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import msgspec
import pytest
import structlog
from typer.testing import CliRunner

from fudge_combat.events.records import json_form
from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.events import structs as ev
from fudge_combat.sim.parallel import FINE_TAIL, chunks, cut, run_on, run_serial
from fudge_combat.sim.policies import POLICIES, barter_for_double_plus, worst_wounded_foe
from fudge_combat.sim.runner import (Entrant, LightSession, Opening, ServiceSession, Setup, check_setup, derived_bytes,
                        derived_ids, fight_seed, play, simulate_range)
from fudge_combat.sim.stats import samples, summarize, wilson
from fudge_combat.sim.runner import FightResult
from fudge_combat.service.fights import Fights
from fudge_combat.store.memory import MemoryStore
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, start

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"
DUELS = {"fudge": ("snorri", "brynhild"), "fudge-phases": ("leroy", "brynhild"), "atari-isev": ("max", "cutthroat")}


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def entrant(name: str, side: str | None = None) -> Entrant:
    sheet = parse_sheet((SHEETS / f"{name}.toml").read_text(), f"{name}.toml")
    return Entrant(json_form(sheet), f"{name}.toml", side)


def setup_for(preset: str, policy: str = "plain", *names: str, max_rounds: int = 50) -> Setup:
    label, options = resolve(preset)
    people = names or DUELS[preset]
    return Setup(label, json_form(options), tuple(entrant(n) for n in people), policy, max_rounds)


def events_of(records: list) -> list[dict]:
    return [msgspec.to_builtins(r.event) for r in records]


@pytest.mark.parametrize("preset", sorted(DUELS))
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_light_session_plays_the_same_fight_as_the_service(preset: str, policy: str) -> None:
    """The simulation path and `Fights` over a store: same seed, same events, same end."""
    setup = setup_for(preset, policy)
    opening = Opening.of(setup)
    for index in range(3):
        seed = fight_seed(11, index)
        light = LightSession(seed, opening)
        play(light, setup)
        service = Fights(MemoryStore(), clock=lambda: "t", new_id=derived_ids(seed), random_bytes=derived_bytes(seed))
        full = ServiceSession(service, "sim")
        play(full, setup)
        stored = service.log("sim")
        assert events_of(light.records) == events_of(stored)
        assert light.state.round == full.state.round
        assert {k: c.track.level for k, c in light.state.combatants.items()} == \
               {k: c.track.level for k, c in full.state.combatants.items()}
        assert [r.fight for r in light.records] == [r.fight for r in stored]


@pytest.mark.parametrize("preset", sorted(DUELS))
def test_every_preset_plays_fights_to_an_end(preset: str) -> None:
    """Each fight ends with one side standing, everyone out, or the round cap (a draw)."""
    setup = setup_for(preset, "sensible")
    results = simulate_range(setup, 3, 0, 30)
    assert [r.index for r in results] == list(range(30))
    for r in results:
        assert 1 <= r.rounds <= setup.max_rounds
        able = [level not in ("Incapacitated", "Near Death", "Dead") for level in r.levels]  # F-WND-1
        if r.winner is not None:
            assert able[r.winner] and not able[1 - r.winner]
        else:
            assert r.rounds == setup.max_rounds or not any(able)
    assert {r.winner for r in results} - {None}, "somebody wins some fights"


def test_the_round_cap_makes_a_draw() -> None:
    setup = setup_for("fudge", "plain", max_rounds=1)
    results = simulate_range(setup, 5, 0, 40)
    assert all(r.rounds == 1 for r in results)
    assert any(r.winner is None for r in results)


def test_same_seed_same_results_whatever_the_jobs() -> None:
    """The master seed and each fight's index fix its dice: serial, ranges of any size, two worker
    processes, and one worker beside this process give the same results in the same order; another seed
    gives others."""
    setup = setup_for("fudge", "sensible")
    serial = run_serial(setup, 42, 24)
    with ProcessPoolExecutor(max_workers=2) as pool:
        two = run_on(pool, setup, 42, 24, jobs=2)
    with ProcessPoolExecutor(max_workers=1) as pool:
        shared = run_on(pool, setup, 42, 24, jobs=2, share=True)
    ranges = [r for start, stop in chunks(24, 1, size=5) for r in simulate_range(setup, 42, start, stop)]
    assert serial == two == shared == ranges
    assert run_serial(setup, 43, 24) != serial


def test_chunks_cover_every_index_once() -> None:
    """Guided ranges: every index once, in order, no range larger than the one before it nor than 2,000
    fights, the first ones large and the last ones small, so the jobs finish nearly together."""
    for n, jobs in ((1, 1), (7, 3), (100, 2), (20000, 2), (100001, 4)):
        parts = chunks(n, jobs)
        assert [i for a, b in parts for i in range(a, b)] == list(range(n))
        sizes = [b - a for a, b in parts]
        assert all(later <= earlier for earlier, later in zip(sizes, sizes[1:-1]))  # the last: what is left
        assert max(sizes) <= 2000
    sizes = [b - a for a, b in chunks(20000, 2)]
    assert sizes[0] == 2000 and max(sizes[-4:]) <= 20000 // 128 and len(sizes) <= 40


def test_this_process_plays_ranges_beside_the_workers() -> None:
    """With `share`, this process is one of the jobs: a worker gets the first three ranges, this process plays
    the next one left while the worker plays, and so on; every range is played once, by one of them, and
    the results are those of one process."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    setup = setup_for("fudge")
    serial = run_serial(setup, 9, 300)
    played: list[tuple[int, int, int]] = []
    real = simulate_range

    def counted(setup: Setup, master: int, start: int, stop: int, opening: Any = None) -> list[FightResult]:
        played.append((start, stop, threading.get_ident()))
        return real(setup, master, start, stop, opening)

    with ThreadPoolExecutor(max_workers=1) as worker, pytest.MonkeyPatch.context() as patch:
        patch.setattr("fudge_combat.sim.parallel.simulate_range", counted)
        assert run_on(worker, setup, 9, 300, jobs=2, share=True) == serial
    first = list(cut(300, 2, tail=FINE_TAIL))  # a local run's ranges: its tail cut finer
    assert sorted((start, stop) for start, stop, _ in played) == first  # each once
    here = {(start, stop) for start, stop, thread in played if thread == threading.get_ident()}
    assert here and not here & set(first[:3]) and first[3] in here  # the worker got 0, 1 and 2 (three ahead)


def _parent_mark() -> object:
    from fudge_combat.sim import parallel

    return getattr(parallel, "_mark", None)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers are Linux's")
def test_local_workers_start_as_copies_of_this_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`--jobs` workers are forked: they start with this process's modules and state (here, a module patched
    in this process alone) instead of importing the engine again, whatever Python's default start method;
    and their fights are the serial run's, whatever numbers of workers play them."""
    import multiprocessing

    from fudge_combat.sim import parallel
    from fudge_combat.sim.parallel import executor_for, simulate

    setup = setup_for("fudge")
    serial = run_serial(setup, 11, 600)
    real = parallel.simulate_range
    seen = tmp_path / "pids"

    def marked(setup: Setup, master: int, start: int, stop: int, opening: Any = None) -> list[FightResult]:
        with seen.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return real(setup, master, start, stop, opening)

    monkeypatch.setattr(parallel, "simulate_range", marked)
    default = multiprocessing.get_start_method()
    multiprocessing.set_start_method("spawn", force=True)  # as if Python's default were not fork
    try:
        with executor_for("process", 3, None) as pool:
            assert pool is not None and pool.slots == 3 and pool.share
            assert simulate(setup, 11, 600, pool) == serial
    finally:
        multiprocessing.set_start_method(default, force=True)
    pids = set(seen.read_text().split())
    assert str(os.getpid()) in pids and len(pids) >= 2  # this process and a worker running the patched code


def test_wilson_interval_textbook_values() -> None:
    """Wilson score intervals (95%): 0 of 10 is 0 .. 0.2775; 5 of 10 is 0.2366 .. 0.7634."""
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    low, high = wilson(81, 263)
    assert (low, high) == (pytest.approx(0.2553, abs=1e-3), pytest.approx(0.3662, abs=1e-3))


def test_summary_counts_and_samples() -> None:
    names = ("Undamaged", "Scratch", "Hurt", "Very Hurt", "Incapacitated", "Near Death", "Dead")
    results = [FightResult(i, w, n, (names[a], names[b])) for i, w, n, a, b in
               ((0, 0, 3, 0, 4), (1, 1, 5, 4, 1), (2, None, 9, 2, 2), (3, 0, 1, 1, 6), (4, 0, 4, 0, 4))]
    summary = summarize(results, ["a", "b"], ["A", "B"])
    assert [w.count for w in summary.wins] == [3, 1] and summary.draws.count == 1
    assert summary.mean_rounds == pytest.approx(22 / 5) and summary.median_rounds == 4
    assert summary.rounds == {1: 1, 3: 1, 4: 1, 5: 1, 9: 1}
    assert summary.final_levels[1] == {"Scratch": 1, "Hurt": 1, "Incapacitated": 2, "Dead": 1}
    assert list(summary.final_levels[1]) == ["Scratch", "Hurt", "Incapacitated", "Dead"]
    # the closest to the median (4 rounds: fight 4), the longest (2), the shortest (3), then next to the median
    assert samples(results, 4) == [4, 2, 3, 0]
    assert samples(results, 99) == [4, 2, 3, 0, 1]


def test_plain_target_is_the_worst_wounded_foe() -> None:
    fights = make_fights()
    start(fights)
    from tests.conftest import sheet
    for who, side in (("Ann", "a"), ("Bob", "b"), ("Cy", "b")):
        fights.execute("fight", cmd.Join(sheet=sheet(who, skills={"Sword": "Fair"}, attack="Sword"), source="t",
                                         side=side))
    state = fights.execute("fight", cmd.Exchange(first="Ann", second="Cy"),
                           dice("ann=+ + + +", "cy=- - - -")).state
    assert state.find("Cy").track.level > 0
    ann = state.find("Ann")
    assert worst_wounded_foe(state, ann, [state.find("Bob"), state.find("Cy")]).name == "Cy"
    assert worst_wounded_foe(state, ann, [state.find("Bob")]).name == "Bob"
    assert worst_wounded_foe(state, ann, []) is None


def test_sensible_barters_two_plus_dice_for_a_double_plus() -> None:
    """CT-BARTER-1: with `+ + 0 -` the sensible policy trades the first `+` to raise the second to `++`;
    with one `+` it keeps its dice."""
    fights = make_fights()
    start(fights, rules="fudge-phases")
    for name in ("leroy", "brynhild"):
        e = entrant(name)
        fights.execute("fight", cmd.Join(sheet=e.sheet, source=e.source))
    state = fights.execute("fight", cmd.StartRound(), dice("leroy=+ + 0 -", "brynhild=+ 0 0 - 0")).state
    (barter,) = barter_for_double_plus(state, state.find("Leroy"))
    assert (barter.trade, barter.alter, barter.direction) == (0, 1, 1)
    assert barter_for_double_plus(state, state.find("Brynhild")) == ()
    after = fights.execute("fight", barter).state
    assert after.initiative["leroy"].phases(after.options)[0] == 2


def test_sensible_spends_points_to_stay_in_the_fight_plain_never() -> None:
    """C-FP-2, F-DEATH-3: the sensible policy spends Only a Scratch or Still Ticking on a blow that takes
    its fighter out; the plain one spends nothing."""
    spent = {}
    for policy in ("plain", "sensible"):
        setup = setup_for("fudge", policy)
        uses = []
        for index in range(20):
            session = LightSession(fight_seed(9, index))
            play(session, setup)
            uses += [r.event.use for r in session.records if isinstance(r.event, ev.FudgePointSpent)]
        spent[policy] = uses
    assert spent["plain"] == []
    assert spent["sensible"] and set(spent["sensible"]) <= {"scratch", "ticking"}


@pytest.mark.parametrize("preset, expected", [("fudge", ev.Declaration(all_out="defense")),
                                               ("fudge-phases", ev.Declaration(all_out="defense")),
                                               ("atari-isev", ev.Declaration(posture=-2))])
def test_sensible_defends_when_badly_hurt_beside_a_friend(preset: str, expected: ev.Declaration) -> None:
    """F-MOD-7, F-TAC-1: a Very Hurt fighter whose friend still fights declares all-out defense (or the most
    defensive posture); alone, he fights on."""
    a, b = DUELS[preset]
    label, options = resolve(preset)
    trio = Setup(label, json_form(options),
                 (entrant(a, "x"), Entrant(entrant(a).sheet, f"{a}.toml", "x", "Second"), entrant(b, "y")), "sensible")
    duel = setup_for(preset, "sensible")
    declared: dict[str, list] = {"trio": [], "duel": []}
    for label_, setup in (("trio", trio), ("duel", duel)):
        for index in range(40):
            session = LightSession(fight_seed(2, index))
            play(session, setup)
            declared[label_] += [r.event for r in session.records if isinstance(r.event, ev.Declared)]
    assert declared["trio"] and all(d.declaration == expected for d in declared["trio"])
    assert declared["duel"] == []


def test_bad_setups_are_refused() -> None:
    setup = setup_for("fudge")
    with pytest.raises(Exception, match="unknown policy"):
        check_setup(Setup(setup.rules, setup.options, setup.entrants, "berserk"))
    with pytest.raises(Exception, match="rolls its dice"):
        check_setup(Setup(setup.rules, {**setup.options, "dice": "entered"}, setup.entrants))
    with pytest.raises(Exception, match="story"):
        check_setup(Setup(setup.rules, {**setup.options, "pace": "story"}, setup.entrants))


# --- the command line -------------------------------------------------------------------------

def fudge(tmp_path: Path, *args: str) -> object:
    return CliRunner().invoke(app, ["--store", str(tmp_path / "fudge.db"), *args], env={"FUDGE_STORE": None})


def sheets(*names: str) -> list[str]:
    return [str(SHEETS / f"{n}.toml") for n in names]


@pytest.mark.parametrize("preset", sorted(DUELS))
def test_cli_json_and_kept_fights_replay_and_verify(tmp_path: Path, preset: str) -> None:
    """`--keep 2` stores the median-like and the longest fight with their seeds revealed: `fudge verify`
    re-derives every die and re-runs every command; replay shows the same end as the simulation."""
    result = fudge(tmp_path, "sim", *sheets(*DUELS[preset]), "--rules", preset, "-n", "30", "--seed", "5",
                   "--keep", "2", "--policy", "sensible", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["fights"] == 30 and data["seed"] == 5
    assert sum(s["count"] for s in data["sides"].values()) + data["draws"]["count"] == 30
    assert sum(data["rounds"]["distribution"].values()) == 30
    assert len(data["kept"]) == 2
    store = SqliteStore(tmp_path / "fudge.db")
    fights = Fights(store)
    for kept in data["kept"]:
        report = verify(store.read(kept["fight"]))
        assert report.ok, report.problems
        assert report.rolls_checked > 0 and report.rolls_unchecked == 0
        state = fights.state(kept["fight"])
        assert state.round == kept["rounds"]
        check = fudge(tmp_path, "verify", kept["fight"])
        assert check.exit_code == 0, check.output
    again = fudge(tmp_path, "sim", *sheets(*DUELS[preset]), "--rules", preset, "-n", "30", "--seed", "5",
                  "--policy", "sensible", "--json", "--jobs", "2")
    assert {k: v for k, v in json.loads(again.stdout).items() if k != "kept"} == \
           {k: v for k, v in data.items() if k != "kept"}


def test_cli_text_report(tmp_path: Path) -> None:
    result = fudge(tmp_path, "sim", *sheets("snorri", "brynhild"), "-n", "20", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "20 fights under fudge, policy plain, seed 1" in result.stdout
    assert "95% CI" in result.stdout and "final wounds:" in result.stdout
    assert not (tmp_path / "fudge.db").exists()  # nothing kept: the store is not touched


def test_jobs_zero_is_one_per_core_with_the_same_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--jobs 0` runs a process per core (two here: this one and a worker) and, as any --jobs, gives the
    one-process results."""
    from fudge_combat.sim import parallel

    workers: list[int | None] = []
    real = parallel.run_forked

    def counted(count: int, *args: Any, **kwargs: Any) -> Any:
        workers.append(count)
        return real(count, *args, **kwargs)

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setattr("fudge_combat.sim.parallel.run_forked", counted)
    monkeypatch.setattr("fudge_combat.sim.batch.WORKERS_PAY_FROM", 0.0)  # 40 fights: workers even so
    args = [*sheets("snorri", "brynhild"), "-n", "40", "--seed", "3", "--json"]
    every = fudge(tmp_path, "sim", *args, "--jobs", "0")
    one = fudge(tmp_path, "sim", *args, "--jobs", "1")
    assert every.exit_code == 0 and one.exit_code == 0, every.output + one.output
    assert workers == [1]  # this process plays too: two processes
    assert json.loads(every.stdout) == json.loads(one.stdout)


@pytest.mark.parametrize("args, message", [
    (["--policy", "berserk"], "unknown policy"),
    (["--side", "x", "--side", "x"], "one side"),
    (["-n", "0"], "-n must be"),
    (["--jobs", "-1"], "0 for one per core"),
    (["--executor", "dask"], "scheduler"),
    (["--scheduler", "tcp://x:1"], "--scheduler is for"),
    (["--side", "a", "--side", "b", "--side", "c"], "at most one per sheet"),
])
def test_cli_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = fudge(tmp_path, "sim", *sheets("snorri", "brynhild"), "-n", "5", *args)
    if "dask" in args:
        pytest.importorskip("distributed")
    assert result.exit_code != 0
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_dask_cluster_gives_the_same_results(tmp_path: Path) -> None:
    """`--executor dask --scheduler ADDRESS` runs the ranges on a Dask cluster: same results as one job."""
    distributed = pytest.importorskip("distributed")
    args = ["sim", *sheets("snorri", "brynhild"), "-n", "40", "--seed", "8", "--json"]
    local = json.loads(fudge(tmp_path, *args).stdout)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        result = fudge(tmp_path, *args, "--executor", "dask", "--scheduler", cluster.scheduler_address,
                       "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == local


def test_structured_phase_declaration_declares_then_resolves() -> None:
    """PH-4 `structured`: the driver declares each attack at the declaring step and makes it at the
    resolving step, so fights still end."""
    label, options = resolve("fudge-phases", 'extends = "fudge-phases"\nphase_declaration = "structured"\n')
    setup = Setup(label, json_form(options), (entrant("leroy"), entrant("brynhild")), "plain")
    session = LightSession(fight_seed(4, 0))
    play(session, setup)
    kinds = [type(r.event).__name__ for r in session.records]
    assert "IntentDeclared" in kinds and "ExchangeResolved" in kinds
    results = simulate_range(setup, 4, 0, 10)
    assert sum(r.winner is not None for r in results) >= 8


def test_progress_counts_every_fight() -> None:
    setup = setup_for("fudge")
    done = []
    run_serial(setup, 1, 7, done.append)
    assert sum(done) == 7


@pytest.mark.parametrize("preset", sorted(DUELS))
def test_two_against_one_plays_the_same_through_the_service(preset: str) -> None:
    """Sides from `--side`: two against one, every preset, light session and service agree."""
    a, b = DUELS[preset]
    label, options = resolve(preset)
    setup = Setup(label, json_form(options),
                  (entrant(a, "x"), Entrant(entrant(a).sheet, f"{a}.toml", "x", "Second"), entrant(b, "y")),
                  "sensible")
    for index in range(2):
        seed = fight_seed(21, index)
        light = LightSession(seed)
        play(light, setup)
        service = Fights(MemoryStore(), clock=lambda: "t", new_id=derived_ids(seed), random_bytes=derived_bytes(seed))
        play(ServiceSession(service, "sim"), setup)
        assert events_of(light.records) == events_of(service.log("sim"))
    results = simulate_range(setup, 21, 0, 10)
    assert all(len(r.levels) == 3 for r in results)
    assert any(r.winner == 0 for r in results)


def test_the_command_line_knows_every_policy() -> None:
    from fudge_combat.sim import POLICY_NAMES
    assert set(POLICY_NAMES) == set(POLICIES)


# --- properties ------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.conftest import sheet  # noqa: E402

LEVEL_NAMES = ("Poor", "Mediocre", "Fair", "Good", "Great")


@st.composite
def fighters(draw: st.DrawFn) -> Entrant:
    name = draw(st.sampled_from(("Ann", "Bob", "Cid", "Dee")))
    data = sheet(name, fudge_points=draw(st.integers(0, 3)),
                 attributes={"Agility": draw(st.sampled_from(LEVEL_NAMES)),
                             "Health": draw(st.sampled_from(LEVEL_NAMES)),
                             "Strength": draw(st.sampled_from(LEVEL_NAMES))},
                 skills={"Sword": draw(st.sampled_from(LEVEL_NAMES))}, attack="Sword",
                 weapon=draw(st.integers(0, 3)), armor=draw(st.integers(0, 2)))
    return Entrant(data, f"{name}.toml")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(DUELS)), st.sampled_from(sorted(POLICIES)), st.lists(fighters(), min_size=2, max_size=3),
       st.integers(0, 2**32))
def test_any_sheets_any_preset_same_fight_as_the_service(preset: str, policy: str, people: list[Entrant],
                                                         master: int) -> None:
    """Whatever the sheets: the simulation's path plays the service's fight event for event, from the shared
    opening too, and the fight ends with one side standing, everyone out, or the round cap."""
    label, options = resolve(preset)
    entrants = tuple(Entrant(p.sheet, p.source, "one" if i == 0 else "two", f"F{i}") for i, p in enumerate(people))
    setup = Setup(label, json_form(options), entrants, policy, max_rounds=8)
    seed = fight_seed(master, 0)
    light = LightSession(seed, Opening.of(setup))
    play(light, setup)
    service = Fights(MemoryStore(), clock=lambda: "t", new_id=derived_ids(seed), random_bytes=derived_bytes(seed))
    full = ServiceSession(service, "sim")
    play(full, setup)
    assert events_of(light.records) == events_of(service.log("sim"))
    result = simulate_range(setup, master, 0, 1)[0]
    assert result.rounds <= 8
    assert result.winner is not None or result.rounds == 8 or all(
        level in ("Incapacitated", "Near Death", "Dead") for level in result.levels)


def test_progress_bar_only_on_a_terminal() -> None:
    from fudge_combat.cli.sim import progress_bar
    with progress_bar(10, False) as advance:
        assert advance is None
    with progress_bar(10, True) as advance:
        assert advance is not None
        advance(4)
        advance(6)


@pytest.mark.parametrize("preset, expected", [("fudge", ev.Declaration(all_out="offense")),
                                               ("fudge-phases", ev.Declaration(all_out="offense")),
                                               ("atari-isev", ev.Declaration(posture=2))])
def test_reckless_declares_all_out_offense_for_every_blow(preset: str, expected: ev.Declaration) -> None:
    """F-MOD-6, F-TAC-1: the reckless policy declares all-out offense (or posture +2) and the blows carry it."""
    session = LightSession(fight_seed(1, 0))
    play(session, setup_for(preset, "reckless"))
    declared = [r.event.declaration for r in session.records if isinstance(r.event, ev.Declared)]
    blows = [r.event for r in session.records if isinstance(r.event, ev.ExchangeResolved)]
    assert declared and all(d == expected for d in declared)
    assert blows and all(b.sides[0].declaration == expected for b in blows)


def test_a_policy_per_sheet(tmp_path: Path) -> None:
    """`--policy` once for everyone, or once per sheet in order: here only Snorri fights all-out (F-MOD-6)."""
    label, options = resolve("fudge")
    setup = Setup(label, json_form(options),
                  (Entrant(entrant("snorri").sheet, "snorri.toml", policy="reckless"), entrant("brynhild")), "plain")
    session = LightSession(fight_seed(1, 0))
    play(session, setup)
    declared = {r.event.combatant for r in session.records if isinstance(r.event, ev.Declared)}
    assert declared == {"Snorri"}
    result = fudge(tmp_path, "sim", *sheets("snorri", "brynhild"), "-n", "10", "--seed", "1", "--json",
                   "--policy", "reckless", "--policy", "plain")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["policy"] == ["reckless", "plain"]
    wrong = fudge(tmp_path, "sim", *sheets("snorri", "brynhild"), "-n", "10", "--policy", "plain",
                  "--policy", "plain", "--policy", "plain")
    assert wrong.exit_code != 0 and "one per sheet" in wrong.stderr
    unknown = fudge(tmp_path, "sim", *sheets("snorri", "brynhild"), "-n", "10", "--policy", "plain",
                    "--policy", "berserk")
    assert unknown.exit_code != 0 and "unknown policy 'berserk'" in unknown.stderr


def test_a_thread_decides_a_setups_opening_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker runs many ranges of one run: the opening (start and joins, decided and folded) is made
    once per thread and setup, not once per range; another setup gets its own."""
    from fudge_combat.sim import runner

    made = []
    real = Opening.of.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(runner.Opening, "of", classmethod(lambda cls, setup: made.append(setup) or real(cls, setup)))
    monkeypatch.setattr(runner, "_openings", runner.threading.local())
    setup = setup_for("fudge-phases")
    first = simulate_range(setup, 3, 0, 2)
    assert simulate_range(setup_for("fudge-phases"), 3, 2, 4) and len(made) == 1
    assert simulate_range(setup, 3, 0, 2) == first
    simulate_range(setup_for("atari-isev"), 3, 0, 1)
    assert len(made) == 2


def test_dask_ranges_follow_the_clusters_threads() -> None:
    """With Dask the run is cut by the cluster's threads, not by --jobs: a local cluster of two worker
    processes of one thread each gets the ranges of two slots whether --jobs says 1 or 5, and the same
    results as one process."""
    distributed = pytest.importorskip("distributed")
    from fudge_combat.sim.parallel import executor_for, ranges, simulate

    setup = setup_for("fudge")
    serial = run_serial(setup, 6, 3000)
    assert len({len(ranges(3000, slots)) for slots in (1, 2, 5)}) == 3  # the count says which cut it was
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        for jobs in (1, 5):
            with executor_for("dask", jobs, cluster.scheduler_address) as pool:
                assert pool is not None and pool.slots == 2 and not pool.share
                sent: list[Any] = []
                submit = pool.executor.submit
                pool.executor.submit = lambda fn, *args: sent.append(args) or submit(fn, *args)  # type: ignore[method-assign]
                assert simulate(setup, 6, 3000, pool) == serial
                assert [(start, stop) for _, _, start, stop in sent] == ranges(3000, 2)


@pytest.mark.parametrize("n, jobs", [(1, 1), (9, 1), (9, 2)])
def test_the_first_fight_is_played_once(n: int, jobs: int) -> None:
    """`run_batch` plays fight 0 itself (to refuse a setup it cannot play before any work) and the pool the
    rest: every fight once, in index order, each counted once by the progress report."""
    from fudge_combat.sim.batch import run_batch
    from fudge_combat.sim.parallel import ranges
    from fudge_combat.sim.rulesets import view_of

    setup = setup_for("fudge-phases")
    done: list[int] = []
    batch = run_batch(setup, 12, n, jobs=jobs, progress=done.append)
    serial = run_serial(setup, 12, n)
    opening = Opening.of(setup).state
    names = [c.name for c in sorted(opening.combatants.values(), key=lambda c: c.joined_seq)]
    assert batch.summary == summarize(serial, ["Leroy", "Brynhild"], names, view_of(opening).levels)
    assert sum(done) == n
    assert [i for a, b in ranges(n, jobs, first=1) for i in range(a, b)] == list(range(1, n))
