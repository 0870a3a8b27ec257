"""Writes engine/kernel/structs.py: a msgspec struct for each pydantic model of engine.kernel.models, as Python source.

    python -m fudge_combat.engine.kernel.derive          # write engine/kernel/structs.py again after a model changed
    python -m fudge_combat.engine.kernel.derive --check  # exit 1 if the file written is not the one the models give

The models (a sheet, the rule options) validate what a GM's file or a player's request gives, with validators
of their own; the engine holds what they validated as these structs: a fight's state, its snapshot and every
fold of a `combatant_joined` or a `fight_started` event. A struct checks a stored value's types and bounds
(msgspec.convert), as the log's structs check a body; the models' own validators run where a file or a
request is read (engine.kernel.sheets.parse_sheet, engine.kernel.presets.resolve). The derivation is the log's
(events.derive), with its `edge` allowances: validators, a dict's default factory, a field's own bounds.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fudge_combat.events.derive import Deriver

TARGET = Path(__file__).with_name("structs.py")

HEADER = '''"""A sheet and a fight's rule options as msgspec structs, the values the engine holds: written by `python -m
fudge_combat.engine.kernel.derive` from the pydantic models (engine.kernel.models), which are the schema and
validate files and requests. Do not edit: change a model, then write this again (tests/test_kernel_structs.py
fails until it is)."""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field
'''


def source() -> str:
    """engine/kernel/structs.py as the models give it."""
    from fudge_combat.engine.kernel import models

    deriver = Deriver(edge=True)
    deriver.struct(models.Sheet)
    deriver.struct(models.RuleOptions)
    return HEADER + "\n\n" + "\n\n\n".join(deriver.classes) + "\n"


def main(argv: list[str]) -> int:
    wanted = source()
    if argv[1:] == ["--check"]:
        if TARGET.exists() and TARGET.read_text(encoding="utf-8") == wanted:
            return 0
        print(f"{TARGET} is not the one the models give: run `python -m fudge_combat.engine.kernel.derive`",
              file=sys.stderr)
        return 1
    TARGET.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
