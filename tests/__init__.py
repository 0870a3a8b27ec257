"""The tests run the code of this folder, and nothing else.

The project's one import package, `fudge_combat`, is whatever this interpreter finds installed: an
editable install of this folder (`pip install -e .`, the README's test command) is this folder's code,
as a fresh `pip install .` of it is (CI). Another checkout's editable install, or a copy installed
before an edit, would be tested in its place without a word, in this process and in every `fudge`
process a test starts (they run on this interpreter and import the same way): so the tests stop
first and say so.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("cli", "engine", "events", "examples", "projections", "service", "sim", "store")


def _sources(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*.py"))
            if "__pycache__" not in path.parts}


def not_this_folder() -> str | None:
    """Why the `fudge_combat` this interpreter imports is not the code of this folder, or None."""
    for layer in LAYERS:
        try:
            spec = importlib.util.find_spec(f"fudge_combat.{layer}")
        except ModuleNotFoundError:
            spec = None
        if spec is None or not spec.submodule_search_locations:
            return f"fudge_combat.{layer} is not installed"
        found = Path(spec.submodule_search_locations[0]).resolve()
        if found == ROOT / layer:
            continue  # an editable install of this folder
        theirs, ours = _sources(found), _sources(ROOT / layer)
        differ = sorted(name for name in theirs.keys() | ours.keys() if theirs.get(name) != ours.get(name))
        if differ:
            return f"fudge_combat.{layer} is imported from {found}, whose {differ[0]} differs from {layer}/'s here"
    return None


_why = not_this_folder()
if _why is not None:
    pytest.exit(f"the tests run this folder's code, but {_why}: install it with pip install -e '.[test]' "
                f"(in {ROOT})", returncode=4)
