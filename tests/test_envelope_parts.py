"""A-LOG-1, A-LOG-2: a stored body read in two parts (events.envelope.load: the envelope by `Envelope`, the
event by the class its `type` names) is the record the union's own validator reads, and a record written
without the envelope's serializer (`Recorded.body`) has the bytes it wrote.

Both are what a one-shot command does instead of building the validator of the union of every event type
(bench/README.md, one-shot); what must hold is that nothing read or written changes:
- every golden body (schema 1 and 2, the types added since) and every row of random fights of every ruleset
  loads to a record equal to the union's, field for field and type for type;
- a body changed anywhere (another type, a lax form, an unknown field, a field left out, an unknown event
  type) is refused by both or read alike by both;
- `body()` writes the bytes the envelope's serializer writes, for every one of those records, and
  `Recorded.of` makes the record the validating constructor makes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel, ValidationError

from fudge_combat.events.envelope import Recorded, canonical, load, load_all
from tests.test_decoder import ODD, bodies_of, changed, golden_bodies, paths
from tests.test_fold_draft import FIGHTERS, fight_log

BODIES = golden_bodies()


def alike(one: Any, other: Any) -> bool:
    """The same value, of the same type, at every depth."""
    if isinstance(one, BaseModel):
        return type(one) is type(other) and all(alike(getattr(one, name), getattr(other, name))
                                                for name in type(one).model_fields)
    if isinstance(one, (tuple, list)):
        return type(one) is type(other) and len(one) == len(other) and all(map(alike, one, other))
    if isinstance(one, dict):
        return type(other) is dict and one.keys() == other.keys() and all(alike(one[k], other[k]) for k in one)
    return type(one) is type(other) and one == other


def as_the_union_writes(record: Recorded) -> str:
    """The body as the envelope's own serializer writes it (what `body()` wrote before)."""
    data = record.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data["schema"] = record.schema_version
    data["event"]["type"], data["event"]["v"] = record.event.type, record.event.v
    return canonical(data)


def every_body() -> list[str]:
    fought = [body for preset in sorted(FIGHTERS) for index in range(2)
              for body in bodies_of(fight_log(preset, "sensible", True, index))]
    return BODIES + fought


def test_every_stored_body_loads_in_parts_to_the_unions_record_and_is_written_back_alike() -> None:
    bodies = every_body()
    union = [Recorded.model_validate_json(body) for body in bodies]
    for body, record in zip(bodies, union):
        parts = load(body)
        assert parts == record and alike(parts, record), body
        assert parts.body() == as_the_union_writes(record), body
    assert load_all(bodies[:3]) == union[:3] and load_all(bodies) == union  # a few in parts, many by the union


def test_a_record_made_by_the_service_is_the_validated_one() -> None:
    for body in every_body()[:400]:
        record = load(body)
        fields = dict(fight=record.fight, seq=record.seq, command=record.command, issued=record.issued,
                      at=record.at, prev=record.prev, event=record.event)
        made, validated = Recorded.of(**fields), Recorded(**fields)  # type: ignore[arg-type]
        assert made == validated and alike(made, validated) and made.body() == as_the_union_writes(validated), body


def read(body: str, how: Any) -> tuple[str, Any]:
    try:
        return "read", how(body)
    except (ValidationError, ValueError) as exc:
        return "refused", type(exc).__name__


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(BODIES) - 1), st.data(), st.sampled_from(("replace", "drop", "extra", "lax")),
       st.sampled_from((*ODD, "no_such_event")))
def test_a_changed_body_is_refused_by_both_or_read_alike(index: int, data: st.DataObject, how: str, odd: Any) -> None:
    parsed = json.loads(BODIES[index])
    path = data.draw(st.sampled_from(paths(parsed)))
    body = json.dumps(changed(parsed, path, how, odd))
    in_parts, by_union = read(body, load), read(body, Recorded.model_validate_json)
    assert in_parts[0] == by_union[0], (body, in_parts, by_union)
    if in_parts[0] == "read":
        assert alike(in_parts[1], by_union[1]), body


@pytest.mark.parametrize("body", ["[]", '{"event": 3}', '{"event": {"type": 3}}', "{}", "null", '"x"'])
def test_a_body_that_is_no_record_is_refused_as_the_union_refuses_it(body: str) -> None:
    assert read(body, load)[0] == read(body, Recorded.model_validate_json)[0] == "refused"
