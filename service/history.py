"""A fight's log as a whole: where a branch may fork it, and its rows written out (`fudge export`) and
read back in (`fudge import`), checked as `fudge verify` checks them before anything is stored."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.events.records import canonical, chain_hash
from fudge_combat.events.rows import Row
from fudge_combat.store.base import EventStore, StoreError, UnknownFight

if TYPE_CHECKING:
    from fudge_combat.engine.audit import Lineage


def fork_point(rows: Sequence[Row], parent: str, at: int | None) -> int:
    """The event a branch of `parent` forks at (its last, when `at` is None): one the log holds and
    that ends a command (A-BRANCH-1)."""
    fork = at if at is not None else (rows[-1].seq if rows else 0)
    if not 1 <= fork <= len(rows):
        raise RuleError(f"{parent} has events 1..{len(rows)}; cannot branch at {fork}")
    if fork < len(rows) and rows[fork].command == rows[fork - 1].command:
        # A fork inside one command would keep half its events: a log `verify` rejects.
        first = next(r.seq for r in rows if r.command == rows[fork].command)
        last = max(r.seq for r in rows if r.command == rows[fork].command)
        raise RuleError(f"event {fork} is in the middle of one command (events {first}..{last}); "
                        f"branch at {first - 1} or {last}")
    return fork


def export_lines(name: str, rows: Iterable[Row]) -> list[str]:
    """The rows as JSON lines. A row whose bytes no longer match its hash is not exported as if it
    were whole: the export names it (`fudge verify` tells the rest)."""
    lines = []
    for r in rows:
        try:
            whole = chain_hash(r.body) == r.hash
        except (AttributeError, UnicodeError):  # a body stored as a blob, or not UTF-8
            whole = False
        if not whole:
            raise StoreError(f"{name}: event {r.seq}: its bytes do not match its hash: the event was altered; "
                             f"`fudge verify {name}` checks the whole log")
        lines.append(json.dumps({"seq": r.seq, "hash": r.hash, "body": json.loads(r.body)}, sort_keys=True))
    return lines


def imported_rows(lines: Iterable[str]) -> list[Row]:
    """The rows of a log written by `export_lines`; refused if `fudge verify` would reject them: the
    chain, the dice and the rules are checked, so a forged log never enters a store."""
    from fudge_combat.engine.audit import verify  # the whole engine: imported by an import, not by every command

    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, parse_int=_integer)
            body = canonical(data["body"])
            rows.append(Row(int(data["seq"]), data["body"]["command"], data["body"]["event"]["type"],
                            body, data["hash"]))
        except _Overlong as exc:
            raise InputError(f"line {number} is not an exported event: it holds {exc}, past every bound of an "
                             "event (the log was altered); nothing was imported") from None
        except (ValueError, KeyError, TypeError, RecursionError):
            raise InputError(f"line {number} is not an exported event") from None
    if not rows:
        raise InputError("nothing to import: the file has no events")
    report = verify(rows)
    if report.problems:
        seq, why = report.problems[0]
        raise InputError(f"refusing to import: event {seq}: {why}; nothing was imported")
    return rows


class _Overlong(ValueError):
    """A number in an exported line of more digits than Python reads (sys.get_int_max_str_digits)."""


def _integer(digits: str) -> int:
    """A JSON integer, or `_Overlong` naming its length: a number of thousands of digits is no event's
    (events.bounds), so the line is named for it rather than as text that is not JSON."""
    try:
        return int(digits)
    except ValueError:
        raise _Overlong(f"a number of {len(digits.lstrip('-'))} digits") from None


def lineage_of(store: EventStore, name: str) -> Lineage:
    """Whose events the fight's log may hold, as the store records the fight (engine.audit.Lineage): a
    branch's parent and fork, with the parent's hash at the fork when this GM can read the parent; an
    import's number of imported events."""
    from fudge_combat.engine.audit import Lineage

    info = store.fight(name)
    parent_hash = None
    if info.parent is not None and info.fork_seq:
        try:
            upto = store.read(info.parent, info.fork_seq)
        except UnknownFight:  # a parent this GM cannot see: the branch's own chain is checked alone
            upto = []
        if len(upto) == info.fork_seq:
            parent_hash = upto[-1].hash
    return Lineage(info.fight_id, name, info.fork_seq, info.parent is not None, parent_hash)
