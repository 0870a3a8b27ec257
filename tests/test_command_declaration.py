"""F-MOD-6, F-TAC-1, A-SEAL-1: a command's declaration is validated by the event's model and held as the events'
struct (engine.kernel.command_base; the command the engine decides is its derived struct, engine.derive).

A declaration comes as fields from a player's request, `fudge act`, or a command read back from the log; it
is read as the model reads it (its bounds, its leniency, its words for a wrong value), and the command holds
the same struct an event holds, so a command's declaration and an event's compare equal. Written back, it
is every field, as the model wrote it.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from fudge_combat.engine import commands as cmd
from fudge_combat.events import models, structs as ev

Declare = cmd.command_model("Declare")  # the command's model: what reads a request's fields


def test_a_declaration_given_as_fields_is_read_by_the_model_and_held_as_the_events_struct() -> None:
    given = Declare(combatant="Snorri", declaration={"all_out": "offense", "hasty": "yes", "posture": True})
    assert type(given.declaration) is ev.Declaration
    assert given.declaration == ev.Declaration(all_out="offense", hasty=True, posture=1)
    assert Declare(combatant="Snorri", declaration=ev.Declaration(sweep=True)).declaration == ev.Declaration(sweep=True)
    assert Declare(combatant="Snorri", declaration=models.Declaration(wait=2)).declaration == ev.Declaration(wait=2)
    dumped = given.model_dump(mode="json")["declaration"]
    assert dumped == models.Declaration(all_out="offense", hasty=True, posture=1).model_dump(mode="json")
    assert Declare.model_validate(given.model_dump(mode="json")) == given
    # the struct the engine decides holds the same declaration, and is written as the model writes it
    held = cmd.Declare(combatant="Snorri", declaration=given.declaration)
    assert cmd.issued_dump(held) == given.model_dump(mode="json")
    assert cmd.read_issued(given.model_dump(mode="json"), "fudge") == held


@pytest.mark.parametrize(("fields", "where", "words"), [
    ({"all_out": "bogus"}, ("declaration", "all_out"), "Input should be 'offense' or 'defense'"),
    ({"bogus": 1}, ("declaration", "bogus"), "Extra inputs are not permitted"),
    ({"posture": 5000}, ("declaration", "posture"), "Input should be less than or equal to 1000"),
    ({"wait": "x"}, ("declaration", "wait"), "Input should be a valid integer"),
    ("offense", ("declaration",), "Input should be a valid dictionary or instance of Declaration"),
])
def test_a_wrong_declaration_is_refused_in_the_models_words_at_its_place(fields: object, where: tuple[str, ...],
                                                                          words: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Declare(combatant="Snorri", declaration=fields)
    error = refused.value.errors()[0]
    assert error["loc"] == where and error["msg"].startswith(words), error
    # built in code as the struct, the command is refused in the same words before it is decided
    with pytest.raises(ValidationError) as refused:
        cmd.valid(cmd.Declare(combatant="Snorri", declaration=fields))  # type: ignore[arg-type]  # the wrong value tried
    error = refused.value.errors()[0]
    assert error["loc"] == where and error["msg"].startswith(words), error
