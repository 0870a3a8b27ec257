"""One import name: the installed distribution exposes one top-level package, `fudge_combat`.

The repository keeps its layers as top-level folders (engine/, events/, cli/, ...); pyproject.toml maps
each to a subpackage of `fudge_combat`, so installing fudge next to a distribution that ships its own
`events` or `cli` leaves both working, and uninstalling fudge removes only fudge's files. The wheel test
builds the wheel and shows it in a fresh environment, as a user would meet it.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from tests import LAYERS
from tests.processes import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SKIPPED = {"__pycache__", ".git", "build", "dist", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache"}


def layer_files() -> list[str]:
    """Every file of the layers' folders as the wheel must hold it: `fudge_combat/engine/kernel/dice.py`, ..."""
    return sorted(f"fudge_combat/{path.relative_to(ROOT).as_posix()}" for layer in LAYERS
                  for path in (ROOT / layer).rglob("*")
                  if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc")


def test_every_package_folder_is_listed() -> None:
    """A folder of code under a layer is a package of the distribution (pyproject's list, mapped to it)."""
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    mapped = PYPROJECT["tool"]["setuptools"]["package-dir"]
    assert mapped == {f"fudge_combat.{layer}": layer for layer in LAYERS}
    folders = {"fudge_combat." + path.parent.relative_to(ROOT).as_posix().replace("/", ".")
               for layer in LAYERS for path in (ROOT / layer).rglob("*")
               if path.is_file() and "__pycache__" not in path.parts}
    assert folders == listed, f"unlisted: {sorted(folders - listed)}; listed, no folder: {sorted(listed - folders)}"
    assert PYPROJECT["project"]["scripts"] == {"fudge": "fudge_combat.cli.main:app"}


def test_no_code_imports_the_old_names() -> None:
    """Every import of the project's code goes through `fudge_combat` (a bare `engine` or `events` is
    another distribution's, or nothing, once installed)."""
    found = []
    folders = [folder for folder in sorted(ROOT.iterdir()) if folder.is_dir() and not folder.name.startswith(".")
               and folder.name not in SKIPPED and not (folder / "pyvenv.cfg").exists()]
    for path in (path for folder in folders for path in sorted(folder.rglob("*.py"))):
        if SKIPPED & set(path.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {name}" for name in names
                      if name.split(".")[0] in LAYERS]
    assert not found, "\n".join(found)


def test_install_hints_name_an_extra_of_this_project() -> None:
    """An error that asks for an extra says how to install it: fudge is not published, so from its source
    folder (`pip install '.[serve]'`), and the extra must exist."""
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    hints = [(path.relative_to(ROOT), hint) for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py"))
             for hint in re.findall(r"pip install '([^']*)'", path.read_text(encoding="utf-8"))]
    assert hints
    for path, hint in hints:
        assert re.fullmatch(r"\.\[(\w+)\]", hint) and hint[2:-1] in extras, (path, hint)


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def peer_wheel(folder: Path, name: str, files: dict[str, str]) -> Path:
    """A wheel of another distribution `name` 1.0 that installs `files` (path: text) at the top level."""
    info = f"{name}-1.0.dist-info"
    contents = {path: text.encode() for path, text in files.items()}
    contents[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode()
    contents[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [record_line(path, data) for path, data in contents.items()] + [f"{info}/RECORD,,"]
    wheel = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as out:
        for path, data in contents.items():
            out.writestr(path, data)
        out.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel


def source_copy(target: Path) -> Path:
    """The repository as a build reads it, without the virtual environments, caches and earlier builds
    (setuptools' build/ folder may hold a module since deleted)."""

    def skipped(folder: str, names: list[str]) -> set[str]:
        return {name for name in names if name in SKIPPED or name.endswith(".egg-info")
                or (Path(folder, name) / "pyvenv.cfg").exists()}

    return Path(shutil.copytree(ROOT, target, ignore=skipped))


PEER_CHECK = """
import json, importlib.metadata, importlib.util
from events import Events
from events.models import KIND
from cli import hello
installed = importlib.util.find_spec("fudge_combat") is not None and importlib.util.find_spec("fudge_combat.cli") is not None
files = [str(f) for f in importlib.metadata.files("fudge-combat")] if installed else []
print(json.dumps({"events": Events.origin, "models": KIND, "cli": hello(), "fudge_combat": installed,
                  "top": sorted({f.split("/")[0] for f in files if not f.startswith(("..", "fudge_combat-"))})}))
"""


def test_the_wheel_installs_one_import_name_beside_other_packages(tmp_path: Path) -> None:
    """pip installs another distribution's `events` and `cli`, then fudge's wheel: both keep working;
    uninstalling fudge leaves the others whole."""
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            str(source_copy(tmp_path / "source")), "-w", str(dist)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = dist.glob("fudge_combat-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = [name for name in archive.namelist() if not name.startswith("fudge_combat-")]
    assert sorted(shipped) == layer_files()  # every file of every layer, under fudge_combat/ alone

    peers = [peer_wheel(dist, "peer_events", {"events/__init__.py": "class Events:\n    origin = 'peer'\n",
                                              "events/models.py": "KIND = 'peer models'\n"}),
             peer_wheel(dist, "peer_cli", {"cli/__init__.py": "def hello():\n    return 'peer cli'\n"})]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python, fudge = venv / "bin" / "python", venv / "bin" / "fudge"
    # fudge's dependencies at the versions this environment has: pip finds them in its cache
    pins = tmp_path / "pins.txt"
    versions = {}
    for found in importlib.metadata.distributions():  # the first of a name is the one imported
        name = re.sub(r"[-_.]+", "-", found.metadata["Name"] or "").lower()
        versions.setdefault(name, found.version)
    pins.write_text("".join(f"{name}=={version}\n" for name, version in versions.items()
                            if name and name != "fudge-combat"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "FUDGE_", "VIRTUAL_ENV"))}
    env.update(PYTHONNOUSERSITE="1", NO_COLOR="1", XDG_STATE_HOME=str(tmp_path / "state"))

    def pip(*args: str) -> None:
        done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), *args, "--quiet"],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]

    def run(*command: str | Path) -> subprocess.CompletedProcess[str]:  # in an empty folder: nothing of the repository
        return subprocess.run([str(part) for part in command], capture_output=True, text=True, env=env,
                              cwd=tmp_path / "table", timeout=300)

    (tmp_path / "table").mkdir()
    pip("install", *map(str, peers))
    pip("install", "--constraint", str(pins), str(wheel))
    both = run(python, "-I", "-c", PEER_CHECK)
    assert both.returncode == 0, both.stderr
    assert json.loads(both.stdout) == {"events": "peer", "models": "peer models", "cli": "peer cli",
                                       "fudge_combat": True, "top": ["fudge_combat"]}
    version = run(fudge, "--version")
    assert (version.returncode, version.stdout) == (0, f"fudge {PYPROJECT['project']['version']}\n"), version.stderr
    demo = run(fudge, "demo")  # the example sheets, the engine, the store: the whole program, from the wheel
    assert demo.returncode == 0 and "Traceback" not in demo.stderr, demo.stderr[-3000:]
    rule = run(fudge, "rules", "explain", "C-DICE")  # the rules digest, shipped as package data
    assert rule.returncode == 0 and "C-DICE" in rule.stdout, rule.stderr
    serve = run(fudge, "serve")  # no serve extra here: the hint says how to get it, and it is an extra of fudge
    assert serve.returncode not in (0, 70) and serve.stderr.count("\n") == 1, serve.stderr
    assert "pip install '.[serve]' in fudge's source folder" in serve.stderr, serve.stderr

    pip("uninstall", "--yes", "fudge-combat")
    alone = run(python, "-I", "-c", PEER_CHECK)
    assert alone.returncode == 0, alone.stderr
    assert json.loads(alone.stdout) == {"events": "peer", "models": "peer models", "cli": "peer cli",
                                        "fudge_combat": False, "top": []}
    assert not fudge.exists()
    (site,) = venv.glob("lib/python*/site-packages")  # pip leaves the namespace's folder, empty
    assert [path for path in site.glob("fudge_combat/**/*") if path.is_file()] == []
