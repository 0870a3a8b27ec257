"""A-LOG-2: the envelope every stored event travels in, as a pydantic model: the schema of a stored body.

The engine reads and appends records as structs written from these models (events.records, events.structs);
`load` here is the reader of last resort, for a body the structs' decoder refuses (pydantic's JSON mode is
laxer) or one an upcaster must change first. What a body holds (schema 1 and 2) and how it is hashed:
events.records.
"""

from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import from_json

from fudge_combat.events.bounds import Seq, Text, Version
from fudge_combat.events.models import Event
from fudge_combat.events.upcast import ENVELOPE_UPCASTERS, UPCASTERS, upcast

# Each event type's class by its tag, as the union's discriminator reads it (`type`).
BY_TYPE: dict[str, type[BaseModel]] = {kind.model_fields["type"].default: kind for kind in get_args(get_args(Event)[0])}
SCHEMA_VERSION = 2  # 1: every field written; 2: fields equal to their defaults left out


class Envelope(BaseModel):
    """A record's envelope: who, when, why, where in the chain (its event apart: `Recorded`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    fight: Text
    seq: Seq
    command: Text
    issued: dict[str, Any] | None = None
    at: Text
    schema_version: Version = Field(default=SCHEMA_VERSION, alias="schema")
    prev: Text


class Recorded(Envelope):
    """One event as stored: its envelope and the event."""

    event: Event


def load(body: str) -> Recorded:
    """Read a stored body, upcasting older schema and event versions first.

    The body is validated in two parts: the envelope's fields by `Envelope` (the same fields as `Recorded`'s)
    and the event by the class its `type` names, the one the union's discriminator picks. The result is
    the `Recorded` the union's validator makes, but a process builds the validators of the event types it
    reads, not of every type: building the union's is a large share of a one-shot command that reads a
    few records (bench/README.md, the restructure). A body that is no JSON, or whose event names no known
    type, is handed to the union's validator, which says why it is refused.
    """
    try:
        data = from_json(body)
    except ValueError:  # not JSON: the union's validator refuses it, in the words it always has
        return Recorded.model_validate_json(body)
    if UPCASTERS or ENVELOPE_UPCASTERS:
        data = upcast(data)
    event = data.get("event") if isinstance(data, dict) else None
    tag = event.get("type") if isinstance(event, dict) else None
    kind = BY_TYPE.get(tag) if isinstance(tag, str) else None
    if kind is None:
        return Recorded.model_validate(data)
    envelope = Envelope.model_validate({key: value for key, value in data.items() if key != "event"})
    return Recorded.model_construct(_fields_set={*envelope.model_fields_set, "event"}, **dict(envelope),
                                    event=kind.model_validate(event))
