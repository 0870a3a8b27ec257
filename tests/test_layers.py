"""The layers hold (import-linter's contracts in pyproject.toml): the shell imports the core, never the
other way round; inside the engine, the rulesets sit on the kernel and each ruleset is one room (Fudge
imports neither Atari Isev nor Fate, which never import each other); the engine, cli, sim and service have no
import cycle. `.ci/run` runs `lint-imports`
too; this test lets the README's test command catch a wrong import before CI does."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

from tests.processes import ROOT


def test_import_linter_contracts_are_kept() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command as run; run()"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"Contracts: {len(contracts)} kept, 0 broken." in done.stdout
