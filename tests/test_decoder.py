"""A-LOG-1, A-LOG-2: the derived decoder (events.decoder) reads every stored body as the pydantic models do.

The models are the schema; the decoder's structs are generated from them. What must hold:
- every golden body (schema 1, full) and its compact form (schema 2), the compact bodies of the types added
  since (fixtures/schema2_bodies.jsonl), and every row of random fights of
  every ruleset, decodes to a struct with the same value in every field as pydantic's record;
- a body changed anywhere (a value of another type, a lax form pydantic's JSON mode coerces, an unknown
  field, a field left out) is either refused by the decoder (pydantic then decides), or taken by both
  with the same values: the decoder never takes a body the models refuse, nor reads one differently.
"""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from fudge_combat.events import models as ev
from fudge_combat.events import derive, records
from fudge_combat.events.decoder import Refused, decoder, structs
from fudge_combat.events.derive import Deriver
from fudge_combat.events.envelope import Recorded, load
from tests.test_fold_draft import FIGHTERS, fight_log
from tests.test_stored_rows import compact, new_type_bodies, old_bodies, old_logs


def same(model: Any, struct: Any) -> bool:
    """The struct holds what the pydantic value holds: field by field, the same types and values."""
    if isinstance(model, BaseModel):
        return (structs().get(type(struct)) is type(model)
                and all(same(getattr(model, name), getattr(struct, name)) for name in type(model).model_fields))
    if isinstance(model, tuple):
        return type(struct) is tuple and len(model) == len(struct) and all(map(same, model, struct))
    return type(model) is type(struct) and model == struct


def bodies_of(log: list[Any]) -> list[str]:
    """The stored bodies of a simulated fight's records (the simulator keeps lighter records)."""
    return [records.body(records.record(fight=r.fight, seq=r.seq, command=r.command, issued=None,
                                        at="2026-01-01T00:00:00.000+00:00", prev="0" * 64, event=r.event)) for r in log]


def golden_bodies() -> list[str]:
    logged = [row["body"] for log in old_logs() for row in log]
    return old_bodies() + logged + [compact(records.load(body)) for body in old_bodies() + logged] + new_type_bodies()


def test_every_golden_body_decodes_to_the_records_values() -> None:
    bodies = golden_bodies()
    decode = decoder()
    assert {load(body).event.type for body in bodies} >= {m.model_fields["type"].default for m in structs().values()
                                                          if "type" in m.model_fields}
    for body in bodies:
        assert same(load(body), decode(body)), body


@pytest.mark.parametrize("preset", sorted(FIGHTERS))
def test_random_fights_decode_to_the_records_values(preset: str) -> None:
    decode = decoder()
    for index in range(3):
        for body in bodies_of(fight_log(preset, "sensible", True, index)):
            assert same(load(body), decode(body)), body


def test_every_event_type_has_a_struct_answering_its_type() -> None:
    by_model = {model: struct for struct, model in structs().items()}
    for model in (ev.DiceRolled, ev.ExchangeResolved, ev.FateResolved, ev.InjuryRecovered):
        assert by_model[model].type == model.model_fields["type"].default


ODD = ("3", 3.0, 3.5, 1, 0, True, False, None, "", "x", [], {}, [1], {"a": 1}, -1, 2**70, "generated", "NaN")


def paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a parsed body: each key of an object, each item of an array."""
    out = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += paths(item, (*path, index))
    return out


def changed(data: Any, path: tuple[Any, ...], how: str, odd: Any) -> Any:
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "replace":
        parent[last] = odd
    elif how == "drop" and isinstance(parent, dict):
        del parent[last]
    elif how == "extra" and isinstance(parent, dict):
        parent[f"{last}_unknown"] = odd
    elif how == "lax" and isinstance(parent[last], (int, float)) and not isinstance(parent[last], bool):
        parent[last] = str(parent[last]) if odd == "3" else float(parent[last])
    elif how == "lax" and isinstance(parent[last], bool):
        parent[last] = int(parent[last])
    return data


BODIES = golden_bodies()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(BODIES) - 1), st.data(), st.sampled_from(("replace", "drop", "extra", "lax")),
       st.sampled_from(ODD))
def test_a_changed_body_is_refused_or_read_as_pydantic_reads_it(index: int, data: st.DataObject, how: str,
                                                                  odd: Any) -> None:
    parsed = json.loads(BODIES[index])
    path = data.draw(st.sampled_from(paths(parsed)))
    body = json.dumps(changed(parsed, path, how, odd))
    try:
        struct = decoder()(body)
    except Refused:
        return  # pydantic decides: the caller hands it the body
    try:
        record = Recorded.model_validate_json(body)
    except ValidationError:
        pytest.fail(f"the decoder took a body the models refuse: {body}")
    assert same(record, struct), body


def test_the_structs_written_are_the_ones_the_models_give() -> None:
    """events/structs.py is written by events.derive from the models: a model changed since fails here, with the
    command that writes the file again."""
    assert derive.TARGET.read_text(encoding="utf-8") == derive.source(), (
        "events/structs.py is stale: run `python -m fudge_combat.events.derive`")
    assert set(structs().values()) >= set(typing.get_args(typing.get_args(ev.Event)[0])) | {Recorded}


def test_reading_the_log_builds_no_pydantic_model() -> None:
    """A process that only decodes bodies imports neither the models nor pydantic's model machinery."""
    code = ("import sys; from fudge_combat.events.decoder import decoder; "
            f"decoder()({golden_bodies()[0]!r}); "
            "print(sorted(m for m in sys.modules if m in ('pydantic.main', 'fudge_combat.events.models')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_model_with_a_validator_of_its_own_is_not_derived() -> None:
    class Checked(BaseModel):
        model_config = ConfigDict(frozen=True, extra="forbid")
        level: int

        @field_validator("level")
        @classmethod
        def small(cls, value: int) -> int:
            return value

    with pytest.raises(TypeError, match="validator"):
        Deriver().struct(Checked)


def test_a_model_allowing_unknown_fields_is_not_derived() -> None:
    class Open(BaseModel):
        level: int

    with pytest.raises(TypeError, match="unknown fields"):
        Deriver().struct(Open)
