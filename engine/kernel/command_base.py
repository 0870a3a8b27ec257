"""What every command is: a frozen model that refuses unknown fields (a typo in a GM's input is an error)."""

from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, PlainSerializer

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

    def typed_parts(self) -> tuple[BaseModel, ...]:
        """The command and the parts of it that name traits as the GM typed them (a Fate exchange's actions):
        what the shell checks for a typo of a trait (`cli.table.check_traits`)."""
        return (self,)


class NamesACombatant:
    """Marks a field that holds a combatant's name, as the GM may have typed it ("grok", "sn").

    The shell reads the mark to write the full name the fight knows ("Grok the Orc") before the
    command is decided and logged (service.names): a logged command never depends on how a name was
    abbreviated. The mark changes neither validation nor the stored form of a command.
    """

    def __repr__(self) -> str:
        return "NAMES_A_COMBATANT"


NAMES_A_COMBATANT = NamesACombatant()
CombatantName = Annotated[str, NAMES_A_COMBATANT]


class Reveal(BaseModel):
    """A-SEAL-1: a sealed declaration opened with the command it is revealed for (the salt proves the seal).
    Here beside the base because the round's, the blows' and the rolls' commands all carry them."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: CombatantName
    declaration: Declaration
    salt: str
