"""What every command is: a frozen model that refuses unknown fields (a typo in a GM's input is an error)."""

from typing import Annotated, Any

import msgspec
from pydantic import BaseModel, ConfigDict, PlainSerializer, PlainValidator

from fudge_combat.events import structs


def _declaration(value: Any) -> structs.Declaration:
    """A command's declaration as the events hold it (`events.structs.Declaration`), from itself or from its
    fields (a command read back from the log, a player's request): a field of the wrong type or an
    unknown one is refused, as the event's model refuses it."""
    if isinstance(value, structs.Declaration):
        return value
    if isinstance(value, BaseModel):  # the event model's (events.models.Declaration): its fields
        value = value.model_dump()
    return msgspec.convert(value, structs.Declaration, strict=False)


# The declaration a command carries into the events it makes: the same value, so that a command's
# declaration and an event's compare equal; written as the event's model writes it (every field).
Declaration = Annotated[structs.Declaration, PlainValidator(_declaration), PlainSerializer(msgspec.to_builtins)]


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
