"""A-LOG-2, A-BRANCH-1: a log's identity. Every row of a fight's log is of its lineage: its own from its
own first event to the end, and before that only its parent's up to the fork (a branch) or the imported
log's (an import), as the store's row for the fight records them. Another fight's rows spliced in, the
chain re-hashed so it holds, fail plain `verify` (no receipt needed), naming the first foreign row; a
log with no event is one line.

Tampering is done as an attacker would: straight into the SQLite file. `fudge` runs as its own process.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.cli.history import VERIFY_FAILED
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded, body, chain_hash
from fudge_combat.service.fights import Fights
from fudge_combat.service.history import lineage_of
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights
from tests.processes import fudge
from tests.test_audit import fex


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "fudge.db"


@pytest.fixture
def fights(path: Path) -> Fights:
    return make_fights(SqliteStore(path))


def one_error(result: Any, code: int) -> str:
    """The one line a failed process prints: the exit code, no traceback, nothing else on stderr."""
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def rows_of(path: Path, name: str) -> Any:
    store = SqliteStore(path)
    try:
        return store.read(name), lineage_of(store, name)
    finally:
        store.close()


def put_rows(path: Path, name: str, bodies: list[dict[str, Any]]) -> None:
    """Replace the fight's rows with these bodies, each re-linked and re-hashed: a chain that holds."""
    with sqlite3.connect(path) as db:
        (fight,) = db.execute("SELECT id FROM fights WHERE name = ?", (name,)).fetchone()
        db.execute("DELETE FROM events WHERE fight = ?", (fight,))
        db.execute("DELETE FROM commands WHERE fight = ?", (fight,))
        db.execute("DELETE FROM snapshots")
        db.execute("DELETE FROM views")
        prev = "0" * 64
        for seq, data in enumerate(bodies, start=1):
            data = {**data, "seq": seq, "prev": prev}
            body = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            prev = chain_hash(body)
            db.execute("INSERT INTO events (fight, seq, command, type, body, hash) VALUES (?,?,?,?,?,?)",
                       (fight, seq, data["command"], data["event"]["type"], body, prev))


def bodies(path: Path, name: str) -> list[dict[str, Any]]:
    return [json.loads(row.body) for row in rows_of(path, name)[0]]


def seed_committed(fight_id: str, reason: str) -> dict[str, Any]:
    """One `seed_committed` in this fight's id, as the service writes one (seq and link filled in later)."""
    event = ev.SeedCommitted(seed_commitment="ab" * 32, stream="s" * 12, reason=reason)
    issued = cmd.CommitSeed(seed_commitment=event.seed_commitment, stream=event.stream, reason=reason)
    record = Recorded(fight=fight_id, seq=1, command="f" * 32, issued=cmd.issued_dump(issued),
                      at="2026-01-01T00:00:00.000+00:00", prev="0" * 64, event=event)
    return json.loads(body(record))


def fight_id(path: Path, name: str) -> str:
    return rows_of(path, name)[1].fight_id


@pytest.mark.parametrize("reason", ["imported as rematch", "spliced"])
def test_A_LOG_2_another_fights_rows_behind_one_seed_committed_in_this_fights_id_fail_plain_verify(
        fights: Fights, path: Path, reason: str) -> None:
    """The rematch's whole log put in place of the duel's, then one `seed_committed` in the duel's id, the chain
    re-hashed: an import's shape, so the chain and the rules agree. The store's row for the duel records no
    import: the first row, the rematch's start, is named."""
    fex(fights)
    fex(fights, "rematch")
    duel = fight_id(path, "duel")
    put_rows(path, "duel", [*bodies(path, "rematch"), seed_committed(duel, reason)])
    rows, lineage = rows_of(path, "duel")
    assert verify(rows, duel).ok  # what the fight id alone could not tell
    report = verify(rows, lineage)
    assert report.problems[0][0] == 1 and "another fight" in report.problems[0][1], report.problems
    line = one_error(fudge("verify", "duel", store=path), VERIFY_FAILED)
    assert line.startswith("error: duel: event 1: it belongs to another fight"), line


def test_A_LOG_2_a_branch_of_another_fight_spliced_in_between_this_fights_own_events_is_named(
        fights: Fights, path: Path) -> None:
    """The duel's own 19 events, then a branch's start and its round (the branch's rows, in its own id), then a
    `seed_committed` back in the duel's id: every id change falls on a segment start and the rules follow.
    The branch's start, event 20, is named: the duel is no branch, its own events run from event 1."""
    fex(fights)
    fights.branch("duel", "what-if", 19)
    fights.execute("what-if", cmd.RollTrait(combatant="Snorri", trait="Sword"), dice("snorri=0 0 0 0"))
    duel = fight_id(path, "duel")
    put_rows(path, "duel", [*bodies(path, "what-if"), seed_committed(duel, "spliced")])
    rows, lineage = rows_of(path, "duel")
    report = verify(rows, lineage)
    assert report.problems[0][0] == 20 and "another fight" in report.problems[0][1], report.problems
    assert verify(rows, duel).problems[0][0] == len(rows)  # the id alone: where the duel's id comes back
    line = one_error(fudge("verify", "duel", store=path), VERIFY_FAILED)
    assert line.startswith("error: duel: event 20: it belongs to another fight"), line


def test_A_BRANCH_1_a_branch_whose_prefix_is_not_its_parents_is_named_at_the_fork(
        fights: Fights, path: Path) -> None:
    """The branch's first nine events replaced by the rematch's (same sheets, same dice: the rules agree) and
    the chain re-hashed: the branch's hash at the fork is not its parent's."""
    fex(fights)
    fex(fights, "rematch")
    fights.branch("duel", "what-if", 9)
    own = bodies(path, "what-if")[9:]
    put_rows(path, "what-if", [*bodies(path, "rematch")[:9], *own])
    rows, lineage = rows_of(path, "what-if")
    assert lineage.branch and lineage.fork_seq == 9 and lineage.parent_hash is not None
    report = verify(rows, lineage)
    assert report.problems[0][0] == 9 and "parent" in report.problems[0][1], report.problems
    assert one_error(fudge("verify", "what-if", store=path), VERIFY_FAILED).startswith("error: what-if: event 9: ")


def test_A_BRANCH_1_branches_and_imports_verify_through_the_cli_and_record_their_lineage(
        fights: Fights, path: Path, tmp_path: Path) -> None:
    """A branch of a branch, an import of a branch, and an import made as an older version made it (the
    store's row for it recording no import): each verifies as its own process."""
    fex(fights)
    fights.branch("duel", "what-if", 9)
    fights.execute("what-if", cmd.RollTrait(combatant="Snorri", trait="Sword"), dice("snorri=0 0 0 0"))
    fights.branch("what-if", "deeper", None)
    exported = fights.export("deeper")
    fights.import_(exported, "copy")
    fights.execute("copy", cmd.RollTrait(combatant="Snorri", trait="Sword"), dice("snorri=+ 0 0 0"))
    fights.import_(fights.export("copy"), "older")
    info = fights.store.fight("copy")
    assert (info.parent, info.fork_seq) == (None, len(exported))  # the store records the imported events
    with sqlite3.connect(path) as db:
        db.execute("UPDATE fights SET fork_seq = NULL WHERE name = 'older'")
    for name in ("duel", "what-if", "deeper", "copy", "older"):
        result = fudge("verify", name, store=path)
        assert result.returncode == 0 and "hash chain intact" in result.stdout, (name, result.stderr)


def test_A_LOG_2_an_import_with_its_imported_events_moved_is_named(fights: Fights, path: Path) -> None:
    """The store says the copy's first 19 events are imported; the copy's own seed moved to event 14, the chain
    re-hashed: its lineage no longer matches the store's row."""
    fex(fights)
    fights.import_(fights.export("duel"), "copy")
    copied = bodies(path, "copy")
    put_rows(path, "copy", [*copied[:13], copied[19]])
    rows, lineage = rows_of(path, "copy")
    report = verify(rows, lineage)
    assert report.problems[0][0] == 14 and "ends before this fight's own first event" in report.problems[0][1]


@pytest.mark.parametrize("args", [["verify", "duel"], ["status", "-f", "duel"], ["log", "duel"],
                                  ["replay", "duel"], ["export", "duel"]])
def test_A_VERIFY_1_an_emptied_log_is_one_line(fights: Fights, path: Path, args: list[str]) -> None:
    """Every event of the duel deleted: `verify` said "0 events verified: hash chain intact", then exit 70."""
    fex(fights)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM events")
        db.execute("DELETE FROM commands")
    result = fudge(*args, store=path)
    assert result.returncode not in (0, 70) and "Traceback" not in result.stderr
    line = one_error(result, result.returncode)
    assert "duel" in line and "no event" in line, line
    if args[0] == "verify":
        assert result.returncode == VERIFY_FAILED and "verified" not in result.stdout
    assert verify([]).problems[0][1].startswith("the log holds no event")


def test_A_VERIFY_1_a_fight_the_store_does_not_hold_is_one_line(fights: Fights, path: Path) -> None:
    fex(fights)
    result = fudge("verify", "nosuch", store=path)
    assert result.returncode not in (0, 70)
    assert "nosuch" in one_error(result, result.returncode)
