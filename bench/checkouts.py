"""Which Python measures a checkout: that checkout's own interpreter, so each side runs its own code.

The project installs as one import package, `fudge_combat`, mapped onto the repository's folders
(pyproject's package-dir; `pip install -e .`). `PYTHONPATH=<root>` therefore no longer chooses the code
a child runs: a child imports whichever `fudge_combat` its interpreter has installed. So each checkout
is measured with an interpreter whose environment has that checkout installed, by default
`<root>/.venv/bin/python`; every child checks, before it measures anything, that the `fudge_combat` it
imports is the one under the folder it was started in (`CHECK`, which a child's code starts with), and
`python_for` checks it once for the `fudge` commands run as they are.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

# The first lines of every child: it runs from its checkout's root and refuses to measure other code.
CHECK = """import os as _os, sys as _sys
import fudge_combat.engine as _engine
_root = _os.path.realpath(_os.getcwd())
_found = [_os.path.realpath(p) for p in _engine.__path__]
if any(_os.path.commonpath([_root, p]) != _root for p in _found):
    _sys.exit(f"error: {_sys.executable} imports fudge_combat from {_found[0]}, not from {_root}; "
              "give each checkout its own venv (--old-python, --new-python)")
"""


def add_options(parser: argparse.ArgumentParser) -> None:
    """`--old-python` and `--new-python`: the interpreter of each checkout."""
    for label in ("old", "new"):
        parser.add_argument(f"--{label}-python", type=Path, metavar="PATH",
                            help=f"the Python that has the {label} checkout installed "
                                 f"(default: <{label} root>/.venv/bin/python)")


def python_for(root: Path, given: Path | None = None) -> str:
    """The interpreter that runs `root`'s code; one line and exit if there is none, or if it runs other code."""
    # Absolute, but not resolved: a venv's python is a link to the base interpreter, which has not the venv.
    python = (given if given is not None else root / ".venv" / "bin" / "python").absolute()
    if not python.exists():
        sys.exit(f"error: no Python for {root} ({python} is missing); make one with "
                 f"`python3 -m venv {root}/.venv && {root}/.venv/bin/pip install -e \"{root}[test]\"`")
    done = subprocess.run([str(python), "-c", CHECK], cwd=root, env=environment(), capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or [f"{python} failed"])[-1]
        sys.exit(last if last.startswith("error: ") else f"error: {python} cannot import fudge_combat: {last}")
    return str(python)


def environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (the environment by default) without PYTHONPATH: the interpreter alone chooses the code."""
    return {key: value for key, value in (os.environ if base is None else base).items() if key != "PYTHONPATH"}



def readable_copy(path: Path, to: Path, python: str, root: Path) -> Path:
    """A copy of a store that `root`'s code reads: the same rows at the store schema it writes (a checkout
    before store schema 4 refuses a newer file: `schema3`)."""
    import shutil

    if schema_of(python, root) == "3":
        return schema3(path, to)
    shutil.copy(path, to)
    return to


def schema3(path: Path, to: Path) -> Path:
    """A copy of a store at store schema 3, as a checkout before schema 4 reads one (it refuses a newer
    schema): the same rows, without the index by type schema 4 added."""
    import shutil
    import sqlite3

    shutil.copy(path, to)
    db = sqlite3.connect(to)
    with db:
        db.execute("DROP INDEX IF EXISTS events_by_type")
        db.execute("UPDATE meta SET value = '3' WHERE key = 'store_schema'")
    db.close()
    return to


def schema_of(python: str, root: Path) -> str:
    """The store schema a checkout writes (`store.sqlite.STORE_SCHEMA`)."""
    out = subprocess.run([python, "-c", CHECK + "from fudge_combat.store.sqlite import STORE_SCHEMA\n"
                          "print(STORE_SCHEMA)"], cwd=root, env=environment(), check=True, capture_output=True,
                         text=True)
    return out.stdout.strip()
