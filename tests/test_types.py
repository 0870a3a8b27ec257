"""What the type checker reads is what runs: `engine.commands` creates each command class when it is first
named (its `MODULES`), and names the same classes, from the same modules, to the type checker (its
`TYPE_CHECKING` imports). `.ci/run` runs mypy itself (`[tool.mypy]` in pyproject.toml)."""

from __future__ import annotations

import ast

from fudge_combat.engine import commands
from tests.processes import ROOT


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
