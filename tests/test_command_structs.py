"""A-LOG-1, A-VERIFY-1: the commands the engine decides are structs derived from their pydantic models
(engine.derive); the two agree on every command.

For random commands of every kind (every field drawn from its annotation: its literals, its bounds, texts,
absent options, nested parts), the struct is written into a log's `issued` dump exactly as its model writes
it, the dump reads back into the same struct and the same model, and a value the struct refuses is refused
by the model, in the model's words.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.command_marks import field_hints

KINDS = list(get_args(cmd.Command))


def values(hint: Any) -> st.SearchStrategy[Any]:
    """Values of a struct's annotation, within its bounds."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is typing.Annotated:
        bounds = [m for m in args[1:] if isinstance(m, msgspec.Meta)]
        if args[0] is int and bounds:
            return st.integers(bounds[0].ge if bounds[0].ge is not None else -5,
                               bounds[0].le if bounds[0].le is not None else 5)
        if args[0] is str and bounds:
            return st.text("abc ", min_size=bounds[0].min_length or 0, max_size=min(bounds[0].max_length or 8, 8))
        return values(args[0])
    if hint is str:
        return st.text("abcé ", max_size=6)
    if hint is int:
        return st.integers(-3, 9)
    if hint is bool:
        return st.booleans()
    if hint is type(None):
        return st.none()
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (Union, types.UnionType):
        return st.one_of(*(values(arg) for arg in args))
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return st.lists(values(args[0]), max_size=2).map(tuple)
    if origin is tuple:
        return st.tuples(*(values(arg) for arg in args))
    if origin is dict:
        return st.dictionaries(st.text("ab", max_size=3), st.integers(0, 3), max_size=2)
    if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        return st.fixed_dictionaries({name: values(field) for name, field in field_hints(hint) if name != "type"}).map(
            lambda fields: hint(**fields))
    raise TypeError(f"no values for {hint!r}")


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_command_struct_is_written_and_read_as_its_model(kind: type) -> None:
    model = cmd.command_model(kind.__name__)
    assert [name for name, _ in field_hints(kind)] == list(model.model_fields)

    @settings(max_examples=40, deadline=None)
    @given(values(kind))
    def agree(command: Any) -> None:
        dump = cmd.issued_dump(cmd.valid(command))
        assert dump == model.model_validate(dump).model_dump(mode="json")
        assert msgspec.json.encode(dump) == msgspec.json.encode(model.model_validate(dump).model_dump(mode="json"))
        assert cmd.read_issued(dump, "fudge") == command

    agree()


@pytest.mark.parametrize(("command", "words"), [
    (cmd.Rest(weeks=53), "less than or equal to 52"),
    (cmd.MarkCondition(combatant="Ann", condition=""), "at least 1 character"),
    (cmd.Leave(combatant="Ann", how="ran"), "Input should be 'fled', 'surrendered' or 'left'"),  # type: ignore[arg-type]  # the wrong value tried
    (cmd.Barter(combatant="Ann", trade=0, alter=1, direction=2), "Input should be 1 or -1"),  # type: ignore[arg-type]  # the wrong value tried
    (cmd.Attack(attacker="Ann", target=3), "Input should be a valid string"),  # type: ignore[arg-type]  # the wrong value tried
])
def test_a_command_built_with_a_wrong_value_is_refused_in_its_models_words(command: Any, words: str) -> None:
    with pytest.raises(ValidationError) as refused:
        cmd.valid(command)
    assert words in refused.value.errors()[0]["msg"], refused.value.errors()


def test_what_the_struct_refuses_is_read_by_the_model_as_a_command_always_was() -> None:
    """A command built in code with a value the struct's strict types refuse is read by its model, as every
    command was before the structs: a number given as text is the number, bytes are text, a part given as its
    model is its struct; text that is not UTF-8 is refused in the words the shell turns into its one line."""
    from fudge_combat.cli.context import edge_message
    from fudge_combat.engine.rulesets.fudge.commands_blows import Targeting

    assert cmd.valid(cmd.Rest(weeks="3")) == cmd.Rest(weeks=3)  # type: ignore[arg-type]  # a number as text
    assert cmd.valid(cmd.Leave(combatant=b"Ann")) == cmd.Leave(combatant="Ann")  # type: ignore[arg-type]  # bytes
    aimed = cmd.Attack(attacker="Ann", target="Bob", targeting=Targeting(aim=2, aim_at="eye"))  # type: ignore[arg-type]  # the model
    assert cmd.valid(aimed) == cmd.Attack(attacker="Ann", target="Bob", targeting=cmd.Targeting(aim=2, aim_at="eye"))
    with pytest.raises(ValidationError) as refused:
        cmd.valid(cmd.MarkCondition(combatant="Ann", condition="da\udcffzed"))  # a byte that is not UTF-8, as Python keeps it
    assert edge_message(refused.value) == ("a value given is not UTF-8 text (byte 0xff): type it in UTF-8; "
                                           "nothing was written")
    with pytest.raises(ValidationError) as refused:
        cmd.valid(cmd.Rest(weeks=53))
    assert edge_message(refused.value) == "weeks: Input should be less than or equal to 52"
