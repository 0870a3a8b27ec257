"""The layers hold (import-linter's contracts in pyproject.toml): the shell imports the core, never the
other way round; inside the engine, the rulesets sit on the kernel and each ruleset is one room (Fudge
imports neither Atari Isev nor Fate, which never import each other); the engine, cli, sim and service have no
import cycle. `.ci/run` runs `lint-imports`
too; this test lets the README's test command catch a wrong import before CI does. A ruleset's package
does not name another ruleset either: what differs between rulesets is asked of the fight's own."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from fudge_combat.engine.kernel.registry import RULESETS
from tests.processes import ROOT


def test_import_linter_contracts_are_kept() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command as run; run()"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"Contracts: {len(contracts)} kept, 0 broken." in done.stdout


def test_no_ruleset_package_names_another_ruleset() -> None:
    """The code shared through Fudge's package asks the fight's ruleset (its Reading, its part of the state)
    instead of comparing the `ruleset` option with another ruleset's name; nor do the variants name each
    other. A string of the code (a docstring or a comment may speak of another ruleset) equal to another
    built-in ruleset's name fails."""
    found = []
    for name, package in RULESETS.items():
        others = set(RULESETS) - {name}
        for path in sorted((ROOT / "engine" / "rulesets" / package).glob("*.py")):
            tree = ast.parse(path.read_text())
            docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                          if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                          and node.body and isinstance(node.body[0], ast.Expr)
                          and isinstance(node.body[0].value, ast.Constant)}
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and node.value in others and id(node) not in docstrings]
    assert not found, found


def ruleset_state_readers(root: Path) -> list[str]:
    """Where a module outside a ruleset's package reads that ruleset's part of the state: imports its `state`
    module, or names a class or function defined there (`FateState`, `fate_of`). Tests are left out."""
    found = []
    for package in dict.fromkeys(RULESETS.values()):
        home = root / "engine" / "rulesets" / package
        if not (home / "state.py").exists():
            continue
        module = f"fudge_combat.engine.rulesets.{package}.state"
        defined = {node.name for node in ast.parse((home / "state.py").read_text()).body
                   if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
        for folder in ("engine", "events", "projections", "store", "service", "sim", "cli"):
            for path in sorted((root / folder).rglob("*.py")):
                if home in path.parents:
                    continue
                for node in ast.walk(ast.parse(path.read_text())):
                    named = (node.module if isinstance(node, ast.ImportFrom) and node.module else "",
                             *(f"{node.module}.{alias.name}" for alias in getattr(node, "names", ())
                               if isinstance(node, ast.ImportFrom)),
                             *(alias.name for alias in getattr(node, "names", ()) if isinstance(node, ast.Import)))
                    if module in named or (isinstance(node, ast.Name) and node.id in defined) or (
                            isinstance(node, ast.Attribute) and node.attr in defined):
                        found.append(f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}")
    return found


def test_no_view_reads_a_rulesets_part_of_the_state() -> None:
    """A ruleset's part of the state (Fate's boxes, aspects, scene and order) is read in its package alone:
    the views ask the fight's Reading (`scene`, `own_order`, `track`, ...), whose hooks the package holds."""
    assert not ruleset_state_readers(ROOT), ruleset_state_readers(ROOT)


def imports_of_package(root: Path, package: str, allowed: set[str]) -> list[str]:
    """Where a module outside the ruleset's package imports one of its modules not in `allowed` (tests left out)."""
    home = root / "engine" / "rulesets" / package
    prefix = f"fudge_combat.engine.rulesets.{package}"
    found = []
    for folder in ("engine", "events", "projections", "store", "service", "sim", "cli"):
        for path in sorted((root / folder).rglob("*.py")):
            if home in path.parents:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = ([f"{node.module}.{alias.name}" for alias in node.names]
                             if node.module in (prefix, prefix.rpartition(".")[0]) else [node.module])
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                found += [f"{path.relative_to(root)}:{node.lineno}: {name}" for name in names
                          if (name == prefix or name.startswith(prefix + "."))
                          and name.removeprefix(prefix + ".").partition(".")[0] not in allowed]
    return found


def test_fate_is_one_room_the_rest_imports_its_commands_alone() -> None:
    """Fate's package holds everything about Fate that the read side and the simulator ask (its Reading's
    and its SimRules' hooks, found through the registry): outside it, only the command registry imports its
    commands, the models and the structs derived from them (every layer types them as `cmd.X`)."""
    allowed = {"commands", "command_structs"}
    assert not imports_of_package(ROOT, "fate", allowed), imports_of_package(ROOT, "fate", allowed)


def test_atari_isev_is_one_room_nothing_outside_imports_it() -> None:
    """Atari Isev's package holds everything about it, its sheet's template and check too (its Reading's
    hooks, composed from Fudge's): no module outside it imports it (the registry finds it by name)."""
    assert not imports_of_package(ROOT, "atari_isev", set()), imports_of_package(ROOT, "atari_isev", set())
