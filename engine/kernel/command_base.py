"""What every command is: a frozen model that refuses unknown fields (a typo in a GM's input is an error).

The models are the commands' schema: they validate what a request gives (`fudge act`, a command read back
from an older log the derived structs refuse) and a ruleset of another package declares its own commands as
them. The engine decides this project's commands as msgspec structs derived from these models
(engine.derive: `command_structs.py` beside each package's models), none written by hand.
"""

from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, PlainSerializer

from fudge_combat.engine.kernel.command_marks import NAMES_A_COMBATANT as NAMES_A_COMBATANT  # their home before
from fudge_combat.engine.kernel.command_marks import CombatantName as CombatantName
from fudge_combat.events import structs
from fudge_combat.events.declaration import Declaration as DeclarationModel


def _fields(value: Any) -> Any:
    """A declaration given as the events' struct, as its fields (what the model validates)."""
    return msgspec.structs.asdict(value) if isinstance(value, structs.Declaration) else value


def _value(model: DeclarationModel) -> structs.Declaration:
    return structs.Declaration(**dict(model))


# The declaration a command carries into the events it makes: validated by the event's model (events.declaration:
# its bounds, its words for a wrong value), held as the events' struct, so that a command's declaration and an
# event's compare equal; written as the model writes it (every field).
if TYPE_CHECKING:  # what the field holds once validated
    Declaration = structs.Declaration
else:
    Declaration = Annotated[DeclarationModel, BeforeValidator(_fields), AfterValidator(_value),
                            PlainSerializer(msgspec.to_builtins)]


class CommandModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Reveal(BaseModel):
    """A-SEAL-1: a sealed declaration opened with the command it is revealed for (the salt proves the seal).
    Here beside the base because the round's, the blows' and the rolls' commands all carry them."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: CombatantName
    declaration: Declaration
    salt: str
