"""A-LOG-2: the envelope every stored event travels in, and its SHA-256 hash chain.

Schema 2 bodies are compact: a field of the event (or of a model inside it) equal to its
default is left out, and so is an envelope's `issued` when there is none; the event's `type`
and `v` and the envelope's `schema` are always written. Schema 1 bodies (written before) hold
every field. Both load alike: a field a body leaves out takes its default, which is why an
event field's default never changes (events.models). The chain hashes each body's stored
bytes as they are, whatever its schema: nothing is ever re-serialised to be checked.
"""

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import from_json, to_jsonable_python

from fudge_combat.events.bounds import Seq, Text, Version
from fudge_combat.events.models import Event
from fudge_combat.events.upcast import ENVELOPE_UPCASTERS, UPCASTERS, upcast

# Each event type's class by its tag, as the union's discriminator reads it (`type`).
BY_TYPE: dict[str, type[BaseModel]] = {kind.model_fields["type"].default: kind for kind in get_args(get_args(Event)[0])}
SCHEMA_VERSION = 2  # 1: every field written; 2: fields equal to their defaults left out
GENESIS = "0" * 64


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

    @classmethod
    def of(cls, fight: str, seq: int, command: str, issued: dict[str, Any] | None, at: str, prev: str,
           event: Event) -> "Recorded":
        """A record the service makes for an event it appends: the event was validated as it was built (by
        its own class), and every other field is the service's own value, so nothing is validated again.
        Validating would build the schema of the union of every event type, which a one-shot command
        would build for the one or two events it writes (bench/README.md, the restructure); what is stored
        is validated whenever it is read, as every stored body is."""
        return cls.model_construct(fight=fight, seq=seq, command=command, issued=issued, at=at, prev=prev,
                                   event=event)

    def body(self) -> str:
        """The canonical JSON written for this record: compact (schema 2), see the module's docstring.

        The envelope's own fields are written as `model_dump(mode="json", by_alias=True, exclude_defaults=True)`
        writes them, and the event by its own class's serializer (the one the union picks for it): the
        envelope's serializer would build the union of every event type first (`of`)."""
        data: dict[str, Any] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if name != "event" and (field.is_required() or value != field.get_default()):
                data[field.alias or name] = to_jsonable_python(value)
        data["schema"] = self.schema_version
        event = self.event.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        event["type"], event["v"] = self.event.type, self.event.v
        data["event"] = event
        return canonical(data)


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()


def _validate_json() -> Callable[[str], Recorded]:
    """`Recorded`'s own JSON validator, built on first use (`defer_build`). A TypeAdapter of the model builds
    the same schema again, a cost a one-shot command feels, when a process both reads rows and writes one."""
    if not Recorded.__pydantic_complete__:
        Recorded.model_rebuild()
    return Recorded.__pydantic_validator__.validate_json


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


BATCH = 64  # from this many bodies on, `load_all` builds the union's validator: one pass over each body pays


def load_all(bodies: Iterable[str]) -> list[Recorded]:
    """`load` of every body, in order, each one validated. A long run (a replay) is read by the union's own
    JSON validator, which parses and validates a body in one pass; a few (the records after a snapshot) as
    `load` reads them, building only their event types' validators."""
    listed = list(bodies)
    if UPCASTERS or ENVELOPE_UPCASTERS or len(listed) < BATCH:
        return [load(body) for body in listed]
    validate = _validate_json()
    return [validate(body) for body in listed]
