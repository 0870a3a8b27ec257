"""What the type checker reads is what runs: `engine.commands` creates each command class when it is first
named (its `MODULES`), and names the same classes, from the same modules, to the type checker (its
`TYPE_CHECKING` imports), and a name that is not one is an error to it. `.ci/run` runs mypy itself
(`[tool.mypy]` in pyproject.toml); here, what it is told: the kernel and the events strictly, and no
`# type: ignore` without its reason beside it."""

from __future__ import annotations

import ast
import io
import os
import re
import subprocess
import sys
import tokenize
import tomllib
from pathlib import Path
from typing import Any

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
    assert any(":2: note: Revealed type is \"def (" in line and "-> fudge_combat.engine.rulesets.fudge.command_structs.Attack\"" in line
               for line in lines), done.stdout
    assert any(':3: note: Revealed type is "fudge_combat.engine.rulesets.fudge.command_structs.Attack"' in line for line in lines)
    assert any(':4: error: Module has no attribute "Atack"' in line for line in lines), done.stdout
    assert done.returncode == 1


# --- the type checker's settings, and what it is told to skip --------------------------------------------

SOURCE = ("cli", "engine", "events", "examples", "projections", "service", "sim", "store")
IGNORE = re.compile(r"#\s*type:\s*ignore\b(?P<codes>\[[^\]]*\])?(?P<rest>.*)")
# mypy's strict mode, flag by flag (`strict = true` in an override would turn it on for every module)
STRICT = {"disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls", "disallow_untyped_defs",
          "disallow_incomplete_defs", "disallow_untyped_decorators", "warn_return_any", "no_implicit_reexport",
          "strict_equality", "extra_checks"}
# (module, flag) a narrower override turns off, each with its reason in pyproject.toml
RELAXED = {("fudge_combat.engine.kernel.state", "warn_return_any")}  # the fold's Draft, copied through object.__new__


def ignores(text: str) -> list[tuple[int, str]]:
    """(line, comment) of every `# type: ignore` comment in a module's source (not in its strings)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT and IGNORE.search(token.string):
            found.append((token.start[0], token.string))
    return found


def unjustified(comment: str) -> bool:
    """An ignore needs its error codes and, after them, a comment saying why."""
    match = IGNORE.search(comment)
    assert match is not None
    return not match["codes"] or not re.match(r"\s+#\s*\S", match["rest"])


def test_an_ignore_without_its_reason_is_found() -> None:
    source = ("x = f()  # type: ignore\n"
              "y = g()  # type: ignore[arg-type]\n"
              "z = h()  # type: ignore[misc]  # a type built at run time\n"
              "s = '# type: ignore[misc]'\n")
    assert [(line, unjustified(comment)) for line, comment in ignores(source)] == [(1, True), (2, True), (3, False)]


def test_every_type_ignore_says_why_on_its_line() -> None:
    bare = [f"{path.relative_to(ROOT)}:{line}: {comment}"
            for folder in SOURCE for path in sorted((ROOT / folder).rglob("*.py"))
            for line, comment in ignores(path.read_text()) if unjustified(comment)]
    assert bare == []


def mypy_overrides() -> list[dict[str, Any]]:
    overrides: list[dict[str, Any]] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    return overrides


def matches(module: str, patterns: list[str] | str) -> bool:
    return any(module == p or (p.endswith(".*") and (module + ".").startswith(p[:-1]))
               for p in ([patterns] if isinstance(patterns, str) else patterns))


def test_the_kernel_and_the_events_are_checked_strictly() -> None:
    modules = [f"fudge_combat.{'.'.join(path.relative_to(ROOT).with_suffix('').parts)}".removesuffix(".__init__")
               for folder in ("engine/kernel", "events") for path in sorted((ROOT / folder).glob("*.py"))]
    assert "fudge_combat.engine.kernel.decider" in modules and "fudge_combat.events.models" in modules
    for module in modules:
        flags = {flag: value for override in mypy_overrides() if matches(module, override["module"])
                 for flag, value in override.items() if flag in STRICT}
        turned_off = {flag for flag in STRICT if flags.get(flag) is not True}
        assert turned_off == {flag for name, flag in RELAXED if name == module}, module


def test_a_decider_is_typed_without_any() -> None:
    """Its table's handlers name their command and dice, not `...` or Any (`Handler`)."""
    tree = ast.parse((ROOT / "engine" / "kernel" / "decider.py").read_text())
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert "Any" not in names and "Callable" in names
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value is Ellipsis]
