"""What the type checker reads is what runs: `engine.commands` creates each command class when it is first
named (its `MODULES`), and names the same classes, from the same modules, to the type checker (its
`TYPE_CHECKING` imports), and a name that is not one is an error to it. `.ci/run` runs mypy itself (`[tool.mypy]` in pyproject.toml)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from fudge_combat.engine import commands
from tests.processes import ROOT
from tests.typecheck import LAYERS


def test_the_type_checker_sees_each_command_class_from_the_module_that_makes_it() -> None:
    tree = ast.parse((ROOT / "engine" / "commands.py").read_text())
    seen: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module is not None
                for alias in statement.names:
                    seen[alias.name] = statement.module.removeprefix("fudge_combat.engine.")
    assert seen == commands.MODULES


def test_the_type_checker_sees_the_command_classes_and_refuses_a_name_that_is_not_one(tmp_path: Path) -> None:
    """`cmd.Attack` is the class to mypy, and `cmd.Atack` an error: the module's `__getattr__`, which
    creates the classes at run time, is hidden from the type checker, so no unknown name reads as `Any`."""
    package = tmp_path / "layout" / "fudge_combat"
    package.mkdir(parents=True)
    for layer in LAYERS:
        (package / layer).symlink_to(ROOT / layer, target_is_directory=True)
    probe = tmp_path / "probe.py"
    probe.write_text("from fudge_combat.engine import commands as cmd\n"
                     "reveal_type(cmd.Attack)\n"
                     "reveal_type(cmd.Attack(attacker='a', target='b'))\n"
                     "cmd.Atack(attacker='a', target='b')\n")
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "cache"), str(probe)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "MYPYPATH": str(package.parent)})
    lines = done.stdout.splitlines()
    assert any(":2: note: Revealed type is \"def (" in line and "-> fudge_combat.engine.rulesets.fudge.commands_blows.Attack\"" in line
               for line in lines), done.stdout
    assert any(':3: note: Revealed type is "fudge_combat.engine.rulesets.fudge.commands_blows.Attack"' in line for line in lines)
    assert any(':4: error: Module has no attribute "Atack"' in line for line in lines), done.stdout
    assert done.returncode == 1
