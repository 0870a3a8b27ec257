"""GM inputs several commands share: magic (F-MOD-5), aimed blows (F-HIT-2), an option's allowed values."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, get_args, get_origin, get_type_hints

import typer

from fudge_combat.cli.params import FUDGE
from fudge_combat.engine.kernel.errors import InputError


def choices(model: type[Any], field: str) -> tuple[Any, ...]:
    """The values a model's field allows, in the order its Literal declares them (the field may be
    Optional, or a tuple of them). An option checks and lists its values from the command it builds,
    so the command line and the command cannot drift apart."""
    def literals(annotation: Any) -> tuple[Any, ...]:
        if get_origin(annotation) is Literal:
            return get_args(annotation)
        return tuple(value for arg in get_args(annotation) for value in literals(arg))
    fields = getattr(model, "model_fields", None)  # a command's model, or an event's struct (its annotations)
    annotation = fields[field].annotation if fields is not None else get_type_hints(model)[field]
    return tuple(dict.fromkeys(literals(annotation)))

MagicOpt = Annotated[Optional[list[str]], typer.Option(
    "--magic", metavar="NAME=±1", rich_help_panel=FUDGE, help="NAME=+1 for a magical blessing, NAME=-1 for a curse (repeat per fighter) [F-MOD-5]")]


def parse_magic(values: Optional[list[str]]) -> tuple[tuple[str, int], ...]:
    out = []
    for value in values or []:
        who, _, amount = value.partition("=")
        try:
            number = int(amount)
        except ValueError:
            raise InputError(f"--magic {value!r}: write NAME=+1 (blessing) or NAME=-1 (curse)") from None
        if not who.strip() or number == 0:
            raise InputError(f"--magic {value!r}: write NAME=+1 (blessing) or NAME=-1 (curse)")
        out.append((who.strip(), number))
    return tuple(out)


AimOpt = Annotated[Optional[str], typer.Option(
    "--aim", metavar="LEVEL", rich_help_panel=FUDGE, help="The first fighter aims at a small part: the result needed to strike it (Good or Great); -1 to his skill [F-HIT-2]")]
AimAtOpt = Annotated[Optional[str], typer.Option(
    "--aim-at", metavar="PART", help="The part aimed at (an eye, the sword hand) [F-HIT-2]", rich_help_panel=FUDGE)]
CalledOpt = Annotated[Optional[str], typer.Option(
    "--called", metavar="PART", rich_help_panel=FUDGE, help="A called shot by the first fighter at this part, declared before the roll [F-LOC-1]")]
NeedRdOpt = Annotated[Optional[int], typer.Option(
    "--need-rd", metavar="N", rich_help_panel=FUDGE, help="The relative degree the called shot needs (usually 2-4; default 2) [F-LOC-1]")]
OtherwiseOpt = Annotated[Optional[str], typer.Option(
    "--otherwise", metavar="PART", rich_help_panel=FUDGE, help="Where the defender says a called shot won by less lands (default: the body) [F-LOC-1]")]
AffectsOpt = Annotated[Optional[str], typer.Option(
    "--affects", metavar="WHAT", rich_help_panel=FUDGE, help="What the wounded part hinders: combat, or a trait such as Running [F-LOC-2]")]
SpeedOpt = Annotated[bool, typer.Option(
    "--speed-contest", rich_help_panel=FUDGE, help="Both roll Speed first; the winner adds the difference to his weapon skill [F-FANCY-1]")]


FoeModOpt = Annotated[Optional[list[str]], typer.Option(
    "--foe-mod", metavar="NAME=N", rich_help_panel=FUDGE, help="NAME=-1 for one foe's footing, light or position (repeat per foe) [F-MOD-2]")]


def parse_foe_mods(values: Optional[list[str]]) -> tuple[tuple[str, int], ...]:
    out = []
    for value in values or []:
        who, _, amount = value.partition("=")
        try:
            out.append((who.strip(), int(amount)))
        except ValueError:
            raise InputError(f"--foe-mod {value!r}: write NAME=-1 (or NAME=+1)") from None
        if not who.strip():
            raise InputError(f"--foe-mod {value!r}: write NAME=-1 (or NAME=+1)")
    return tuple(out)
