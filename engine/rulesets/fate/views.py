"""What the views show of Fate's part of the state (`rulesets.fate.state`), asked through Fate's Reading
(`engine.kernel.reading`): the scene (FT-SCENE), the round's Alertness order and who still has a turn in it
(FT-INIT), a fighter's boxes
on the board and in `fudge status` (FT-TRACK), the line of a box marked in the log, the aspects he invoked
(FT-PTS), and which fighters' lines a change of the part touches. The views never read the part themselves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fudge_combat.engine.kernel.pmap import changed_keys
from fudge_combat.engine.kernel.reading import BoxRow, PointUse, TrackLine
from fudge_combat.engine.rulesets.fate.describe import _box as box_text
from fudge_combat.engine.rulesets.fate.state import INITIAL, FateState, fate_of
from fudge_combat.events import structs as ev

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import Combatant, FightState

LETTERS = ("C", "H", "I", "T")  # the board's short names of the boxes: clipped, hurt, injured, taken out
KINDS = {None: "ok", "Clipped": "wound1", "Hurt": "wound2", "Injured": "wound3"}  # the worst box's kind (else wound4)
BY_COMBATANT = ("marks", "aspects")  # the part's maps keyed by combatant that a fighter's lines read


def scene(state: FightState) -> int:
    """The scene the fight is in (FT-SCENE)."""
    return fate_of(state).scene


def own_order(state: FightState) -> tuple[tuple[str, ...], frozenset[str]]:
    """This round's Alertness order and who has had his turn in it (FT-INIT)."""
    part = fate_of(state)
    return part.order, part.acted


def to_act(state: FightState) -> Iterator[Combatant]:
    """Who still has a turn this round, in Alertness order (FT-INIT): the rules' reading, loaded when asked."""
    from fudge_combat.engine.rulesets.fate.rules import still_to_act

    return still_to_act(state)


def track(state: FightState, who: Combatant) -> TrackLine:
    """A fighter on Fate's boxes (FT-TRACK): the worst box marked, the penalty on the next roll, out once
    Taken Out (FT-TRACK-3), dead, or gone."""
    from fudge_combat.engine.rulesets.fate.rules import penalty_view

    view = penalty_view(state, who)
    marked = view["boxes"]
    worst = next((name for name in reversed(list(view["capacity"])) if marked[name]), None)
    level = worst or "Unharmed"
    total = view["total_next_action"]
    if total and not view["taken_out"]:
        level += f" {total:+d}"
    out = ("DEAD" if who.track.dead else "OUT of the fight (Taken Out)" if view["taken_out"]
           else f"OUT of the fight ({who.left})" if who.left else "")
    rows = tuple(BoxRow(letter, name, marked[name], capacity)
                 for (name, capacity), letter in zip(view["capacity"].items(), LETTERS))
    return TrackLine(out, level, "out" if out else KINDS.get(worst, "wound4"), rows,
                     0 if view["taken_out"] else total, bool(view["taken_out"]))


def status_json(state: FightState, who: Combatant) -> dict[str, Any]:
    """`fudge status --json`'s keys of a fighter's own: Fate's stress boxes, consequences, penalties and
    aspects (FT-TRACK)."""
    from fudge_combat.engine.rulesets.fate.rules import penalty_view

    return {"fate": penalty_view(state, who)}


def status_lines(state: FightState, who: Combatant) -> list[str]:
    """A Fate combatant's lines of the status text: boxes, penalties, fate points and aspects (FT-TRACK)."""
    from fudge_combat.engine.rulesets.fate.rules import penalty_view

    view = penalty_view(state, who)
    boxes = "  ".join(f"{name} " + "[x]" * view["boxes"][name] + "[ ]" * max(0, cap - view["boxes"][name])
                      for name, cap in view["capacity"].items())
    lines = [f"    {boxes}"]
    if who.track.dead:
        lines.append("    dead (the GM's ruling)")
    elif view["taken_out"]:
        lines.append("    taken out: out of the fight")
    else:
        hurt = "hurt -1 when the GM says (scene pace)" if view["hurt_narrative"] else f"{view['scene']:+d}"
        lines.append(f"    penalties: next action {view['next_action']:+d}, this scene {hurt}, "
                     f"beyond the scene {view['beyond_scene']:+d} (next roll {view['total_next_action']:+d})")
    aspects = ", ".join(f"{name} {'[x]' * len(a['checked'])}{'[ ]' * (a['boxes'] - len(a['checked']))}"
                        for name, a in view["aspects"].items())
    lines.append(f"    fate points {view['fate_points']}{'; aspects ' + aspects if aspects else ''}")
    return lines


def line(event: Any, state: FightState) -> str | None:
    """FT-TRACK-2: the box marked (after overflow, so the box he ends in), the consequence first when it takes
    the fighter out; the declared line of every other event."""
    if not isinstance(event, ev.FateBoxMarked):
        return None
    said = box_text(event, state.ladder)
    if event.box == "taken_out":
        return said.replace(f"{event.combatant} is Taken Out", f"{event.combatant} is out of the fight: Taken Out", 1)
    return said


def invoked(state: FightState, who: Combatant) -> int:
    """How many aspects he invoked (FT-PTS: each a box checked)."""
    return len(fate_of(state).aspects.get(who.key, ()))


def point_uses(state: FightState, who: Combatant) -> tuple[PointUse, ...]:
    """FT-PTS, as a player asks: a fate point for +1 to the latest roll (`fudge fate point`), or a box of
    one of his aspects still open checked for a reroll of it (`fudge fate aspect`)."""
    checked = fate_of(state).aspects.get(who.key, ())
    uses = [PointUse("fate-point", "spends a fate point: +1 to the latest roll", ("fate", "point", who.name))]
    for aspect, boxes in who.fighter.sheet.aspects.items():
        if sum(1 for name, _ in checked if name == aspect) < boxes:
            uses.append(PointUse(f"aspect:{aspect}", f"invokes the aspect {aspect}: a reroll of the latest roll",
                                 ("fate", "aspect", who.name, aspect)))
    return tuple(uses)


def touched(was: Any, now: Any) -> set[str]:
    """The fighters whose lines may differ between two of Fate's parts of one fight: boxes marked or
    aspects checked, the clipped -1 come or gone, and everyone in an order that changed (the board shows
    each one's place in it)."""
    old, new = _part(was), _part(now)
    dirty: set[str] = set()
    for name in BY_COMBATANT:
        dirty |= changed_keys(getattr(old, name), getattr(new, name))
    dirty |= old.clip ^ new.clip
    if old.order != new.order:
        dirty |= {*old.order, *new.order}
    return dirty


def _part(part: Any) -> FateState:
    return part if type(part) is FateState else INITIAL
