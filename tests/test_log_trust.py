"""A-VERIFY-1, A-LOG-2: what the chain alone cannot see, and a log `verify` cannot follow.

- The head receipt (events.receipt): a shortened log, or one rewritten and re-hashed by someone with
  the code, is internally consistent; the receipt kept outside the store is not fooled.
- Substitution: every stored byte a read uses is hashed or checked against the hash: the `type` and
  `command` columns against the body, the fight id against the fight (A-LOG-2).
- An impossible log (forged into what the rules cannot follow) is a report naming its first bad
  event, never a traceback: in `verify`, `status`, `replay`, and `import` refuses it.

Tampering is done as an attacker would: straight into the SQLite file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fudge_combat.cli import views
from fudge_combat.cli.history import VERIFY_FAILED
from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.events.records import canonical, chain_hash
from fudge_combat.events.receipt import parse, receipt
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights
from tests.test_audit import fex, rewrite, types


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "fudge.db"


@pytest.fixture
def fights(path: Path) -> Fights:
    return make_fights(SqliteStore(path))


def fudge(path: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--store", str(path), *args], env={"FUDGE_STORE": None})


def one_error(result: Any, code: int = 1) -> str:
    """The one line a failed command prints (and that it printed nothing else, and no traceback)."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == code, (result.exit_code, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def head_of(path: Path, name: str = "duel") -> str:
    """The receipt `fudge verify` prints, as a table would copy it."""
    result = fudge(path, "verify", name)
    assert result.exit_code == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("receipt ")
    return last.split()[1]


def rows_of(path: Path, name: str = "duel") -> Any:
    store = SqliteStore(path)
    try:
        return store.read(name), store.fight(name).fight_id
    finally:
        store.close()


# --- the head receipt ----------------------------------------------------------------------------------

def test_A_VERIFY_1_the_receipt_is_the_heads_seq_and_hash_and_every_view_shows_the_same(
        fights: Fights, path: Path) -> None:
    """`verify`, `status --receipt` (read model and computed), `status --as-of --receipt` and `export` show one
    receipt: the last event's seq and the first 32 hex digits of its hash; plain `status` shows none."""
    fex(fights)
    assert fudge(path, "wound", "Snorri", "Scratch", "--reason", "a fall").exit_code == 0  # stores the status view
    rows, _ = rows_of(path)
    expected = f"{rows[-1].seq}:{rows[-1].hash[:32]}"
    assert head_of(path) == expected == receipt(rows[-1].seq, rows[-1].hash)
    fast = views.status_from_argv(["--store", str(path), "status", "-f", "duel", "--receipt"])
    assert fast is not None and fast.splitlines()[-1] == f"receipt {expected}"
    computed = fudge(path, "status", "-f", "duel", "--as-of", str(rows[-1].seq), "--receipt")
    assert computed.stdout == fast + "\n"
    plain = views.status_from_argv(["--store", str(path), "status", "-f", "duel"])
    assert plain is not None and plain == fast.rsplit("\n", 1)[0] and "receipt" not in plain
    assert fudge(path, "status", "-f", "duel", "--as-of", str(rows[-1].seq)).stdout == plain + "\n"
    earlier = fudge(path, "status", "-f", "duel", "--as-of", "9", "--receipt").stdout.splitlines()[-1]
    assert earlier == f"receipt 9:{rows[8].hash[:32]}"
    exported = fudge(path, "export", "duel")
    assert exported.exit_code == 0 and exported.stderr.strip().splitlines()[-1] == f"receipt {expected}"
    assert "receipt" not in exported.stdout  # the export itself stays JSON lines


def test_A_VERIFY_1_a_shortened_log_verifies_alone_but_fails_its_receipt(fights: Fights, path: Path) -> None:
    """The last command (events 14..19) deleted: a consistent shorter log. The receipt names what is missing."""
    fex(fights)
    head = head_of(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM events WHERE seq >= 14")
    rows, fight_id = rows_of(path)
    assert verify(rows, fight_id).ok  # what the chain alone cannot tell
    line = one_error(fudge(path, "verify", "duel", "--head", head), VERIFY_FAILED)
    assert line.startswith("error: duel: event 19: ") and "shortened" in line


def test_A_VERIFY_1_a_log_rewritten_with_the_code_itself_fails_its_receipt(fights: Fights, path: Path) -> None:
    """Round 3 thrown away and played again with other dice through the service: every hash links, every rule
    agrees, `verify` alone passes. The receipt of event 19 does not."""
    fex(fights)
    head = head_of(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM events WHERE seq >= 14")
        db.execute("DELETE FROM commands WHERE first_seq >= 14")
        db.execute("DELETE FROM snapshots")
    forger = Fights(SqliteStore(path))
    forger.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=+ + 0 0", "brynhild=- 0 0 0", "snorri=+ 0 0 0"))
    rows, fight_id = rows_of(path)
    assert len(rows) >= 19 and verify(rows, fight_id).ok
    line = one_error(fudge(path, "verify", "duel", "--head", head), VERIFY_FAILED)
    assert line.startswith("error: duel: event 19: ") and "rewritten" in line


def test_A_VERIFY_1_a_receipt_holds_as_the_log_grows_and_in_its_import(fights: Fights, path: Path,
                                                                       tmp_path: Path) -> None:
    fex(fights)
    head = head_of(path)
    fights.execute("duel", cmd.Undo())
    held = fudge(path, "verify", "duel", "--head", head)
    assert held.exit_code == 0 and f"receipt {head} holds" in held.stdout
    copy = tmp_path / "copy.db"
    Fights(SqliteStore(copy)).import_(fights.export("duel"), "copy")
    assert fudge(copy, "verify", "copy", "--head", head).exit_code == 0  # the import keeps every event


@pytest.mark.parametrize("given", ["19", "19:abc", "x:0123456789abcdef", "19:0123456789abcdefg", "0:0123456789abcdef"])
def test_A_VERIFY_1_a_malformed_receipt_is_one_line(fights: Fights, path: Path, given: str) -> None:
    fex(fights)
    line = one_error(fudge(path, "verify", "duel", "--head", given))
    assert line.startswith("error: --head: ")
    with pytest.raises(ValueError):
        parse(given)


def test_A_VERIFY_1_a_receipt_is_read_back_as_printed_and_in_any_case() -> None:
    digest = "ab" * 32
    assert parse(receipt(7, digest)) == (7, digest[:32])
    assert parse(f" 7:{digest.upper()} ") == (7, digest)


# --- substitution: every byte a read uses is covered -------------------------------------------------------

@pytest.mark.parametrize(("column", "value"), [("type", "dice_rolled"), ("command", "0" * 32)])
def test_A_VERIFY_1_a_rows_type_and_command_columns_must_say_what_its_body_says(
        fights: Fights, path: Path, column: str, value: str) -> None:
    """The columns beside the hashed body are read too (the snapshot path looks for voiding events by `type`,
    the dice look-back reads only the rows whose `type` can draw, branch and idempotency read `command`)."""
    fex(fights)
    fights.execute("duel", cmd.Undo())  # event 20, command_undone
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE events SET {column} = ? WHERE seq = 20", (value,))
    rows, fight_id = rows_of(path)
    report = verify(rows, fight_id)
    assert report.problems[0][0] == 20 and "column" in report.problems[0][1]
    assert "event 20:" in one_error(fudge(path, "verify", "duel"), VERIFY_FAILED)


def test_A_LOG_2_a_fights_rows_replaced_by_another_fights_are_caught(fights: Fights, path: Path) -> None:
    """A rematch played with the same sheets and dice: its rows put in place of the duel's keep their chain
    and their rules. Their fight id is the rematch's, not the duel's."""
    fex(fights)
    fex(fights, "rematch")
    with sqlite3.connect(path) as db:
        ids = dict(db.execute("SELECT name, id FROM fights"))
        db.execute("DELETE FROM events WHERE fight = ?", (ids["duel"],))
        db.execute("INSERT INTO events SELECT ?, seq, command, type, body, hash FROM events WHERE fight = ?",
                   (ids["duel"], ids["rematch"]))
    rows, fight_id = rows_of(path)
    assert verify(rows).ok  # the rows alone are a whole, consistent fight
    report = verify(rows, fight_id)
    assert report.problems[0][0] == 1 and "another fight" in report.problems[0][1]
    assert "error: duel: event 1: " in one_error(fudge(path, "verify", "duel"), VERIFY_FAILED)


def test_A_LOG_2_another_fights_events_spliced_in_with_a_rebuilt_chain_are_caught(fights: Fights, path: Path) -> None:
    """Round 3 (events 14..19) taken from the rematch, the chain re-linked: the rules agree (same sheets, same
    dice), the fight id changes in the middle of the log, where no fight, branch or import starts."""
    fex(fights)
    fex(fights, "rematch")
    rematch, _ = rows_of(path, "rematch")
    with sqlite3.connect(path) as db:
        (duel,) = db.execute("SELECT id FROM fights WHERE name = 'duel'").fetchone()
        (prev,) = db.execute("SELECT hash FROM events WHERE fight = ? AND seq = 13", (duel,)).fetchone()
        for row in rematch[13:]:
            data = json.loads(row.body)
            data["prev"] = prev
            body = canonical(data)
            prev = chain_hash(body)
            db.execute("UPDATE events SET command = ?, body = ?, hash = ? WHERE fight = ? AND seq = ?",
                       (row.command, body, prev, duel, row.seq))
    rows, fight_id = rows_of(path)
    report = verify(rows, fight_id)
    assert report.problems == ((14, report.problems[0][1]),) and "another fight" in report.problems[0][1]


def test_A_BRANCH_1_a_branch_and_an_import_keep_their_lineage_and_verify(fights: Fights, path: Path) -> None:
    """The lineage rule: a branch's prefix carries its parent's id, an import the original's; each fight's own
    id starts at its own first event (branch_started, seed_committed) and runs to the end."""
    fex(fights)
    fights.branch("duel", "what-if", 9)
    fights.import_(fights.export("what-if"), "copy")
    fights.execute("copy", cmd.RollTrait(combatant="Snorri", trait="Sword"), dice("snorri=0 0 0 0"))
    for name in ("duel", "what-if", "copy"):
        rows, fight_id = rows_of(path, name)
        assert verify(rows, fight_id).ok, name
        assert fudge(path, "verify", name).exit_code == 0
    rows, fight_id = rows_of(path, "copy")
    ids = [json.loads(r.body)["fight"] for r in rows]
    assert ids[-1] == fight_id and len(set(ids)) == 3  # duel's, what-if's, the copy's


def test_A_BRANCH_1_a_branch_start_moved_to_another_fork_point_is_caught(fights: Fights, path: Path) -> None:
    fex(fights)
    fights.branch("duel", "what-if", 9)

    def move(data: dict[str, Any]) -> None:
        data["event"]["fork_seq"] = data["issued"]["fork_seq"] = 13

    rewrite(path, "what-if", 10, move, rechain=True)
    rows, fight_id = rows_of(path, "what-if")
    report = verify(rows, fight_id)
    assert report.problems[0][0] == 10 and "fork" in report.problems[0][1]


# --- an impossible log: a report, not a traceback; import refuses it --------------------------------------

FORGERIES: dict[str, tuple[int, Callable[[dict[str, Any]], None]]] = {
    "a wound level of 99": (9, lambda d: d["event"].update(level=99)),
    "a combatant named nobody": (9, lambda d: d["event"].update(combatant="Nobody")),
    "rules no preset has": (1, lambda d: d["event"]["options"].update(wound_boxes="x")),
    "dice no die shows": (5, lambda d: d["event"].update(faces=[7, 7, 7, 7])),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_A_VERIFY_1_a_forged_log_is_reported_by_seq_by_verify_status_and_replay(
        fights: Fights, path: Path, forgery: str) -> None:
    """Each forgery, chain rebuilt after it, made `verify`, `status` or `replay` raise (KeyError, IndexError,
    ValidationError): now each names the event, and `status` and `replay` point to `fudge verify`."""
    seq, edit = FORGERIES[forgery]
    fex(fights)
    rewrite(path, "duel", seq, edit, rechain=True)
    rows, fight_id = rows_of(path)
    report = verify(rows, fight_id)
    assert report.problems and report.problems[0][0] == seq
    assert f"error: duel: event {seq}: " in one_error(fudge(path, "verify", "duel"), VERIFY_FAILED)
    for args in (["status", "-f", "duel"], ["replay", "duel"], ["log", "duel"]):
        result = fudge(path, *args)
        if result.exit_code:  # a read that does not need the forged event still works
            line = one_error(result)
            assert f"error: duel: event {seq}: " in line and "fudge verify" in line


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_A_VERIFY_1_import_refuses_a_forged_log_and_writes_nothing(fights: Fights, path: Path, tmp_path: Path,
                                                                   forgery: str) -> None:
    """`import` runs verify's checker, rules included: a wound level of 99 or a combatant named nobody, chain
    rebuilt, was imported and then broke `status` and `replay` for everyone."""
    seq, edit = FORGERIES[forgery]
    fex(fights)
    rewrite(path, "duel", seq, edit, rechain=True)
    lines = [json.dumps({"seq": r.seq, "hash": r.hash, "body": json.loads(r.body)}) for r in rows_of(path)[0]]
    target = tmp_path / "target.db"
    other = Fights(SqliteStore(target))
    with pytest.raises(InputError, match=f"refusing to import: event {seq}: "):
        other.import_(lines, "copy")
    assert other.store.fights() == []
    source = tmp_path / "forged.jsonl"
    source.write_text("\n".join(lines) + "\n")
    line = one_error(fudge(target, "import", str(source), "--as", "copy"))
    assert f"event {seq}" in line and "nothing was imported" in line
    assert Fights(SqliteStore(target)).store.fights() == []


def test_A_VERIFY_1_a_body_that_is_not_utf8_is_named_by_every_read(fights: Fights, path: Path) -> None:
    """A byte of event 5 made invalid UTF-8: sqlite3 refused to read the fight at all (a traceback naming no
    event). Every read now goes on and names event 5."""
    fex(fights)
    assert types(fights)[5] == "dice_rolled"
    with sqlite3.connect(path) as db:
        (body,) = db.execute("SELECT body FROM events WHERE seq = 5").fetchone()
        raw = body.encode()
        db.execute("UPDATE events SET body = CAST(? AS TEXT) WHERE seq = 5", (raw[:40] + b"\xff" + raw[41:],))
    rows, fight_id = rows_of(path)
    assert verify(rows, fight_id).problems[0] == (5, "its bytes are not UTF-8 text: the event was altered")
    assert "event 5:" in one_error(fudge(path, "verify", "duel"), VERIFY_FAILED)
    for args in (["status", "-f", "duel"], ["replay", "duel"], ["export", "duel"]):
        assert "error: duel: event 5: " in one_error(fudge(path, *args))


def test_A_VERIFY_1_a_problem_quoting_the_log_is_one_plain_line(fights: Fights, path: Path) -> None:
    """A forged sheet key holding a record separator and an escape sequence, in the sheet both the command and
    the event carry: the report quotes the key, escaped, on one line."""
    fex(fights)

    def forge(data: dict[str, Any]) -> None:
        data["event"]["sheet"]["fate_armor"] = data["issued"]["sheet"]["fate_armor"] = {"\x1e\x1b[2J": 1}

    rewrite(path, "duel", 2, forge, rechain=True)
    line = one_error(fudge(path, "verify", "duel"), VERIFY_FAILED)
    assert line.startswith("error: duel: event 2: ") and "\x1b" not in line and "\x1e" not in line
    assert "\\x1e\\x1b[2J" in line
