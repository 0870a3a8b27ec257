"""What the read side asks a fight's ruleset: `ruleset_of(state)` (or `ruleset_named(name)`) answers
with that ruleset's `Reading`, so the views (cli/, projections/, sim/, service/) ask the ruleset
instead of comparing its name.

Each ruleset declares its `Reading` in its own package beside its Decider (`rulesets.fudge.reading`,
`rulesets.atari_isev.reading`, `rulesets.fate.reading`), and a variant is composed from the one it varies
(`msgspec.structs.replace`). They are modules apart from the Deciders because a view must not load the
rules: reading a Fudge fight's log never imports the Decider's tables and commands.

The layers run one way (the engine imports no view), so a `Reading` answers in data: words
(`points`, `battle`, `taken_out`), names, and hooks that read the ruleset's own part of the state for
the views (its scene, its own turn order, its boxes as a `TrackLine`, its sheet's template and check): a
view asks, and never reads a ruleset's part of the state itself. Each hook but the sheet's has a neutral
default (no scene, no order of its own, the wound track), so a ruleset composed from Fudge declares none
of them and reads Fudge's sheet. A new ruleset declares its
`Reading` in its package's `reading` module (`kernel.registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from msgspec import Struct

from fudge_combat.engine.kernel.registry import ruleset_module

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.options import RuleOptions
    from fudge_combat.engine.kernel.state import Combatant, FightState


class BoxRow(Struct, frozen=True):
    """One row of a ruleset's own boxes (Fate's clipped, hurt, injured and taken out, FT-TRACK)."""

    letter: str  # the board's short name ("C")
    label: str  # its name in words ("Clipped")
    filled: int  # boxes marked
    boxes: int  # boxes in the row


class TrackLine(Struct, frozen=True):
    """How a fighter stands on a ruleset's own boxes, as the board, the players' page and the end's summary
    show it: `out` ("" while he fights; "DEAD", "OUT of the fight (...)"), the level shown (the worst box
    marked, with the penalty on the next roll), its kind (`ok`, `wound1`..`wound4`, `out`), the rows, and
    the penalty and whether he is out by the boxes themselves (Taken Out)."""

    out: str
    level: str
    kind: str
    rows: tuple[BoxRow, ...]
    penalty: int  # on the next roll (0 once out by the boxes)
    boxes_out: bool  # out by the boxes themselves (FT-TRACK-3), not dead nor gone


class PointUse(NamedTuple):
    """One way a fighter may spend a point now, as a player's page offers it: `key`, what the page sends
    back; `said`, the request in words after the fighter ("spends a fudge point: luck"); `words`, the
    GM's command that spends it, as `fudge play` runs it."""

    key: str
    said: str
    words: tuple[str, ...]


FUDGE_USES = ("skill", "luck", "scratch", "ticking", "panache")  # C-FP-2: a fudge point's uses, as a player asks


def _fudge_points(state: FightState, who: Combatant) -> tuple[PointUse, ...]:
    """C-FP-2: a fudge point's uses, each `fudge spend NAME USE` on the latest roll or blow."""
    return tuple(PointUse(use, f"spends a fudge point: {use}", ("spend", who.name, use)) for use in FUDGE_USES)


def _no_order(state: FightState) -> tuple[tuple[str, ...], frozenset[str]]:
    return (), frozenset()


class Reading(Struct, frozen=True):
    name: str  # the `ruleset` option that picks it
    points: str  # the points its fighters spend, as the views name them: "fudge" (C-FP) or "fate" (FT-PTS)
    battle: str  # what its fights are played in and ended by `end_command`: "battle" or "scene"
    end_command: str  # the command that ends one: "end" or "end-scene"
    round_paces: frozenset[str] | None  # the paces that play in rounds (None: every pace)
    taken_out: str  # why a fighter still alive is out of the fight, when it says one word for it ("": his track's)
    landed: str  # what the odds count as a blow that told
    ranked_rule: str  # the rule its rolled initiative totals follow (`fudge order` names it)
    ties_together: bool  # equal initiative totals act together (AI-INIT-2)
    blow_prefix: tuple[str, ...]  # the command group its blows are typed under (`fudge fate attack`)
    no_order: Callable[[str], str]  # the line `fudge order` shows at a pace without a turn order
    # Its sheet's template (`fudge sheet new`'s lines after the head) and what `fudge sheet check` reads of
    # a sheet after its traits (`engine.kernel.sheet_text` writes the template's lines).
    sheet_template: Callable[[str, RuleOptions], list[str]]
    sheet_check: Callable[[FightState, Combatant], list[str]]
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
    # What the views read of its own part of the state, asked here instead (each default: it keeps none).
    # The scene the fight is in (FT-SCENE); None: it does not count scenes.
    scene: Callable[[FightState], int] | None = None
    # Its own turn order this round and who has had his turn in it (Fate's Alertness order, FT-INIT), and who
    # still has a turn in it, in order (not acted, still in the fight): the first has the turn.
    own_order: Callable[[FightState], tuple[tuple[str, ...], frozenset[str]]] = _no_order
    to_act: Callable[[FightState], Iterable[Combatant]] = lambda state: ()
    # How a fighter stands on its own boxes (FT-TRACK); None: harm is marked on the wound track (F-WND).
    track: Callable[[FightState, Combatant], TrackLine] | None = None
    # `fudge status`'s lines (after his name) and JSON keys of a fighter on its own boxes; None, no key: the
    # wound track's (F-WND).
    status_lines: Callable[[FightState, Combatant], list[str]] | None = None
    status_json: Callable[[FightState, Combatant], dict[str, Any]] = lambda state, who: {}
    # Its own line of one of its events in the log and a command's output, where it words it otherwise than
    # the event's declared line (`events.py`): Fate's Taken Out, said first; None: the declared line.
    line: Callable[[Any, FightState], str | None] = lambda event, state: None
    # How many aspects a fighter invoked (FT-PTS), for the end's summary.
    invoked: Callable[[FightState, Combatant], int] = lambda state, who: 0
    # The combatants whose lines may differ between two of its parts of the state (`FightState.part`) of
    # one fight (`projections.board_view` renders only theirs again).
    touched: Callable[[Any, Any], set[str]] = lambda was, now: set()
    # How a fighter may spend a point now, as a player asks from his own device (`fudge invite`): each
    # use, its words and the GM's command (default: a fudge point's uses, C-FP-2).
    point_uses: Callable[[FightState, Combatant], tuple[PointUse, ...]] = _fudge_points
    # Its fighters declare a stance before they roll (all-out offense or defense, F-MOD-6, F-MOD-7): a player's page
    # offers the declaration, sealed or not.
    declares: bool = True

    @property
    def scenes(self) -> bool:
        """It counts its scenes (FT-SCENE): the views say which scene (`scene`)."""
        return self.scene is not None

    @property
    def boxes(self) -> bool:
        """Harm is marked in its own boxes (`track`, FT-TRACK), not on the wound track (F-WND)."""
        return self.track is not None

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
