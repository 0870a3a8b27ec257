"""A-LOG-2: the envelope every stored event travels in, and its SHA-256 hash chain.

Schema 2 bodies are compact: a field of the event (or of a model inside it) equal to its
default is left out, and so is an envelope's `issued` when there is none; the event's `type`
and `v` and the envelope's `schema` are always written. Schema 1 bodies (written before) hold
every field. Both load alike: a field a body leaves out takes its default, which is why an
event field's default never changes (events.models). The chain hashes each body's stored
bytes as they are, whatever its schema: nothing is ever re-serialised to be checked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from fudge_combat.events.bounds import Seq, Text, Version
from fudge_combat.events.models import Event
from fudge_combat.events.upcast import ENVELOPE_UPCASTERS, UPCASTERS, upcast

SCHEMA_VERSION = 2  # 1: every field written; 2: fields equal to their defaults left out
GENESIS = "0" * 64


class Recorded(BaseModel):
    """One event as stored: who, when, why, where in the chain."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    fight: Text
    seq: Seq
    command: Text
    issued: dict[str, Any] | None = None
    at: Text
    schema_version: Version = Field(default=SCHEMA_VERSION, alias="schema")
    prev: Text
    event: Event

    def body(self) -> str:
        """The canonical JSON written for this record: compact (schema 2), see the module's docstring."""
        data = self.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        data["schema"] = self.schema_version
        event = data["event"]
        event["type"], event["v"] = self.event.type, self.event.v
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

    While no upcaster is registered every stored shape is today's: pydantic-core parses and
    validates the JSON in one pass (faster than json.loads and validating the dict).
    """
    if not UPCASTERS and not ENVELOPE_UPCASTERS:
        return Recorded.model_validate_json(body)
    data = json.loads(body)
    return Recorded.model_validate(upcast(data))


def load_all(bodies: Iterable[str]) -> list[Recorded]:
    """`load` of every body, in order: each one validated, with one call per body less."""
    if UPCASTERS or ENVELOPE_UPCASTERS:
        return [load(body) for body in bodies]
    validate = _validate_json()
    return [validate(body) for body in bodies]
