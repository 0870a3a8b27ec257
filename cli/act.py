"""At the table: act, a command of the fight's own ruleset that has no command of its own in this shell.

A ruleset installed from another package (engine.kernel.registry) adds its commands as models; `fudge act
WORD FIELD=VALUE...` builds any of them from the fields typed, and decides it as every other command is
(cli.table.run: names in full, dice, the outcome). `fudge act` alone lists the fight's ruleset's own commands,
and so does the end of `fudge act --help` when there is a current fight.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from fudge_combat.cli.context import echo, fight_name, guard, service, settings
from fudge_combat.cli.outcome import JsonOpt
from fudge_combat.cli.params import FudgeCommand
from fudge_combat.cli.table import CommandIdOpt, DiceOpt, FightOpt, run
from fudge_combat.engine.kernel.command_base import CommandModel
from fudge_combat.engine.kernel.commands import own_commands
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.inputs import validation_line

app = typer.Typer()


def commands_of(fight: Optional[str]) -> tuple[str, str, dict[str, type[CommandModel]]]:
    """(the fight's name, its ruleset, the ruleset's own commands by word)."""
    fights = service()
    name = fight_name(fights, fight)
    ruleset = fights.state(name).options.ruleset
    return name, ruleset, own_commands(ruleset)


def listing(name: str, ruleset: str, commands: dict[str, type[CommandModel]]) -> list[str]:
    """The own commands of the fight's ruleset, one line each: its word, its fields, what it does."""
    if not commands:
        return [f"the {ruleset} rules of {name} add no command of their own: each of theirs has its own "
                "`fudge` command (see `fudge --help`)"]
    lines = [f"the {ruleset} rules of {name} add these commands (`fudge act COMMAND FIELD=VALUE...`):"]
    for word, cls in commands.items():
        fields = " ".join(f"{field}=..." if info.is_required() else f"[{field}=...]"
                          for field, info in cls.model_fields.items() if field != "type")
        said = (cls.__doc__ or "").strip().splitlines()
        lines.append(f"  {word} {fields}" + (f": {said[0]}" if said else ""))
    return lines


def built(cls: Any, word: str, pairs: list[str]) -> Any:
    """The command `cls` from `FIELD=VALUE` pairs: each value as typed (a text), or JSON where it is a list or
    a table (`[1, 2]`, `{"a": 1}`); the model converts a typed number or yes/no as a sheet's are."""
    fields: dict[str, Any] = {}
    for pair in pairs:
        field, sep, value = pair.partition("=")
        field = field.strip().replace("-", "_")
        if not sep or not field:
            raise InputError(f"`fudge act {word}` takes FIELD=VALUE pairs, not {pair!r}")
        if field == "type" or field not in cls.model_fields:
            known = ", ".join(f for f in cls.model_fields if f != "type")
            raise InputError(f"{word} has no field {field!r}; its fields: {known}")
        if field in fields:
            raise InputError(f"{field} is given twice")
        fields[field] = value
        if value.lstrip()[:1] in ("[", "{"):
            try:
                fields[field] = json.loads(value)
            except ValueError:
                raise InputError(f"{field}={value}: a list or a table is written in JSON, like [1, 2]") from None
    from pydantic import ValidationError

    typed = all(isinstance(value, str) for value in fields.values())
    try:  # every value a text: read as its field's type (`3`, `yes`); else as given, JSON's values and all
        return cls.model_validate_strings(fields) if typed else cls.model_validate(fields)
    except ValidationError as exc:
        raise InputError(validation_line(exc, f"fudge act {word}", "field")) from None


class _ActCommand(FudgeCommand):
    """`fudge act --help` ends with the current fight's own commands, when there is a store and a current
    fight to read them from (the help reads its epilog; a help never makes a store)."""

    @property  # click's plain attribute (`epilog`), read when the help is drawn
    def epilog(self) -> str | None:
        try:
            path = settings.store_path
            if isinstance(path, Path) and not path.exists():
                return self._epilog
            lines = listing(*commands_of(None))
        except Exception:  # noqa: BLE001 - no fight to read: the help says what it always says
            return self._epilog
        return "\n\n".join([*([self._epilog] if self._epilog else []), *lines])

    @epilog.setter
    def epilog(self, value: str | None) -> None:
        self._epilog = value


@app.command(cls=_ActCommand)
def act(
    word: Annotated[Optional[str], typer.Argument(
        metavar="COMMAND", show_default=False, help="A command of the fight's ruleset (none: list them).")] = None,
    fields: Annotated[Optional[list[str]], typer.Argument(
        metavar="FIELD=VALUE...", show_default=False, help="The command's fields, e.g. combatant=rosa.")] = None,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A command of the fight's own ruleset (an installed ruleset's), built from FIELD=VALUE pairs."""
    with guard():
        name, ruleset, commands = commands_of(fight)
        if word is None:
            echo("\n".join(listing(name, ruleset, commands)), lines=True)
            return
        cls = commands.get(word.strip().lower())
        if cls is None:
            known = ", ".join(commands) or "none"
            raise InputError(f"the {ruleset} rules have no command {word!r} for `fudge act` (theirs: {known}; "
                             "`fudge act` lists them)")
        command = built(cls, word, fields or [])
    run(fight, lambda fights, name, state: command, dice, command_id, as_json=as_json)
