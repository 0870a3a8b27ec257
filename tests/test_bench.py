"""Every benchmark in bench/ runs at HEAD, each at its smallest size.

A benchmark that no longer runs is found here, not the day someone needs its figure: a script that reads
an internal that moved, waits for words the board no longer prints, or sets a club's server up as an
older schema wanted. The figures themselves are not checked (these machines are shared and noisy);
what is checked is that each script runs to its end and prints its figures.

The scripts that compare two checkouts are given this one twice (`--old .`), which runs both halves.
The peer (`bench/peer_eventsourcing.py`) needs the `eventsourcing` library in an environment of its own;
it is made once for the session, and the peer's cases skip, saying so, where it cannot be installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"

# script -> its smallest run (arguments), and whether it needs the peer's environment (`--peer-python`)
RUNS: dict[str, tuple[list[str], bool]] = {
    "batch.py": (["--smallest"], False),
    "club.py": (["--gms", "2", "--commands", "4"], False),
    "colour.py": (["--runs", "1"], False),
    "growth.py": (["--old", ".", "--sizes", "100", "--runs", "1", "--steps", "2", "--latency-runs", "1"], False),
    "keystrokes.py": ([], False),
    "log.py": (["--events", "100", "--runs", "1"], False),
    "odds.py": (["--runs", "1"], False),
    "odds_now.py": (["--runs", "1"], False),
    "oneshot.py": (["--old", ".", "--events", "100", "--runs", "1"], False),
    "play.py": (["--events", "100", "--runs", "1"], False),
    "players.py": (["--runs", "1", "--seals", "1", "--idle", "0"], False),
    "rebuild.py": (["--old", ".", "--events", "100", "--rounds", "1", "--replays", "1"], True),
    "replay.py": (["--events", "100", "--status-events", "100", "--runs", "1", "--replays", "1",
                   "--durable-events", "10"], True),
    "resident.py": (["-n", "200", "--presets", "fudge", "--repeat", "1"], False),
    "roster.py": (["--sizes", "2", "8", "--events", "40", "--runs", "1"], False),
    "scaleout.py": (["-n", "200", "--presets", "fudge", "--repeat", "1", "--no-dask"], False),
    "serve.py": (["--events", "100", "--runs", "2"], False),
    "side_by_side.py": (["--old", ".", "--events", "100", "--status-events", "100", "--rounds", "1",
                         "--replays", "1", "--runs", "1", "--duels", "50"], False),
    "sim.py": (["--duels", "50", "--engine-duels", "5", "--repeat", "1"], False),
    "snapshot.py": (["--old", ".", "--sizes", "100", "--runs", "1", "--repeats", "1"], False),
    "startup.py": (["--old", ".", "--runs", "1"], False),
}
# files of bench/ that are not benchmarks of their own: a module the scripts share, and the peer's child
# (run by replay.py and rebuild.py above, with the peer's environment)
HELPERS = {"checkouts.py", "peer_eventsourcing.py"}


def test_every_bench_script_has_its_smallest_run_here() -> None:
    scripts = {path.name for path in BENCH.glob("*.py")}
    assert scripts - HELPERS == set(RUNS), "a benchmark without its smallest run in RUNS (or one that is gone)"


@pytest.fixture(scope="session")
def peer_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter with the peer library, made once (as bench/replay.py makes `.venv-peer`). The venv gets no
    pip of its own (installing one is most of the venv's cost): this environment's pip installs into it."""
    folder = tmp_path_factory.mktemp("peer") / "venv"
    venv.create(folder, with_pip=False)
    python = folder / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                           "eventsourcing>=9.5,<9.6"], capture_output=True, text=True, timeout=300)
    if done.returncode:
        pytest.skip(f"the peer library could not be installed: {done.stderr.strip().splitlines()[-1:]}")
    return str(python)


# the scripts that need the peer run on one pytest-xdist worker, which makes the peer's environment once
@pytest.mark.parametrize("script", [pytest.param(script, marks=pytest.mark.xdist_group("bench-peer"))
                                    if RUNS[script][1] else script for script in sorted(RUNS)])
def test_the_benchmark_runs_at_its_smallest_size(script: str, request: pytest.FixtureRequest,
                                                 tmp_path: Path) -> None:
    args, needs_peer = RUNS[script]
    if needs_peer:
        args = [*args, "--peer-python", request.getfixturevalue("peer_python")]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update({"NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path)})
    if script in {"growth.py", "oneshot.py", "rebuild.py", "side_by_side.py", "snapshot.py", "startup.py"}:
        # this checkout on both sides, each with the interpreter running the tests (its installed code)
        args = [*args, "--old-python", sys.executable, "--new-python", sys.executable]
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True,
                          cwd=ROOT, env=environment, timeout=600)
    assert done.returncode == 0, f"bench/{script} exited {done.returncode}:\n{done.stderr[-2000:]}"
    assert any(any(c.isdigit() for c in line) for line in done.stdout.splitlines()), \
        f"bench/{script} printed no figure:\n{done.stdout[-1000:]}"
