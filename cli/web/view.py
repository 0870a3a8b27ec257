"""The players' view of a fight: what a player's page may hold, filtered here, on the server, per viewer.

The GM's board (cli.board) shows everything; a player's page shows each fighter as a card (name, side,
wounds, points, conditions, whose turn) and the latest commands as plain sentences ("Brynhild hits Grok.
Grok is badly hurt."). The mechanics behind them (relative degree, damage factor, initiative, seeds) are
kept apart, for the page's "details" switch.

A fighter whose wounds the GM shows in words (cli.web.wounds) is filtered out of every part of it before
anything is rendered: his card has a word ("hurt", "badly hurt", "down", "out") and no boxes, level or
penalty; a sentence about him says the word; a mechanics line that names him is left out (a blow's line
carries its damage and his wound penalty). Hiding with CSS would leave the exact wounds in the bytes sent.

Texts here are plain (from sheets and logs, untrusted): cli.web.html escapes every one of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from fudge_combat.engine.kernel.words import possessive
from fudge_combat.projections.board import ROWS, acted, declaration, fudge_track, initiative, track, turn_order
from fudge_combat.cli.web.story import Step
from fudge_combat.cli.web.wounds import WoundView
from fudge_combat.projections.status import condition_words
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.engine.turns import current_actor, still_fights
from fudge_combat.events import structs as ev

WORDS = ("unhurt", "hurt", "badly hurt", "down", "out")
SIDE_COLOURS = 8  # cli.web.html's palette: sides past the eighth share its colours again
MANY = 8  # boxes in a row past which the card counts them ("3/12") rather than draws them
# A mechanics line that names a fighter shown in words is left out, unless its event is one of these:
# they say nothing of wounds (a die's faces, a join's sheet, a sealed declaration's hash).
HARMLESS = (ev.DiceRolled, ev.CombatantJoined, ev.DeclarationSealed, ev.RoundStarted)


def board(state: FightState, view: WoundView) -> dict[str, Any]:
    """The page's head (fight, round or scene, phase, whose turn) and one card a fighter, in turn order."""
    rules = ruleset_of(state)
    actor = current_actor(state)
    over = bool(state.ended_through and state.ended_through == state.last_seq)
    turn = None
    if actor is not None and not over:
        step = {"declare": " (declares)", "resolve": " (resolves)", "held": " (holds)"}.get(
            state.turn.step if state.turn is not None else "", "")
        turn = f"{actor.name}'s turn{step}"
    where = []
    if rules.scene is not None:
        where.append(f"scene {rules.scene(state)}")
    if rules.plays_rounds(state.options.pace):
        where.append(f"round {state.round}" if state.round else "before the first round")
    if state.turn is not None:
        if state.options.initiative in ("opposed", "ranked"):
            where.append(f"initiative {state.turn.phase:+d}")
        else:
            from fudge_combat.engine.kernel.initiative import PHASE_NAME

            where.append(f"phase {PHASE_NAME[state.turn.phase]}")
    sides = side_colours(state)
    done = acted(state)
    cards = [card(state, state.combatants[key], view, sides, actor is not None and key == actor.key and not over,
                  done.get(key)) for key in turn_order(state)]
    standing = {who.side for who in state.combatants.values() if still_fights(state, who)}
    note = ""
    if over:
        note = "the battle is over"
    elif not state.combatants:
        note = "no fighters yet"
    elif len(sides) > 1 and len(standing) == 1:
        note = f"only {possessive(next(iter(standing)))} side is standing"
    elif len(sides) > 1 and not standing:
        note = "nobody is standing"
    return {"fight": state.name, "rules": state.rules, "where": where, "turn": turn, "note": note,
            "points": rules.points, "fighters": cards}


def side_colours(state: FightState) -> dict[str, int]:
    """Each side's colour, by the order sides first joined: the same on every page and after every restart
    (a log only grows), and distinct for the first SIDE_COLOURS sides."""
    order: dict[str, int] = {}
    for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq):
        order.setdefault(who.side, len(order) % SIDE_COLOURS)
    return order


def card(state: FightState, who: Combatant, view: WoundView, sides: Mapping[str, int], current: bool,
         done: str | None) -> dict[str, Any]:
    """One fighter's card. In words: the word alone; exact: the level, penalty and every box."""
    words = view.in_words(who)
    shown: dict[str, Any] = {"name": who.name, "side": who.side, "colour": sides.get(who.side, 0),
                             "current": current, "word": wound_word(state, who),
                             "points": who.fudge_points, "acted": done or "",
                             "conditions": conditions(state, who, words), "shown": "words" if words else "exact",
                             "details": [*initiative(state, who)]}
    said = declaration(state, who)
    if said:
        shown["declared"] = said
    if not words:
        shown.update(exact(state, who))
    return shown


def wound_word(state: FightState, who: Combatant) -> str:
    """unhurt, hurt, badly hurt, down (cannot act: incapacitated, near death, knocked out) or out (dead,
    taken out)."""
    own = ruleset_of(state).track
    if own is not None:  # the ruleset's own boxes (Fate's, FT-TRACK)
        seen = own(state, who)
        if who.track.dead or seen.boxes_out:
            return "out"
        worst = next((i for i, row in reversed(list(enumerate(seen.rows))) if row.filled), None)
        return WORDS[0] if worst is None else WORDS[1] if worst < 2 else WORDS[2]
    if who.track.dead:
        return "out"
    if not still_fights(state, who):
        return "down"
    level = who.track.level
    return WORDS[0] if level == 0 else WORDS[1] if level <= 2 else WORDS[2]


def exact(state: FightState, who: Combatant) -> dict[str, Any]:
    """The wound track as the GM sees it: the level, the penalty on the next roll, and each row of boxes
    (Fudge: Scratch to Near Death, F-WND; Fate: clipped, hurt, injured, taken out, FT-TRACK)."""
    own = ruleset_of(state).track
    if own is not None:  # the ruleset's own boxes (Fate's, FT-TRACK)
        seen = own(state, who)
        out, level, severity = seen.out, seen.level, seen.kind
        rows = [{"label": row.label, "filled": row.filled, "boxes": row.boxes} for row in seen.rows]
        penalty = seen.penalty
    else:
        from fudge_combat.engine.rulesets.fudge.sides import acting_wound

        out, level, severity, _ = fudge_track(state, who)
        _, penalty = acting_wound(state, who)
        rows = [{"label": LEVELS[index + 1], "short": ROWS[index], "filled": sum(1 for box in row if box is not None),
                 "boxes": len(row)} for index, row in enumerate(who.track.boxes) if row]
        penalty = penalty if who.track.can_act else 0
    level = level.rsplit(" ", 1)[0] if penalty and level.endswith(f"{penalty:+d}") else level
    return {"level": level, "penalty": penalty, "severity": severity, "out": out, "track": rows}


def conditions(state: FightState, who: Combatant, words: bool) -> list[str]:
    """What else the table sees on him: stunned, knocked out or gone, the conditions the GM marked (with their
    notes and the round they last to). Exactly shown: his wounded parts (F-LOC-2) too."""
    out: list[str] = []
    if who.stunned:
        effect, until = who.stunned
        out.append(f"{effect.replace('_', ' ')} until round {until}" if until else effect.replace("_", " "))
    if who.out and not who.track.dead:
        out.append(who.out)
    out += condition_words(who)  # marked by the GM (`fudge mark`): shown, never applied to a roll
    if not words:
        from fudge_combat.engine.rulesets.fudge.locations import LOCATION_LEVELS

        out += [f"{part} {LOCATION_LEVELS[level]}" for part, (level, _) in sorted(who.locations.items())]
    return [text for text in dict.fromkeys(out) if text]


# --- the latest commands, in sentences ----------------------------------------------------------------

def story(steps: Sequence[Step], events: Mapping[int, Any], view: WoundView) -> list[dict[str, Any]]:
    """The commands, newest first: each its plain sentences and, apart, its mechanics lines filtered (a
    line naming a fighter shown in words is left out). `events`: each seq's event."""
    out = []
    for step in reversed(steps):
        if step.before is None or step.after is None:
            continue
        said = sentences(step.before, step.after, [events[seq] for seq, _, _ in step.lines if seq in events], view)
        hidden = [who.name for who in step.after.combatants.values() if view.in_words(who)]
        mechanics = []
        for seq, text, by in step.lines:
            event = events.get(seq)
            if hidden and not isinstance(event, HARMLESS) and (
                    event is None or mentions(text, hidden) or mentions(words_of(event), hidden)):
                continue
            mechanics.append(f"{seq} {text}" + (f" (undone by {by})" if by is not None else ""))
        if said or mechanics:
            out.append({"said": said, "mechanics": mechanics, "undone": step.undone})
    return out


def sentences(before: FightState, after: FightState, events: Iterable[Any], view: WoundView) -> list[str]:
    """What a command did, in words a player reads at a glance: rounds, joins, blows, points, wounds."""
    out: list[str] = []
    if after.round > before.round:
        out.append(f"Round {after.round} begins.")
    scene = ruleset_of(after).scene
    if scene is not None and scene(after) > scene(before):
        out.append(f"Scene {scene(after)} begins.")
    out += [f"{who.name} joins the fight ({who.side})." for key, who in after.combatants.items()
            if key not in before.combatants]
    points = ruleset_of(after).points
    for event in events:
        out += blow(event, points)
    for key, now in after.combatants.items():
        was = before.combatants.get(key)
        if was is None:
            continue
        if view.in_words(now):
            old, new = wound_word(before, was), wound_word(after, now)
        else:
            old, new = fudge_or_fate_level(before, was), fudge_or_fate_level(after, now)
        if old != new:
            out.append(f"{now.name} is {new}.")
        if now.stunned and now.stunned != was.stunned:
            out.append(f"{now.name} is {now.stunned[0].replace('_', ' ')}.")
    if after.ended_through > before.ended_through:
        out.append("The battle is over.")
    actor, was = current_actor(after), current_actor(before)
    if actor is not None and (was is None or was.key != actor.key) and after.ended_through != after.last_seq:
        out.append(f"{actor.name}'s turn.")
    return list(dict.fromkeys(out))


def fudge_or_fate_level(state: FightState, who: Combatant) -> str:
    """The exact level in words: "Very Hurt", "out of the fight (Incapacitated)", "dead", "unhurt"."""
    out, level, _, _ = track(state, who)
    if who.track.dead:
        return "dead"
    if out:
        return out.replace("OUT", "out")
    level = level.split(" -")[0].split(" +")[0]
    return "unhurt" if level in ("Undamaged", "Unharmed") else level


def blow(event: Any, points: str) -> list[str]:
    """The sentence of a blow, a roll, a point or a take-back: who did what to whom, no numbers."""
    if isinstance(event, (ev.ExchangeResolved, ev.ShotResolved)):
        hits = [f"{h.attacker} {'grazes' if h.graze else 'hits'} {h.defender}." for h in event.hits]
        if hits:
            return hits
        names = [side.combatant for side in event.sides]
        if isinstance(event, ev.ShotResolved):
            return [f"{names[0]} shoots at {event.target} and misses."]
        if event.kind == "exchange" and len(names) > 1:
            return [f"{names[0]} and {names[1]} trade blows: neither is hit."]
        return [f"{names[0]} attacks {names[1] if len(names) > 1 else 'and'} and misses."]
    if isinstance(event, ev.MeleeResolved):
        return [f"{event.lone.combatant} fights {', '.join(foe.combatant for foe in event.foes)} at once."]
    if isinstance(event, ev.FateResolved):
        out = []
        for contest in event.contests:
            struck = contest.outcome not in ("", "none")
            out.append(f"{contest.attacker} {'hits' if struck else 'attacks'} {contest.defender}"
                       f"{'' if struck else ' without effect'}.")
        if not out and event.sides:
            out.append(f"{' and '.join(side.combatant for side in event.sides)}: nobody is affected.")
        return out
    if isinstance(event, (ev.ActionResolved, ev.StoryRolled)):
        return [f"{event.combatant} tries {event.trait}."]
    if isinstance(event, ev.FudgePointSpent):
        return [f"{event.combatant} spends {'a' if event.cost == 1 else event.cost} {points} "
                f"point{'s' if event.cost != 1 else ''}."]
    if isinstance(event, ev.AspectChecked):
        return [f"{event.combatant} invokes {event.aspect}."]
    if isinstance(event, ev.DeclarationSealed):
        return [f"{event.combatant} declares, sealed."]
    if isinstance(event, ev.DeclarationRevealed):
        return [f"{event.combatant}'s sealed declaration is revealed."]
    if isinstance(event, ev.CommandUndone):
        return ["The GM takes a command back."]
    if isinstance(event, ev.CommandRedone):
        return ["The GM brings a command back."]
    return []


def mentions(text: str, names: Sequence[str]) -> bool:
    """Does `text` hold one of `names` (any case)? A name inside a longer word counts: a line left out
    that need not be costs a detail, a line kept that should not be would show a hidden wound."""
    low = text.lower()
    return any(name.lower() in low for name in names)


def words_of(event: Any) -> str:
    """Every text an event holds, at any depth: what a hidden fighter's name is looked for in."""
    return " ".join(texts(msgspec.to_builtins(event)))


def texts(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from texts(item)


def title(state: FightState) -> str:
    return f"{state.name} · round {state.round}" if state.round else state.name

