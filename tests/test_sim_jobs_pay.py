"""`fudge sim --jobs N` starts its workers only when the work left outweighs starting them, and says which
with `-v`; either way the results are those of one process (the fights' dice come from their index).

Run as a GM runs it: each command its own process. A fight of the `fudge` preset's fast path costs some
tens of microseconds, so 50 fights are far below what a worker costs to start and 20,000 are far above.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import ROOT

SHEETS = ROOT / "examples" / "sheets"


def sim(tmp_path: Path, n: int, jobs: int) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update({"NO_COLOR": "1", "FUDGE_KEY_FILE": str(tmp_path / "snapshot.key"),
                        "XDG_STATE_HOME": str(tmp_path / "state")})
    return subprocess.run([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(tmp_path / "f.db"), "-v",
                           "sim", str(SHEETS / "snorri.toml"), str(SHEETS / "brynhild.toml"), "--rules", "fudge",
                           "-n", str(n), "--seed", "7", "--jobs", str(jobs), "--json"],
                          capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=120)


@pytest.mark.parametrize(("n", "said"), [(50, "this process alone"), (20_000, "starts workers")])
def test_workers_start_only_where_they_pay_and_the_results_are_one_process_s(tmp_path: Path, n: int,
                                                                             said: str) -> None:
    two, one = sim(tmp_path, n, 2), sim(tmp_path, n, 1)
    assert two.returncode == 0 and one.returncode == 0, two.stderr + one.stderr
    assert said in two.stderr, two.stderr
    assert "workers" not in one.stderr  # one job: nothing to weigh
    assert json.loads(two.stdout) == json.loads(one.stdout)
