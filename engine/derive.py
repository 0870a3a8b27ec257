"""Writes the structs the engine holds, derived from the pydantic models that are their schema, as Python source.

    python -m fudge_combat.engine.derive          # write them again after a model changed
    python -m fudge_combat.engine.derive --check  # exit 1 if a file written is not the one the models give

- engine/kernel/structs.py: a sheet and the rule options (engine.kernel.models). The models validate what a
  GM's file or a player's request gives, with validators of their own; the engine holds what they validated
  as these structs: a fight's state, its snapshot and every fold of a `combatant_joined` or a `fight_started`
  event. A struct checks a stored value's types and bounds (msgspec.convert), as the log's structs check a
  body; the models' own validators run where a file or a request is read (engine.kernel.sheets.parse_sheet,
  engine.kernel.presets.resolve).
- `command_structs.py` beside each package's command models (the kernel's, Fudge's, Fate's): the commands the
  engine decides. The shell builds them, and reads a log's `issued` dumps back into them
  (engine.kernel.commands: `valid`, `read_issued`); the models validate a request (`fudge act`) and give the
  words of a value refused. The marks of a field (engine.kernel.command_marks) are kept in its annotation.

The derivation is the log's (events.derive), with its `edge` allowances: validators, a dict's default factory,
a field's own bounds, a model's own conversions of a field.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fudge_combat.engine.kernel.command_marks import Mark
from fudge_combat.events.derive import Deriver

ENGINE = Path(__file__).resolve().parent

HEADER = '''{doc}

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field
'''


def _doc(what: str, models: str, also: str) -> str:
    """A written module's docstring, wrapped as the project's are."""
    import textwrap

    text = (f"{what} as msgspec structs, the values the engine holds: written by `python -m "
            f"fudge_combat.engine.derive` from the pydantic models ({models}), which are the schema {also}. "
            "Do not edit: change a model, then write this again (tests/test_kernel_structs.py fails until it is).")
    return '"""' + "\n".join(textwrap.wrap(text, 110, initial_indent="", break_on_hyphens=False)) + '"""'


def _kernel() -> str:
    from fudge_combat.engine.kernel import models

    deriver = Deriver(edge=True, untracked=True)  # a state holds a sheet a fighter: never walked by the collector
    deriver.struct(models.Sheet)
    deriver.struct(models.RuleOptions)
    header = HEADER.format(doc=_doc("A sheet and a fight's rule options", "engine.kernel.models",
                                    "and validate files and requests"))
    return header + "\n\n" + "\n\n\n".join(deriver.classes) + "\n"


def _commands(what: str, modules: list[str], imports: list[str], known: dict[Any, str],
              constants: dict[str, Any] | None = None) -> str:
    """The struct of every model of `modules` (those of other modules it names: `known`, imported by `imports`),
    with the commands by their `type` (BY_TYPE) and the module of each struct's model (MODELS)."""
    import importlib
    import inspect

    from pydantic import BaseModel

    deriver = Deriver(edge=True, known=known, constants=constants, marks=(Mark,))
    commands: list[str] = []
    origins: dict[str, str] = {}
    for name in modules:
        module = importlib.import_module(f"fudge_combat.engine.{name}")
        for model in vars(module).values():  # in the order the module defines them
            if (inspect.isclass(model) and issubclass(model, BaseModel) and model.__module__ == module.__name__
                    and model.model_config.get("extra") == "forbid" and not model.__name__.startswith("_")
                    and model.__name__ != "CommandModel"):  # the base: no command of its own
                deriver.struct(model)
                origins[model.__name__] = module.__name__
                if "type" in model.model_fields:
                    commands.append(f"    {model.model_fields['type'].default!r}: {model.__name__},")
    marks = sorted({mark for source in deriver.classes for mark in ("NAMES_A_COMBATANT", "STORED_FLAT") if mark in source})
    lines = [*imports, f"from fudge_combat.engine.kernel.command_marks import {', '.join(marks)}"] if marks else imports
    header = HEADER.format(doc=_doc(what, ", ".join(f"engine.{name}" for name in modules), "and validate requests"))
    header = header.replace("from msgspec import Meta, Struct, field\n",
                            "from msgspec import Meta, Struct, field\n\n" + "\n".join(sorted(lines)) + "\n")
    by_type = "\n".join(commands)
    models = "\n".join(f"    {name!r}: {module!r}," for name, module in origins.items())
    return (header + "\n\n" + "\n\n\n".join(deriver.classes) + "\n\n\n"
            + f"# each command by its `type`: how a log's `issued` dump is read back\nBY_TYPE: dict[str, type[Struct]] = {{\n{by_type}\n}}\n\n"
            + f"# the module of each struct's model: the words of a value a struct refuses\nMODELS: dict[str, str] = {{\n{models}\n}}\n")


def _kernel_commands() -> str:
    from fudge_combat.events.declaration import Declaration

    return _commands("The commands every fight has, and a revealed declaration", ["kernel.command_base", "kernel.commands_fight"],
                     ["from fudge_combat.events.structs import Declaration"], {Declaration: "Declaration"})


def _fudge_commands() -> str:
    from fudge_combat.engine.kernel.command_base import Reveal
    from fudge_combat.engine.rulesets.fudge.commands_blows import NO_TARGETING
    from fudge_combat.events.declaration import Declaration

    modules = [f"rulesets.fudge.commands_{part}" for part in ("round", "blows", "rolls", "aftermath", "conditions")]
    return _commands("Fudge's commands (and Atari Isev's, which are Fudge's)", modules,
                     ["from fudge_combat.engine.kernel.command_structs import Reveal",
                      "from fudge_combat.events.structs import Declaration"],
                     {Declaration: "Declaration", Reveal: "Reveal"}, {"NO_TARGETING": NO_TARGETING})


def _fate_commands() -> str:
    return _commands("Fate's commands", ["rulesets.fate.commands"], [], {})


TARGETS: dict[Path, Callable[[], str]] = {
    ENGINE / "kernel" / "structs.py": _kernel,
    ENGINE / "kernel" / "command_structs.py": _kernel_commands,
    ENGINE / "rulesets" / "fudge" / "command_structs.py": _fudge_commands,
    ENGINE / "rulesets" / "fate" / "command_structs.py": _fate_commands,
}


def stale() -> list[Path]:
    """The files written that are not the ones the models give."""
    return [path for path, source in TARGETS.items()
            if not path.exists() or path.read_text(encoding="utf-8") != source()]


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        wrong = stale()
        for path in wrong:
            print(f"{path} is not the one the models give: run `python -m fudge_combat.engine.derive`",
                  file=sys.stderr)
        return 1 if wrong else 0
    for path, source in TARGETS.items():
        path.write_text(source(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
