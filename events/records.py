"""A-LOG-2: the records the engine reads and appends, their stored bodies and their SHA-256 hash chain.

A record is the generated struct of the envelope (`events.structs.Recorded`), its `event` the struct of
the event's type: the values the engine decides, folds and shows. The pydantic models (events.models,
events.envelope) stay the schema the structs are written from (events.derive) and the reader of last resort
(`load`); a command that appends and folds a few records builds none of them.

Schema 2 bodies are compact: a field of the event (or of a value inside it) equal to its default is left
out, and so is an envelope's `issued` when there is none; the event's `type` and `v` and the envelope's
`schema` are always written. Schema 1 bodies (written before) hold every field. Both load alike: a field a
body leaves out takes its default, which is why an event field's default never changes (events.models).
The chain hashes each body's stored bytes as they are, whatever its schema: nothing is ever re-serialised
to be checked. `body` writes the bytes pydantic's models wrote (tests/test_records.py: every golden body
and every row of random fights, written again byte for byte).
"""

import hashlib
import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import msgspec

from fudge_combat.events import structs
from fudge_combat.events.decoder import Refused, decoder
from fudge_combat.events.upcast import ENVELOPE_UPCASTERS, UPCASTERS

Recorded = structs.Recorded
SCHEMA_VERSION = 2  # 1: every field written; 2: fields equal to their defaults left out
GENESIS = "0" * 64


def record(fight: str, seq: int, command: str, issued: dict[str, Any] | None, at: str, prev: str,
           event: Any) -> Any:
    """The record the service makes for an event it appends. Nothing is validated here: the service reads
    the body it writes back through the decoder before the event counts (`checked`). An event given as its
    pydantic model (a ruleset of another package may build one) is taken as its struct."""
    if not isinstance(event, msgspec.Struct):
        event = value(event)
    return Recorded(fight=fight, seq=seq, command=command, issued=issued, at=at, prev=prev, event=event)


def body(record: Any) -> str:
    """The canonical JSON written for this record: compact (schema 2), see the module's docstring."""
    data = _compact(record)
    data["schema"] = record.schema_version
    data["event"]["type"], data["event"]["v"] = record.event.type, record.event.v
    return canonical(data)


def json_form(value: Any) -> Any:
    """A struct (a sheet, the options) as JSON gives it back: dicts, lists, texts, numbers, flags and None. What a
    command and an event hold of it (`join`'s sheet, `start`'s options), as pydantic's `model_dump(mode="json")`
    wrote it: a tuple is a list, as a replay reads it."""
    return msgspec.json.decode(msgspec.json.encode(value))


def checked(text: str) -> Any:
    """The record a body just written holds, as a replay will read it: a body the engine wrote that the
    decoder refuses (a value of the wrong type, a bound passed) is a defect, raised before it is stored."""
    return decoder()(text)


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()


def load(body: str) -> Any:
    """Read a stored body, upcasting older schema and event versions first: the decoder's record, or where
    the decoder refuses the body (or an upcaster is registered) pydantic's, which decides, as a struct."""
    if not (UPCASTERS or ENVELOPE_UPCASTERS):
        try:
            return decoder()(body)
        except Refused:
            pass
    from fudge_combat.events import envelope  # the models: only for what the decoder does not take

    return value(envelope.load(body))


def load_all(bodies: Iterable[str]) -> list[Any]:
    """`load` of every body, in order, each one validated."""
    return [load(body) for body in bodies]


def value(model: Any) -> Any:
    """The struct of a pydantic record, event or part of one (the same fields, the same values)."""
    return msgspec.convert(model.model_dump(mode="json", by_alias=True), _struct_of()[type(model)])


@lru_cache(maxsize=1)
def _struct_of() -> dict[type, type]:
    from fudge_combat.events.decoder import structs as derived

    return {model: struct for struct, model in derived().items()}


_FIELDS: dict[type, list[tuple[str, str, Any]]] = {}


def _fields(kind: type) -> list[tuple[str, str, Any]]:
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = [(f.name, f.encode_name, f.default) for f in msgspec.structs.fields(kind)]
    return found


def _compact(value: Any) -> Any:
    """A struct as plain data, every field equal to its default left out, at any depth (as pydantic's
    `model_dump(mode="json", exclude_defaults=True)` wrote a model)."""
    if isinstance(value, msgspec.Struct):
        out = {}
        for name, key, default in _fields(type(value)):
            item = getattr(value, name)
            if default is msgspec.NODEFAULT or item != default:
                out[key] = _compact(item)
        return out
    if isinstance(value, tuple | list):
        return [_compact(item) for item in value]
    return value
