"""A fold's private, mutable working copy of `FightState`.

`evolve` and every handler treat states as values: `replace(state, ...)` makes
a new `FightState` with some fields changed, and the old one stays as it was
(as-of views, undo and `evolve_all` keep and compare older states). A fold
keeps none of its intermediate states, yet each event's handler copied the
30-odd fields of the state once or twice: about half of what folding an
event cost.

`fold` therefore works on a `Draft`: one copy of the state it starts from,
which `projections.state.replace` changes in place instead of copying. The
handlers are the same functions, unchanged; a draft never leaves the fold:
`freeze` turns it back into a plain `FightState` before it is returned.

Why this is the same result as folding with `evolve`:
- only the draft itself is changed in place; what it holds (mappings,
  combatants, actions, tracks) is replaced, never mutated, as in any state;
- every handler reads the state it is given before it replaces it, and
  reads only the newest state after that (each `s = replace(s, ...)` or
  `s = _remember(s, ...)` rebinds `s`); a handler that kept the state it was
  given and read it after a replace would see the change (the property test
  in tests/test_fold_draft.py compares the two folds over whole fights, and
  a new handler must keep to this);
- the draft is a copy: the state the fold started from is never changed.
"""

from __future__ import annotations

from typing import Any

from engine import state as _state
from engine.state import FightState

_FIELDS = frozenset(FightState.__dataclass_fields__)
_set = object.__setattr__  # FightState is frozen; a draft is its one exception


class Draft(FightState):
    """A `FightState` that one fold owns: `replace` changes it in place."""

    __slots__ = ()  # the same layout as FightState, so `freeze` can give it back its class


def _update(draft: Draft, changes: dict[str, Any]) -> Draft:
    if not changes.keys() <= _FIELDS:
        raise TypeError(f"FightState has no field {sorted(changes.keys() - _FIELDS)[0]!r}")
    for name, value in changes.items():
        _set(draft, name, value)
    return draft


_state._COPIERS[Draft] = _update  # projections.state.replace on a Draft: in place


def draft_of(state: FightState) -> Draft:
    """A mutable copy of `state` (which is left as it was)."""
    draft = _state.replace(state)  # a new FightState (the generated copy), then made a draft
    _set(draft, "__class__", Draft)
    return draft  # type: ignore[return-value]


def freeze(state: FightState, **changes: Any) -> FightState:
    """The fold's result as a plain, immutable `FightState`, with `changes` made.

    A draft becomes one by changing its class back (no copy: nothing else
    holds the draft). Anything else (a handler may return a new state of its
    own) is copied as usual.
    """
    if type(state) is not Draft:
        return _state.replace(state, **changes) if changes else state
    _update(state, changes)
    _set(state, "__class__", FightState)
    return state
