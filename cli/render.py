"""Text and JSON views of projections and events (stdout only)."""

from __future__ import annotations

from typing import Any

import msgspec

from fudge_combat.cli.terminal import safe
from fudge_combat.engine.evolve import describe
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded

# `fudge status`'s text and JSON are the read model's (projections.status): the shell prints them.
from fudge_combat.projections.status import (card as card, declaration_text as declaration_text,
                                             initiative_json as initiative_json, status_json as status_json,
                                             status_text as status_text)


def line(event: Any, state: FightState, seq: int | None = None) -> str:
    """An event's line in the words of the fight it belongs to (its ladder; fate points under Fate).

    `state` is the state after the event, or later with `seq` the event's own number (a command's
    output shows its events with the state after the command): a wound line is read from it, so
    `log`, `replay` and a command's output say the same. One line, whatever its names hold: control
    characters from sheets and logs are shown escaped.
    """
    if isinstance(event, ev.WoundMarked):
        who = state.find(event.combatant)
        if who is not None:
            return safe(wound_line(event, state, who, seq))
    rules = ruleset_of(state)
    own = rules.line(event, state)  # the ruleset's own words for one of its events (Fate's Taken Out)
    if own is not None:
        return safe(own)
    return safe(describe(event, state.ladder, points=rules.points))


def wound_line(event: ev.WoundMarked, state: FightState, who: Combatant, seq: int | None) -> str:
    """F-WND-3, F-WND-4, F-WND-1: the level the fighter ends at (overflow included), consequence first when he is out."""
    from fudge_combat.engine.rulesets.fudge.tracks import track_of
    track = who.track
    if seq is not None and any(m.seq > seq for m in who.marks):
        track = track_of(who.fighter, who.boxes, [m for m in who.marks if m.seq <= seq], state.options, who.out)
    how = " (Still Ticking)" if event.still_ticking else ""
    if event.halved_from is not None and event.halved_from != event.level:
        how += f" (halved from {LEVELS[event.halved_from]})"
    how += "".join(f" ({note})" for note in event.notes)
    ends = track.level
    article = "an" if LEVELS[event.level][0] in "AEIOU" else "a"
    blow = f"{article} {LEVELS[event.level]} blow"
    if track.dead:
        return f"{event.combatant} is dead: {blow}{how}"
    if not track.can_act:
        return f"{event.combatant} is out of the fight ({LEVELS[ends]}){': ' + blow if ends != event.level else ''}{how}"
    return f"{event.combatant} is wounded: {LEVELS[ends]}{f' ({blow})' if ends != event.level else ''}{how}"


def log_json(records: list[Recorded], voided: dict[int, int]) -> list[dict[str, Any]]:
    out = []
    for r in records:
        payload = msgspec.to_builtins(r.event)
        out.append({"seq": r.seq, "type": r.event.type, "command": r.command, "at": r.at,
                    "voided": r.seq in voided, "voided_by": voided.get(r.seq), "issued": r.issued,
                    **{k: v for k, v in payload.items() if k not in ("type",)}})
    return out
