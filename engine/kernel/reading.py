"""What the read side asks a fight's ruleset: `ruleset_of(state)` (or `ruleset_named(name)`) answers
with that ruleset's `Reading`, so the views (cli/, projections/, sim/, service/) ask the ruleset
instead of comparing its name.

Each ruleset declares its `Reading` in its own package beside its Decider (`rulesets.fudge.reading`,
`rulesets.atari_isev.reading`, `rulesets.fate.reading`), and a variant is composed from the one it varies
(`dataclasses.replace`). They are modules apart from the Deciders because a view must not load the
rules: reading a Fudge fight's log never imports the Decider's tables and commands.

The layers run one way (the engine imports no view), so a `Reading` answers in data: words
(`points`, `battle`, `taken_out`), flags (`scenes`, `boxes`) and names. Where the answer is a
view's code, the Reading names it and the one view module that renders it holds one line per name
(`sheet` -> `cli.sheet.SHEETS`); a flag such as `boxes` picks between the wound track's views and Fate's
boxes', which each view already has. A new ruleset declares its `Reading` in its package's `reading` module (`kernel.registry`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fudge_combat.engine.kernel.registry import ruleset_module

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import Combatant, FightState


@dataclass(frozen=True)
class Reading:
    name: str  # the `ruleset` option that picks it
    points: str  # the points its fighters spend, as the views name them: "fudge" (C-FP) or "fate" (FT-PTS)
    battle: str  # what its fights are played in and ended by `end_command`: "battle" or "scene"
    end_command: str  # the command that ends one: "end" or "end-scene"
    scenes: bool  # it counts its scenes (Fate's part of the state: `scene`, FT-SCENE): the views say which scene
    round_paces: frozenset[str] | None  # the paces that play in rounds (None: every pace)
    boxes: bool  # harm is marked in Fate's boxes (FT-TRACK), not on the wound track (F-WND)
    taken_out: str  # why a fighter still alive is out of the fight, when it says one word for it ("": his track's)
    landed: str  # what the odds count as a blow that told
    ranked_rule: str  # the rule its rolled initiative totals follow (`fudge order` names it)
    ties_together: bool  # equal initiative totals act together (AI-INIT-2)
    blow_prefix: tuple[str, ...]  # the command group its blows are typed under (`fudge fate attack`)
    no_order: Callable[[str], str]  # the line `fudge order` shows at a pace without a turn order
    sheet: str  # the sheet it reads: its template and `fudge sheet check`'s reading (`cli.sheet.SHEETS`)
    severity_levels: tuple[str, ...]  # the names of `severity`'s levels (the report's wound chart)
    severity: Callable[[FightState, Combatant], int]  # how hurt a fighter is, as a number of `severity_levels`
    # (the state before a command, after it) -> what it did to the fighters' harm, and whose turn it is now,
    # each a list of (kind, text) lines in the GM's words (`projections.consequences`)
    harm: Callable[[FightState, FightState], list[tuple[str, str]]]
    turn: Callable[[FightState, FightState], list[tuple[str, str]]]
    # AI-WILL-1: a fighter's wounds weigh by the campaign's penalties (`options.wound_penalties`), counted
    # lighter by his willpower this scene (`state.will_relief`); else by his track's own (F-MOD-1, F-DC, F-WND-8)
    campaign_wounds: bool = False
    # What the read side says of the resolutions and rounds the ruleset adds (`projections.consequences`):
    # a resolution of its own in words; the lines of one a point re-resolved, each part apart; who struck
    # at whom in it; and the lines of its own of a new round (a scene) and a new order. The defaults say
    # nothing of their own (None, or no line): the shared words of the Fudge family say it.
    result: Callable[[Any, FightState], str | None] = lambda event, state: None
    re_resolved: Callable[[Any, Any, FightState, FightState], list[tuple[str, str]] | None] = \
        lambda old, new, before, after: None
    pairs: Callable[[Any], list[tuple[str, str]] | None] = lambda event: None
    rounds: Callable[[FightState, FightState], list[tuple[str, str]]] = lambda before, after: []
    order: Callable[[FightState, FightState], list[tuple[str, str]]] = lambda before, after: []

    def plays_rounds(self, pace: str) -> bool:
        """A fight at this pace is played in numbered rounds (Fate's scene and exchange paces are not)."""
        return self.round_paces is None or pace in self.round_paces


_LOADED: dict[str, Reading] = {}


def ruleset_named(name: str) -> Reading:
    """The `Reading` of the ruleset named `name` (the `ruleset` option)."""
    reading = _LOADED.get(name)
    if reading is None:  # once a process: the views ask at every event
        reading = _LOADED[name] = ruleset_module(name, "reading").READING
    return reading


def ruleset_of(state: FightState) -> Reading:
    """The `Reading` of the fight's ruleset (a fight not yet started reads as Fudge)."""
    return ruleset_named(state.options.ruleset)
