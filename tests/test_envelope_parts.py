"""A-LOG-1, A-LOG-2: a stored body read in two parts (events.envelope.load: the envelope by `Envelope`, the
event by the class its `type` names) is the record the union's own validator reads, and a record written
as the service writes it (events.records: the record's struct, `body`) has the bytes the union's serializer
wrote.

Both are what a one-shot command does instead of building the validator of the union of every event type
(bench/README.md, one-shot); what must hold is that nothing read or written changes:
- every golden body (schema 1 and 2, the types added since) and every row of random fights of every ruleset
  loads to a record equal to the union's, field for field and type for type;
- a body changed anywhere (another type, a lax form, an unknown field, a field left out, an unknown event
  type) is refused by both or read alike by both;
- `records.body` writes the bytes the envelope's serializer writes, for every one of those records, and the
  record the service appends (`records.record`, read back by `records.checked`) is the validated one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel, ValidationError

from fudge_combat.events import records
from fudge_combat.events.envelope import Recorded, load
from fudge_combat.events.records import canonical
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
        assert records.body(records.value(parts)) == as_the_union_writes(record), body


def test_a_record_made_by_the_service_is_the_validated_one() -> None:
    """The service builds a record's struct from the engine's event, writes its body and reads that body back
    (records.checked): the same bytes as the union's serializer, the same values as the models read."""
    for body in every_body()[:400]:
        validated = load(body)
        event = records.load(body).event
        made = records.record(fight=validated.fight, seq=validated.seq, command=validated.command,
                              issued=validated.issued, at=validated.at, prev=validated.prev, event=event)
        written = records.body(made)  # the service writes schema 2, whichever schema the body read was
        validated = validated.model_copy(update={"schema_version": records.SCHEMA_VERSION})
        assert written == as_the_union_writes(validated), body
        assert records.checked(written) == made == records.value(validated), body


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


def test_a_body_the_engine_wrote_wrongly_is_refused_before_it_is_stored() -> None:
    """The engine builds an event's struct without validating it; the service reads every body it writes back
    through the decoder before the event counts (records.checked), so a value of the wrong type or past its
    bound is refused there, as a replay would refuse it, never stored."""
    from fudge_combat.events import structs as ev

    fields = dict(fight="f", seq=1, command="c", issued=None, at="2026-01-01T00:00:00.000+00:00", prev="0" * 64)
    good = records.record(**fields, event=ev.DiceRolled(action=1, roller="A", purpose="p", faces=(1, -1),
                                                         source="entered"))
    assert records.checked(records.body(good)) == good
    for wrong in (ev.DiceRolled(action=1, roller="A", purpose="p", faces=(1, 5000), source="entered"),
                  ev.DiceRolled(action=0, roller="A", purpose="p", faces=(1,), source="entered"),
                  ev.DiceRolled(action=1, roller=("A",), purpose="p", faces=(1,), source="entered"),  # type: ignore[arg-type]
                  ev.DiceRolled(action=1, roller="A", purpose="p", faces=(1,), source="guessed")):  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            records.checked(records.body(records.record(**fields, event=wrong)))


def test_an_event_given_as_its_model_is_appended_as_its_struct() -> None:
    """A ruleset of another package may still build a built-in event from events.models: the record takes it
    as its struct, and writes the same bytes."""
    from fudge_combat.events import models, structs as ev

    fields = dict(fight="f", seq=1, command="c", issued=None, at="2026-01-01T00:00:00.000+00:00", prev="0" * 64)
    model = models.WoundMarked(action=3, combatant="A", level=2, damage=4, notes=("F-WND-3",))
    made = records.record(**fields, event=model)
    assert made.event == ev.WoundMarked(action=3, combatant="A", level=2, damage=4, notes=("F-WND-3",))
    assert records.checked(records.body(made)) == made
