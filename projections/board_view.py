"""The board's read model (`fudge status`'s view: its board, `--long` text, `--json` data and the traits
the shell completes) derived from a fight's state one combatant at a time, and the rows it is stored
in (projections.board_rows): each combatant's part kept while nothing it reads changes, so that a
command re-renders, and stores, only the combatants it changed.

A fight's roster only grows: a long fight has every fighter who ever joined (bench/growth.py's fight
has hundreds), and rendering them all at every command cost a command more the longer the fight.
The state is immutable (a change replaces a field or a map entry, never mutates one), so a part
rendered from a combatant is still right for a later state whose every input to it is the same
object: the combatant itself, his entries in the maps below, the rule options, and the few
fight-wide values a part reads (the round for a stun's end, whose turn it is and who has acted, and
what the ruleset's own part of the state shows, as its Reading's `touched` says: Fate's boxes and
order). `Roster.update` finds what changed between the state it last rendered and the new one by
identity, through each map's own record of its changes where it keeps one
(engine.kernel.pmap.PMap.changes_since), and re-renders those combatants only.

Stored, the view is a head (the lines before and after the combatants, and each page's name and
digest), one row a page (`status-pages/<n>`: the names and digests of `PAGE_SIZE` parts, in join
order) and one row a combatant (`status/<key>`): an append writes the head and the pages and
parts whose digest changed. Listing every part in the head made it grow with the roster,
joined, MAC'd and written at every append; pages keep it to one entry per 64 fighters. The head's
MAC pins every page's digest and each page every part's, so a page or part row from another state
or edited by hand does not match and the view is computed from the fight instead; those rows
carry no MAC of their own (it would add nothing to the digests the head pins).

What the parts hold is projections.board (the board's lines) and projections.status (the text and
JSON); the store that keeps the rows (store.views.ViewStore) is given to `rows` as two readers, so
this module reads nothing itself and writes nothing: the service stores what `rows` gives in the
append's transaction.
"""

from __future__ import annotations

import atexit
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from json import JSONEncoder
from json.encoder import encode_basestring
from typing import Any

import msgspec
from msgspec import Struct

from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.pmap import changed_keys
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.turns import current_actor, still_fights
from fudge_combat.projections import board, status
from fudge_combat.projections.board_rows import PAGE, PAGE_SIZE, PART, STATUS_NAME, assemble, digest, pinned_rows
from fudge_combat.projections.stored import View, opened, sealed
from fudge_combat.projections.text import safe

WIDTH = 80  # the board's width in the stored view

# The state's maps keyed by combatant whose entries a combatant's part reads (projections.status, .board).
BY_COMBATANT = ("combatants", "initiative", "ranked", "declarations", "sealed", "pending", "round_declarations",
                "will_relief")
_JSON = JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # key order kept: it is shown


class Part(Struct, frozen=True):
    """One combatant's lines of the status text, entry of its JSON, two board lines and traits."""

    key: str
    data: dict[str, Any] | None  # None: not read yet from `body` (a part stored for the state: `content`)
    body: str  # `data` as stored
    digest: str
    listed: str  # [key, digest] as the head lists it
    side: str
    standing: bool  # still in the fight (the board's footer)
    stunned: bool  # a stun's end depends on the round
    joined: int


def render_part(state: FightState, who: Combatant, current: bool, done: str | None) -> Part:
    data = rendered(state, who, current, done)
    body = _JSON.encode(data)
    return part_of(state, who, data, body, digest(body))


def rendered(state: FightState, who: Combatant, current: bool, done: str | None) -> dict[str, Any]:
    """What `who`'s part shows: his lines of the status text, his entry of its JSON, his two board lines, his traits."""
    first, second = board.combatant_lines(state, who, current, done, board.widths(WIDTH))
    return {"text": [safe(line) for line in status.combatant_text_lines(state, who)],
            "json": status.combatant_json(state, who),
            "board": [[[text, kind] for text, kind in board.clip(line, WIDTH)] for line in (first, second)],
            "traits": trait_names(state, who)}


def part_of(state: FightState, who: Combatant, data: dict[str, Any] | None, body: str, pinned: str) -> Part:
    """The part of `who` holding `data`, stored as `body` (rendered here, or read back by its digest)."""
    return Part(who.key, data, body, pinned, f'[{encode_basestring(who.key)},"{pinned}"]', who.side,
                still_fights(state, who), who.stunned is not None, who.joined_seq)


def trait_names(state: FightState, who: Combatant) -> list[str]:
    """The traits a roll may name (the sheet's, and the ruleset's attributes), sorted: a sheet read from
    its file and the same sheet read back from the log list them in other orders."""
    return list(dict.fromkeys([*sorted(who.fighter.sheet.skills), *sorted(who.fighter.sheet.attributes),
                               *state.options.attributes]))


def traits(state: FightState) -> dict[str, list[str]]:
    """Each combatant in join order, with the traits a roll may name: what the shell completes
    (cli.completion), kept in the view so a <TAB> loads no engine."""
    return {who.name: trait_names(state, who) for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq)}


class Inputs:
    """What the parts read of a state: kept instead of the state, whose events and actions a roster
    need not hold alive (a one-shot command would free them only at exit)."""

    __slots__ = ("options", "round", "part", *BY_COMBATANT)
    options: RuleOptions
    round: int
    part: Any  # the ruleset's own part of the state (`FightState.part`): its Reading says what of it changed

    def __init__(self, state: FightState) -> None:
        self.options, self.round, self.part = state.options, state.round, state.part
        for name in BY_COMBATANT:
            setattr(self, name, getattr(state, name))


class Sides:
    """The sides of a set of parts, kept as parts come and go (a long fight may have a side each)."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()
        self.named: set[str] = set()

    def add(self, side: str) -> None:
        self.count[side] += 1
        self.named.add(side)

    def take(self, side: str) -> None:
        self.count[side] -= 1
        if not self.count[side]:
            self.named.discard(side)


class Roster:
    """The parts of one fight's status view, as of the last state rendered."""

    def __init__(self) -> None:
        self.inputs: Inputs | None = None  # of the state last rendered
        self.parts: dict[str, Part] = {}
        self.joined: list[str] = []  # keys in join order
        self.index: dict[str, int] = {}  # key -> place in join order
        self.listed: list[str] = []  # each part's entry in its page's list, in join order
        self.pages: list[tuple[str, str]] = []  # (body, digest) of each page of `listed`
        self.stale: set[int] | None = None  # the pages `listed` changed in since they were joined (None: all)
        self.sides = Sides()  # the parts' sides, and those of the ones still fighting (the footer)
        self.standing = Sides()
        self.current: str | None = None
        self.done: dict[str, str] = {}
        self.rendered: list[str] = []  # the keys of the parts rendered again, in turn (`rows`)

    @classmethod
    def stored(cls, state: FightState, listed: list[list[str]], bodies: list[str]) -> Roster | None:
        """The roster of `state` from the parts a writer stored for it (`listed`: each [key, digest] in join
        order, `bodies` their rows' bodies, each checked against its digest): no part rendered. None when
        the parts are not the state's combatants, in join order, each once."""
        keys = [key for key, _ in listed]
        if len(set(keys)) != len(keys) or set(keys) != state.combatants.keys():
            return None
        joined = [state.combatants[key].joined_seq for key in keys]
        if joined != sorted(joined):
            return None
        kept = cls()
        actor = current_actor(state)
        # Each body is the one its digest pins, so as a writer stored it: read only where a whole view is built
        # (`content`), never to write the rows of a command (a one-shot command on a roster of hundreds).
        for (key, pinned), body in zip(listed, bodies):
            part = kept.parts[key] = part_of(state, state.combatants[key], None, body, pinned)
            kept.sides.add(part.side)
            if part.standing:
                kept.standing.add(part.side)
        kept.joined = keys
        kept.index = {key: index for index, key in enumerate(keys)}
        kept.listed = [kept.parts[key].listed for key in keys]
        kept.inputs, kept.current, kept.done = Inputs(state), actor.key if actor is not None else None, board.acted(state)
        return kept

    def update(self, state: FightState) -> None:
        """Render again the parts whose inputs changed; what is kept of the others is brought up to
        date in the size of the change (an append on a long fight does nothing per combatant)."""
        actor = current_actor(state)
        current = actor.key if actor is not None else None
        done = board.acted(state)
        dirty = self._dirty(state, current, done)
        # Every part again (other rules, or another fight under the same id: an imported log keeps its
        # id): the join order is made again too, even when no part is left to make it from.
        reorder = dirty is None or not self.joined and bool(state.combatants)
        if dirty is None:
            self.parts, self.sides, self.standing, dirty = {}, Sides(), Sides(), set(state.combatants)
        for key in dirty:
            before = self.parts.pop(key, None)
            if before is not None:
                self.sides.take(before.side)
                if before.standing:
                    self.standing.take(before.side)
            who = state.combatants.get(key)
            if who is None:
                reorder |= before is not None
                continue
            part = self.parts[key] = render_part(state, who, key == current, done.get(key))
            self.sides.add(part.side)
            if part.standing:
                self.standing.add(part.side)
            reorder |= before is None or before.joined != part.joined
            if not reorder and self.listed[self.index[key]] != part.listed:
                self.listed[self.index[key]] = part.listed
                if self.stale is not None:
                    self.stale.add(self.index[key] // PAGE_SIZE)
        self.rendered += dirty
        if reorder:
            self.joined = sorted(self.parts, key=lambda key: self.parts[key].joined)
            self.index = {key: index for index, key in enumerate(self.joined)}
            self.listed = [self.parts[key].listed for key in self.joined]
            self.stale = None
        self.inputs, self.current, self.done = Inputs(state), current, done

    def _dirty(self, state: FightState, current: str | None, done: dict[str, str]) -> set[str] | None:
        """The keys whose part may differ from the one kept; None: every part."""
        before = self.inputs
        if before is None or before.options is not state.options:
            return None
        dirty: set[str] = set()
        for name in BY_COMBATANT:
            dirty |= changed_keys(getattr(before, name), getattr(state, name))
        dirty |= ruleset_of(state).touched(before.part, state.part)  # the same options: the same ruleset
        if before.round != state.round:
            dirty |= {key for key, part in self.parts.items() if part.stunned}
        if current != self.current:
            dirty |= {key for key in (current, self.current) if key is not None}
        if done != self.done:
            dirty |= {key for key in done.keys() | self.done.keys() if done.get(key) != self.done.get(key)}
        return dirty

    def paged(self) -> list[tuple[str, str]]:
        """Each page's body (the entries of `PAGE_SIZE` parts, in join order) and digest, joined
        again only where a part's entry changed."""
        count = -(-len(self.listed) // PAGE_SIZE)
        del self.pages[count:]
        self.pages += [("", "")] * (count - len(self.pages))
        for number in range(count) if self.stale is None else self.stale:
            if number < count:
                body = f"[{','.join(self.listed[number * PAGE_SIZE:(number + 1) * PAGE_SIZE])}]"
                self.pages[number] = (body, digest(body))
        self.stale = set()
        return self.pages

    def in_order(self) -> list[Part]:
        return [self.parts[key] for key in self.joined]

    def head(self, state: FightState) -> dict[str, Any]:
        """What the view shows besides the parts: the text's first lines, the JSON's keys, the board's
        header and footer, and the board's order (indexes of join order acting first)."""
        return {"text": [safe(line) for line in status.status_head_lines(state)],
                "json": status.status_json_tail(state, {**status.status_json_head(state), "combatants": None}),
                "board": board.clip(board.header(state, self.current), WIDTH),
                "footer": [board.clip(line, WIDTH) for line in board.footer_of(
                    state, self.sides.named, self.standing.named)],
                "first": [self.index[key] for key in board.acting_first(state)]}


_ROSTERS: OrderedDict[str, Roster] = OrderedDict()  # by fight id: the fights this process shows
_LOCK = threading.Lock()
# Dropped as the process exits: freed there, before the interpreter's teardown, they cost little; left
# to the teardown, which collects what is still alive, a long fight's roster cost a one-shot command
# far more (bench/growth.py).
atexit.register(_ROSTERS.clear)
KEPT = 8
RENDERED = 1 << 16  # a long session's roster starts again after this many parts rendered


def roster(state: FightState, seed: Callable[[], Roster | None] = lambda: None) -> Roster:
    """The fight's parts brought up to `state` (call under `_LOCK`); a process that keeps none yet starts
    from `seed()` (the parts stored for the state before, `rows`), else renders every part."""
    found = _ROSTERS.pop(state.fight_id, None)
    if found is None or len(found.rendered) > RENDERED:  # a new one: every writer writes every part again
        found = seed() if found is None else None
        found = found or Roster()
    _ROSTERS[state.fight_id] = found
    while len(_ROSTERS) > KEPT:
        _ROSTERS.popitem(last=False)
    try:
        found.update(state)
    except BaseException:
        del _ROSTERS[state.fight_id]  # half updated: the next one starts again
        raise
    return found


def build(state: FightState) -> dict[str, Any]:
    """The view of `state`: its text (projections.status.status_text), JSON (`status_json`), board
    (projections.board.board_lines at 80 columns) and traits (`traits`), built one combatant at a time."""
    with _LOCK:
        kept = roster(state)
        return assemble(kept.head(state), [content(state, part) for part in kept.in_order()])


def content(state: FightState, part: Part) -> dict[str, Any]:
    """What a part shows: as rendered, or read from the body stored for it (rendered again where that does
    not read as a part: a stored view is untrusted)."""
    if part.data is not None:
        return part.data
    try:  # msgspec's JSON reader: several times the standard library's
        data = msgspec.json.decode(part.body)
    except (msgspec.DecodeError, RecursionError):
        data = None
    if isinstance(data, dict):
        return data
    actor = current_actor(state)
    return rendered(state, state.combatants[part.key], actor is not None and actor.key == part.key,
                    board.acted(state).get(part.key))


class Written(Struct):
    """What one writer (a service's caches) last stored of a fight's view."""

    roster: Roster
    rendered: int  # len(roster.rendered) then
    head: tuple[int, str, str]  # (seq, hash, MAC) of the head
    digests: dict[str, str]  # key -> digest of each part row as written
    pages: dict[str, str]  # name -> digest of each page row as written


def rows(state: FightState, fight_id: str, seq: int, last_hash: str, key: bytes, version: str,
         memo: dict[str, Any], head_held: Callable[[], View | None],
         held: Callable[[str], Mapping[str, View]],
         previous: tuple[FightState, int, str] | None = None) -> tuple[View, ...]:
    """The head at `seq`, and the pages and parts whose row does not hold them yet. `head_held()` is the
    head row the store holds, `held(prefix)` its rows named `prefix`... (each as a store without them
    yet gives: None, nothing). When the head the store holds is the one this writer stored last (`memo`:
    what it remembers, kept by its service), the page and part rows are as it wrote them: only the
    parts rendered again since, and the pages' digests, are compared. Otherwise (another process wrote,
    or none yet, as for a one-shot command) the part rows and the page rows are read in one query each
    and each row that differs is written (a row edited by hand is mended by the next command): writing
    every part costs several times reading them.

    `previous` is the state the command decided from, with its last event's seq and hash. A process that
    keeps no roster of the fight yet (a one-shot command) starts from the parts stored for that state,
    when the head the store holds is at that very event, its MAC checks under this user's key and every
    page and part is the one it pins by digest; then only the combatants the command changed are
    rendered, where every part was before (a one-shot command on a roster of hundreds rendered them all).
    Anything else, and every part is rendered, as before."""
    parts_held: dict[str, Mapping[str, View]] = {}

    def read(prefix: str) -> Mapping[str, View]:
        if prefix not in parts_held:
            parts_held[prefix] = held(prefix)
        return parts_held[prefix]

    def seed() -> Roster | None:
        if previous is None:
            return None
        before, before_seq, before_hash = previous
        head, _ = opened(stored, fight_id, before_seq, before_hash, version, key)
        if not isinstance(head, dict):
            return None
        pages = pinned_rows(head.get("pages"), read(PAGE), PAGE, version)
        if pages is None:
            return None
        try:
            listed = [entry for page in msgspec.json.decode(f"[{','.join(pages)}]") for entry in page]
        except (msgspec.DecodeError, TypeError, RecursionError):
            return None
        bodies = pinned_rows(listed, read(PART), PART, version)
        if bodies is None:
            return None
        try:
            return Roster.stored(before, listed, bodies)
        except (ValueError, RecursionError):
            return None

    stored = head_held()
    with _LOCK:
        kept = roster(state, seed)
        last = memo.get(fight_id)
        if (last is None or last.roster is not kept or stored is None
                or last.head != (stored.seq, stored.hash, stored.mac)):
            found = read(PART)
            last = Written(kept, 0, (0, "", ""), {}, {})
            changed = [part for part in kept.parts.values()
                       if (row := found.get(PART + part.key)) is None or (row.version, row.body) != (version, part.body)]
            last.digests = {part.key: part.digest for part in kept.parts.values()}
            last.pages = {page: digest(row.body) for page, row in read(PAGE).items() if row.version == version}
        else:
            changed = [kept.parts[k] for k in set(kept.rendered[last.rendered:])
                       if k in kept.parts and last.digests.get(k) != kept.parts[k].digest]
            for part in changed:
                last.digests[part.key] = part.digest
        pages = kept.paged()
        paged = [(PAGE + str(number), body, pinned) for number, (body, pinned) in enumerate(pages)
                 if last.pages.get(PAGE + str(number)) != pinned]
        for page, _, pinned in paged:
            last.pages[page] = pinned
        head = _JSON.encode(kept.head(state))
        listing = ",".join(f'["{number}","{pinned}"]' for number, (_, pinned) in enumerate(pages))
        out = (sealed(STATUS_NAME, f'{head[:-1]},"pages":[{listing}]}}', fight_id, seq, last_hash, version, key),
               *(View(page, seq, last_hash, version, body, "") for page, body, _ in paged),
               *(View(PART + part.key, seq, last_hash, version, part.body, "") for part in changed))
        last.rendered, last.head = len(kept.rendered), (seq, last_hash, out[0].mac)
        memo[fight_id] = last
        return out
