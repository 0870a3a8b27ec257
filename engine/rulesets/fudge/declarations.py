"""Declarations: sealed ones (A-SEAL-1) opened and checked, those in force for a blow, those that add up
before a rolled initiative, and the round a simultaneous blow starts.

Part of the shared toolkit every ruleset builds on (it imports no ruleset).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace as with_fields

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.sides import combatant
from fudge_combat.events import structs as ev
from fudge_combat.events.records import canonical
from fudge_combat.engine.kernel.state import FightState

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.command_structs import Reveal


def seal_text(declaration: ev.Declaration) -> str:
    """A-SEAL-1: the text a seal hashes after its salt: the declaration's canonical JSON. A player's page
    seals with it on the player's own device (cli.web.players), so this text is the seal's whole format."""
    blank = ev.Declaration()
    # fields added later count only when set, so seals made before them still open
    data = {k: v for k, v in msgspec.to_builtins(declaration).items()
            if k in ("all_out", "posture") or v != getattr(blank, k)}
    return canonical(data)


def seal_of(declaration: ev.Declaration, salt: str) -> str:
    """A-SEAL-1: the hash a sealed declaration is stored as: SHA-256 of the salt and `seal_text`, in hex."""
    return hashlib.sha256((salt + seal_text(declaration)).encode()).hexdigest()


def reveal_events(state: FightState, reveals: Sequence[Reveal]) -> list[ev.Event]:
    """A-SEAL-1: open the seals this action needs; each must match what was sealed."""
    out: list[ev.Event] = []
    for reveal in reveals:
        who = combatant(state, reveal.combatant)
        sealed = state.sealed.get(who.key)
        if sealed is None:
            raise RuleError(f"{who.name} has no sealed declaration to reveal")
        if seal_of(reveal.declaration, reveal.salt) != sealed[0]:
            raise RuleError(f"{who.name}'s revealed declaration does not match its seal (A-SEAL-1)")
        out.append(ev.DeclarationRevealed(combatant=who.name, round=state.round,
                                          declaration=reveal.declaration, salt=reveal.salt))
    return out


def declarations_after(state: FightState, reveals: Sequence[Reveal],
                       fresh: bool = False) -> dict[str, ev.Declaration]:
    """The declarations in force once these seals are opened (`fresh`: in a round just started, only those)."""
    out = {} if fresh else dict(state.declarations)
    for reveal in reveals:
        out[reveal.combatant.lower()] = reveal.declaration
    return out


def round_events(state: FightState, names: Sequence[str]) -> list[ev.Event]:
    """Simultaneous pace: a fighter who already fought this round starts the next one."""
    if state.options.pace != "simultaneous":
        return []
    if state.round == 0 or any(n.lower() in state.fought for n in names):
        return [ev.RoundStarted(round=state.round + 1)]
    return []


def merged_declaration(pending: tuple[int, ev.Declaration] | None, number: int,
                       new: ev.Declaration) -> ev.Declaration:
    """Declarations made before a rolled initiative (F-INIT-3, AI-WAIT, AI-POST) add up: a second one for the
    same round keeps what the first chose unless it chooses that again (`fudge undo` takes one back)."""
    if pending is None or pending[0] != number:
        return new
    blank = ev.Declaration()
    kept = {name: getattr(pending[1], name) for name in ev.Declaration.__struct_fields__
            if getattr(new, name) == getattr(blank, name)}
    return with_fields(new, **kept)
