"""A-VERIFY-1 and A-FAIR-1: check a stored log, byte by byte and rule by rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec import Struct
import msgspec
from pydantic import ValidationError

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel import history
from fudge_combat.engine.decide import decide, seal_of
from fudge_combat.engine.kernel.dice import Roll, check_faces, derive_faces, parse_substitute
from fudge_combat.engine.kernel.registry import UnknownRuleset
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.evolve import evolve
from fudge_combat.engine.kernel.sheets import stored_sheet
from fudge_combat.engine.kernel.state import FightState, replace
from fudge_combat.events import structs as ev
from fudge_combat.events.bounds import MAX_SIDES
from fudge_combat.events.records import GENESIS, Recorded, chain_hash, load
from fudge_combat.events.rows import Row

DICE_EVENTS = (ev.DiceRolled, ev.InitiativeRolled, ev.InitiativeRanked)


class Report(Struct, frozen=True):
    events: int
    problems: tuple[tuple[int, str], ...]
    rolls_checked: int
    rolls_unchecked: int

    @property
    def ok(self) -> bool:
        return not self.problems


class BadRoll(RuleError):
    """A recorded roll that no die could have given for the roll the rules ask for: at event `seq`."""

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(message)
        self.seq = seq


class RecordedDice:
    """Hands back the rolls a command recorded, in order, so `decide` can be re-run.

    Each roll is handed back as the table's dice would have given it for this very request
    (EnteredDice, SeededDice): its faces as recorded, but the die, the generator stream and the
    typed substitute from the request and the fight. A roll no die could give (five faces for
    4dF, a 7 on a Fudge die, an entered roll claiming a draw) is refused; whatever else a roll
    says is then compared with what `decide` makes of it, like any consequence. Generated faces
    themselves are checked once the seed is revealed (check_dice).
    """

    def __init__(self, records: Sequence[Recorded], stream: str = "", substitutes: bool = False) -> None:
        self.rolls = [r for r in records if isinstance(r.event, DICE_EVENTS) and r.event.faces]
        self.stream = stream
        self.substitutes = substitutes

    def roll(self, roller: str, count: int, purpose: str, sides: int | None = None) -> Roll:
        if not self.rolls:
            raise RuleError(f"the log has no recorded roll for {roller}'s {purpose}")
        record = self.rolls.pop(0)
        event = record.event
        assert isinstance(event, DICE_EVENTS)  # the rolls kept are of these
        faces = tuple(event.faces)
        typed = getattr(event, "substitute", None)
        if typed is not None and event.source == "entered":
            try:
                substitute = parse_substitute(typed) if self.substitutes and count == 4 and sides is None else None
            except RuleError:
                substitute = None
            if substitute is None:
                raise BadRoll(record.seq, f"{roller}'s {purpose} roll: {typed!r} cannot stand for it (C-DICE-4)")
            return Roll(tuple(substitute), "entered", substitute=substitute.typed)
        if len(faces) != count:
            raise BadRoll(record.seq, f"{roller}'s {purpose} roll needs {count} dice, {len(faces)} are recorded")
        try:
            check_faces(faces, sides, f"{roller}'s {purpose} roll")
        except RuleError as exc:
            raise BadRoll(record.seq, str(exc)) from None
        if event.source == "generated":
            return Roll(faces, "generated", self.stream, event.draw, sides)
        return Roll(faces, "entered", sides=sides)


# The events that start a segment of a log: a fight (seq 1), a branch after its parent's prefix, and the
# import's own seed after an imported log. Only there, at the first event of a command, may the fight id
# of the events change (A-LOG-2): the rows of one fight spliced into another are not a segment start.
SEGMENT_STARTS = (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted)

# A die the generator can throw (engine.kernel.dice.derive_faces): more sides (events.bounds.MAX_SIDES, which a stored
# roll keeps), or more faces, is no roll it made.
MAX_FACES = 1000

Problem = tuple[int, str]


def _row_problem(row: Row, expected_seq: int) -> str | None:
    """What is wrong with a row's own columns, before its body is read (None: nothing)."""
    if not isinstance(row.seq, int) or row.seq != expected_seq:
        return f"sequence number {row.seq!r} where {expected_seq} was expected"
    if not all(isinstance(value, str) for value in (row.command, row.type, row.body, row.hash)):
        return "a column of its row is not text: the row was altered"
    try:
        digest = chain_hash(row.body)
    except UnicodeError:
        return "its bytes are not UTF-8 text: the event was altered"
    if digest != row.hash:
        return "its bytes do not match its hash: the event was altered"
    return None


class Lineage(Struct, frozen=True):
    """Whose events a fight's log may hold (A-LOG-2, A-BRANCH-1), as the store records the fight: its own
    (fight id `fight_id`) from its own first event to the end; before that, only for a branch its parent's
    up to the fork (`fork_seq`; `parent_hash`, the parent's hash at that event, when the parent can be
    read), or for an import the imported log's (`fork_seq` with no parent: the imported events). `name`
    is the fight's name: an import written before the store recorded imports is known by its own first
    event, the seed committed "imported as" that name."""

    fight_id: str
    name: str = ""
    fork_seq: int | None = None
    branch: bool = False
    parent_hash: str | None = None


def check_chain(rows: Sequence[Row], fight: str | Lineage | None = None) -> tuple[list[Recorded], list[Problem]]:
    """The chain (A-LOG-2): each row's bytes match its hash and link to the previous one; the row's other
    columns (`command`, `type`) say what its body says; the fight id changes only where a segment starts,
    never back to one it had before, and, given the fight's own id, ends as that fight's; given its whole
    `Lineage`, every row is the fight's own from its own first event, and its lineage's before it (check_lineage).
    Stops at the first problem."""
    log: list[Recorded] = []
    prev = GENESIS
    seen: set[str] = set()  # the command ids before the current command
    ids: set[str] = set()  # the fight ids of the segments before the current one
    resumed: list[Problem] = []  # where a fight id came back after another's (named after the lineage's own)
    start_seq = 1  # where the current segment of fight ids starts
    for index, row in enumerate(rows, start=1):
        bad = _row_problem(row, index)
        if bad is not None:
            return log, [(row.seq if isinstance(row.seq, int) else index, bad)]
        try:
            record = load(row.body)
        except (ValueError, TypeError, RecursionError) as exc:  # pydantic's ValidationError is a ValueError
            past = ": a value beyond any a fight holds, the event was altered" if _past_a_bound(exc) else ""
            return log, [(row.seq, f"cannot be read ({_first_line(exc)}){past}")]
        if record.prev != prev or record.seq != row.seq:
            return log, [(row.seq, "its link to the previous event is broken: an event was altered or removed")]
        if (record.command, record.event.type) != (row.command, row.type):
            return log, [(row.seq, "its row's command or type column differs from its body: the row was altered")]
        new_command = not log or log[-1].command != record.command
        if new_command and record.command in seen:
            return log, [(row.seq, "its command id was already used by an earlier command: events were moved")]
        if log and record.fight != log[-1].fight:
            if not (new_command and isinstance(record.event, SEGMENT_STARTS)):
                return log, [(row.seq, "it belongs to another fight (its fight id changes here): "
                                       "events of another fight were put in this one")]
            ids.add(log[-1].fight)
            if record.fight in ids and not resumed:  # a lineage runs ancestors first: no fight's events resume
                resumed = [(row.seq, "its fight id is that of events before another fight's: "
                                     "events of another fight were put in this one")]
            start_seq = row.seq
        if new_command and log:
            seen.add(log[-1].command)
        prev = row.hash
        log.append(record)
    fight_id = fight.fight_id if isinstance(fight, Lineage) else fight
    if fight_id is not None and log and log[-1].fight != fight_id:
        return log, [(start_seq, "it belongs to another fight (its fight id is not this fight's): "
                                 "another fight's events were put in this one")]
    if isinstance(fight, Lineage):  # its first row not of the lineage, rather than where the splice ends
        return log, check_lineage(rows, log, fight) or resumed
    return log, resumed


def check_lineage(rows: Sequence[Row], log: Sequence[Recorded], lineage: Lineage) -> list[Problem]:
    """Every row of an intact chain is of the fight's lineage (A-LOG-2, A-BRANCH-1): the fight's own from
    its own first event (a fight's start, a branch's start after its parent's prefix, an import's seed
    after the imported log) to the end, and none of its own before it. Another fight's rows put in
    place of some (or all) of a fight's, re-hashed into a chain that holds, are named at the first row
    that is not the fight's own where the store says the fight's own events run."""
    own = lineage.fight_id
    kind: type[ev.FightStarted | ev.BranchStarted | ev.SeedCommitted]
    first = next((r for r in log if r.fight == own), None)
    if lineage.fork_seq is not None:
        start, kind = lineage.fork_seq + 1, (ev.BranchStarted if lineage.branch else ev.SeedCommitted)
        what = "branch" if lineage.branch else "import"
        if len(log) < start:
            return [(len(log), f"the log ends before this fight's own first event ({start}, its {what}'s start): "
                               "events were removed")]
        if lineage.parent_hash is not None and rows[start - 2].hash != lineage.parent_hash:
            return [(start - 1, "its hash is not its parent's at the fork: the events before the branch "
                                "are not its parent's")]
    else:
        start, kind, what = 1, ev.FightStarted, "start"
        if first is not None and first.seq > 1 and _imported_earlier(first, lineage.name):
            start, kind = first.seq, ev.SeedCommitted
    for record in log:
        mine = record.seq >= start
        if (record.fight == own) != mine:
            if mine:
                return [(record.seq, "it belongs to another fight (its fight id is not this fight's, where "
                                     "this fight's own events run): another fight's events were put in this one")]
            return [(record.seq, f"its fight id is this fight's, before this fight's own first event "
                                 f"({start}, its {what}'s start): the events were moved")]
    if not isinstance(log[start - 1].event, kind):
        return [(start, f"this fight's own events start here with no {what} of its own: the event was altered")]
    return []


def _imported_earlier(first: Recorded, name: str) -> bool:
    """An import stored before imports were recorded in the fight's row: its own events start with the
    seed committed on import, which says the name it was imported as."""
    return isinstance(first.event, ev.SeedCommitted) and bool(name) and first.event.reason == f"imported as {name}"


# pydantic's errors for a value beyond a bound of events.bounds, and JSON's for a number past any it reads
BOUND_ERRORS = frozenset({"greater_than_equal", "less_than_equal", "too_long", "string_too_long"})


def _past_a_bound(exc: BaseException) -> bool:
    """Whether a body was refused for a value beyond its bound (events.bounds), not for its shape: no version
    of fudge writes one, so the event was altered, where a shape it does not know may be a later version's."""
    if not isinstance(exc, ValidationError) or not exc.errors():
        return False
    error = exc.errors()[0]
    return error["type"] in BOUND_ERRORS or (error["type"] == "json_invalid" and "number out of range" in error["msg"])


def _first_line(exc: BaseException) -> str:
    """One line that says what went wrong: a validation error's first field and why, else the message's
    first line."""
    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]
        return f"{'.'.join(str(part) for part in error['loc']) or exc.title}: {error['msg']}"
    text = str(exc).splitlines()
    return text[0] if text else type(exc).__name__


def check_head(rows: Sequence[Row], seq: int, digits: str) -> list[Problem]:
    """A-VERIFY-1 against a receipt (events.receipt): the log still holds the receipted event at its seq.
    With the chain intact up to it, that one event fixes every event before it."""
    if seq > len(rows):
        return [(seq, f"the receipt names event {seq} but the log ends at event {len(rows)}: "
                      "it was shortened since the receipt")]
    row = rows[seq - 1]
    if not (isinstance(row.hash, str) and row.hash.lower().startswith(digits)):
        return [(seq, "its hash is not the receipt's: the log was rewritten at or before this event "
                      "since the receipt")]
    return []


def check_dice(log: Sequence[Recorded]) -> tuple[list[Problem], int, int]:
    streams: dict[str, str] = {}  # stream -> the commitment in force for it at this point of the log
    seeds: dict[str, bytes] = {}
    problems: list[Problem] = []
    for record in log:
        event = record.event
        if isinstance(event, ev.SeedRevealed):
            try:
                seeds[event.seed_commitment] = bytes.fromhex(event.seed)
            except ValueError:
                problems.append((record.seq, "the revealed seed is not hex: the event was altered"))
    checked, unchecked, seen = 0, 0, set()
    for record in log:
        event = record.event
        if isinstance(event, SEGMENT_STARTS):
            # bound in log order: a later commitment reusing a stream name must not re-bind earlier rolls
            streams[event.stream] = event.seed_commitment
        if not isinstance(event, DICE_EVENTS) or event.source != "generated" or not event.faces:
            continue
        commit = streams.get(event.stream or "", "")
        key = (commit, event.stream, event.draw)
        if key in seen:
            problems.append((record.seq, f"draw {event.draw} of stream {event.stream} was used twice"))
        seen.add(key)
        seed = seeds.get(commit)
        if seed is None:
            unchecked += 1
            continue
        checked += 1
        sides = getattr(event, "sides", None)
        if (sides is not None and not 1 <= sides <= MAX_SIDES) or len(event.faces) > MAX_FACES or (
                derive_faces(seed, event.stream or "", event.draw or 0, len(event.faces), sides)
                != tuple(event.faces)):
            problems.append((record.seq, "generated faces differ from those the revealed seed gives (A-FAIR-1)"))
    return problems, checked, unchecked


def _payloads(events: Sequence[Any]) -> list[dict[str, Any]]:
    return [_payload(e) for e in events]


def _payload(event: Any) -> dict[str, Any]:
    """A joined sheet is compared as the current Sheet reads it: a sheet recorded before a later version
    added optional fields (with defaults) is the same sheet, not a different consequence."""
    out: dict[str, Any] = msgspec.to_builtins(event)
    if isinstance(event, ev.CombatantJoined):
        out["sheet"] = json_form(stored_sheet(out["sheet"]))
    return out


def _groups(log: Sequence[Recorded]) -> list[list[Recorded]]:
    """The log's commands: runs of events that share a command id."""
    groups: list[list[Recorded]] = []
    for record in log:
        if groups and groups[-1][0].command == record.command:
            groups[-1].append(record)
        else:
            groups.append([record])
    return groups


def _expected(log: Sequence[Recorded], done: int, state: FightState, group: list[Recorded]) -> list[Any]:
    """What the rules give for the command that recorded `group`, on the state before it."""
    command = cmd.read_issued(group[0].issued, state.options.ruleset)
    if isinstance(command, cmd.Undo):
        target, _ = history.undo_target(log[:done], history.voided(log[:done]))
        return [ev.CommandUndone(target=target)]
    if isinstance(command, cmd.Redo):
        undo, restores = history.redo_target(log[:done], history.voided(log[:done]))
        return [ev.CommandRedone(target=undo, restores=restores)]
    if isinstance(command, cmd.StartBranch) and command.fork_seq != group[0].seq - 1:
        raise RuleError(f"a branch forked at event {command.fork_seq} starts at event {group[0].seq}")
    dice = RecordedDice(group, state.stream, state.options.dice_substitutes)
    return decide(state, command, dice)


def _check_group(log: Sequence[Recorded], done: int, state: FightState, group: list[Recorded]) -> list[Problem]:
    first = group[0]
    if first.issued is None:
        return [(first.seq, "no command is recorded for it: the event was altered")]
    if (done == 0) != isinstance(first.event, ev.FightStarted):
        return [(first.seq, "a log starts with its fight's start, and only there")]
    recorded = [r.event for r in group]
    try:
        expected = _expected(log, done, state, group)
    except BadRoll as exc:
        return [(exc.seq, f"no die gives this roll: {exc}")]
    except (RuleError, ValidationError) as exc:
        return [(first.seq, f"the rules refuse this command now: {_first_line(exc)}")]
    if _payloads(expected) != _payloads(recorded):
        seq = next((r.seq for r, e in zip(group, expected) if r.event != e), first.seq)
        return [(seq, "recorded consequences differ from what the rules give")]
    return []


def check_rules(log: Sequence[Recorded]) -> list[Problem]:
    """Re-run every command on the state before it; compare with what was recorded.

    A log that was forged into something impossible (a wound level no track has, a combatant who
    never joined) may break the rules or the fold themselves: that is reported at the command where
    it happens, and the check stops there (the state after it means nothing)."""
    problems: list[Problem] = []
    state = FightState()
    done = 0
    for group in _groups(log):
        try:
            problems += _check_group(log, done, state, group)
            done += len(group)
            state = _state_after(log[:done], state, group)
        except UnknownRuleset as exc:  # not an altered log: its rules are not installed here to follow it
            problems.append((group[0].seq, f"the rules cannot be followed here: {exc}"))
            break
        except Exception as exc:  # noqa: BLE001 - an auditor reports a log it cannot follow, it does not crash
            problems.append((group[0].seq, f"the rules cannot follow this event ({type(exc).__name__}: "
                                           f"{_first_line(exc)}): the log was altered"))
            break
    return problems


def _state_after(log: Sequence[Recorded], state: FightState, group: list[Recorded]) -> FightState:
    """The state after a command (the log's last): its events evolved onto the state before it; or, when
    it voids earlier events (A-UNDO-2), the events still in force evolved from the start."""
    records: Sequence[Recorded] = group
    if any(isinstance(r.event, ev.VOIDING) for r in group):
        state, records = FightState(), history.effective(log)
    for record in records:
        state = evolve(state, record)
    return replace(state, last_seq=log[-1].seq)


def verify(rows: Sequence[Row], fight: str | Lineage | None = None, head: tuple[int, str] | None = None) -> Report:
    """Every check, in order: the chain and the rows (and, given the fight's id or its whole `Lineage`, that
    they are this fight's), the dice, the rules; and, given a receipt `head` (seq, hex digits), that the
    log still holds it. A log with no event is a problem: a fight's log holds at least its start."""
    if not rows:
        return Report(0, ((0, "the log holds no event: the fight's events were removed from the store"),), 0, 0)
    log, problems = check_chain(rows, fight)
    checked = unchecked = 0
    if not problems:
        dice_problems, checked, unchecked = check_dice(log)
        problems += dice_problems
        problems += check_rules(log)
    if head is not None:
        problems = check_head(rows, *head) + problems  # the table's own anchor speaks first
    return Report(len(rows), tuple((seq, printable(why)) for seq, why in problems), checked, unchecked)


def printable(text: str) -> str:
    """A problem as one line of plain text: names and keys quoted from a forged log may hold line breaks or
    terminal escapes, shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def seal_matches(declaration: ev.Declaration, salt: str, seal: str) -> bool:
    return seal_of(declaration, salt) == seal
