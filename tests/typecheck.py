"""The type check of CI: mypy over the installed layout, `fudge_combat.<layer>`, from this folder's files.

The repository keeps the layers as top-level folders (engine/, cli/, ...) and the build maps each to
`fudge_combat.<layer>` (pyproject.toml); mypy reads files, not the editable install's import hook, so
it is given a folder holding `fudge_combat/` whose subfolders link to the layers, made afresh in a
temporary folder. The settings are pyproject.toml's [tool.mypy].

    python tests/typecheck.py [MYPY OPTIONS]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("cli", "engine", "events", "examples", "projections", "service", "sim", "store")


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="fudge-types-") as folder:
        package = Path(folder) / "fudge_combat"
        package.mkdir()
        for layer in LAYERS:
            (package / layer).symlink_to(ROOT / layer, target_is_directory=True)
        packages = [part for layer in LAYERS for part in ("-p", f"fudge_combat.{layer}")]
        environment = {**os.environ, "MYPYPATH": folder}
        return subprocess.call([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                                *packages, *argv], cwd=ROOT, env=environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
