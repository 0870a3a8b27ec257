"""Old stored shapes become today's before validation, so old logs replay forever.

`UPCASTERS[(type, v)]` turns an event payload of version `v` into `v + 1`.
The envelope's own `schema` is handled the same way by `ENVELOPE_UPCASTERS`.
Nothing is registered yet: every event `v` 1 is the first shape. Envelope schema 2 (compact
bodies: fields equal to their defaults left out) needs no upcaster from schema 1: a full body
is also a valid compact one, and both load to the same record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Payload = dict[str, Any]
UPCASTERS: dict[tuple[str, int], Callable[[Payload], Payload]] = {}
ENVELOPE_UPCASTERS: dict[int, Callable[[Payload], Payload]] = {}


def upcast(envelope: Payload) -> Payload:
    while (schema := envelope.get("schema", 1)) in ENVELOPE_UPCASTERS:
        envelope = ENVELOPE_UPCASTERS[schema](envelope)
    event = envelope["event"]
    while (key := (event.get("type"), event.get("v", 1))) in UPCASTERS:
        event = UPCASTERS[key](event)
    if event is not envelope["event"]:
        envelope = {**envelope, "event": event}
    return envelope
