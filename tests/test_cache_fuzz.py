"""Caches are untrusted input: a snapshot (store.snapshots) or stored view (store.views, cli.views) that
fails its MAC, its decoding, its types or its bounds is ignored, with one warning, and the fight is read
from its log; no command exits on one, and every command answers as on a clean copy of the store.

The sweep edits every column of both tables, one column and one kind of value at a time (text in an
integer column, non-ASCII, empty, huge, truncated, swapped with the other fight's row, bytes for text),
without the key; then rows forged under the user's own key: the pickles that ran code, allocated
gigabytes or hung the unpickler (a dict key of one tuple shared at 40 levels) when snapshots were
pickles, and, shaped for msgpack, a body nested 100,000 deep, an array declaring four billion items,
an ext type, a state of the wrong types or out of its bounds, an undo naming no field, another fight's
state; JSON nested past any decoder for a view. (A map that holds itself or lists shared at every level
cannot be written in msgpack, which has no references.) Each case runs the commands in-process on its own copy of the store: status (board,
--json, --long), log, verify, then a write (exchange) and undo and the reads again, and compares each
output with the clean copy's (command ids and hashes masked after a write: they are new every run). A
sample runs as a GM runs it, each command its own process (tests/processes.py), the memory-bound ones
under an address-space limit a hostile snapshot would break.
"""

from __future__ import annotations

import _pickle
import dataclasses
import itertools
import json
import logging
import os
import pickle
import re
import shutil
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import click.testing
import msgspec
import pytest
import structlog
import typer.main
from msgspec.structs import replace

from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.pmap import PMap
from fudge_combat.engine.kernel.rewind import UNKNOWN
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.service.fights import Fights
from fudge_combat.store import schema, snapshots, views
from fudge_combat.store.log import log
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, sheet, start
from tests.processes import fudge

ENV = {"NO_COLOR": "1", "COLUMNS": "100", "FUDGE_STORE": None}
WARNING = "not used: read from the fight's log instead"
HEX = re.compile(r"\b[0-9a-f]{8,}\b")


def build(db: Path) -> None:
    """Two fights through the service (so the store holds snapshots and status views of both): "duel",
    long enough that its snapshot is behind its last event, and "other", to swap rows with."""
    ids = itertools.count(1)
    fights = Fights(SqliteStore(db), clock=lambda: "2026-01-01T00:00:00.000+00:00",
                    new_id=lambda: f"{next(ids):032x}", random_bytes=lambda n: bytes(range(n)))
    for name in ("other", "duel"):
        start(fights, name)
        for who in ("Ann", "Bob"):
            fights.execute(name, cmd.Join(sheet=sheet(who, skills={"Sword": "Good"}, attack="Sword", weapon=2,
                                                      fudge_points=3), source="test"))
    for _ in range(9):
        fights.execute("duel", cmd.Exchange(first="Ann", second="Bob"), dice("ann=0000", "bob=0000"))
    fights.store.close()


_COMMANDS: dict[str, Any] = {}


def run(db: Path, *args: str) -> Any:
    """`fudge --store DB ARGS...` in-process; the group builds the one command named when click asks for it,
    as `fudge` itself does (cli.main._Fudge), once per test module."""
    command = _COMMANDS.get(args[0])
    if command is None:
        command = _COMMANDS[args[0]] = typer.main.get_command(app)
    return click.testing.CliRunner().invoke(command, ["--store", str(db), *args], env=ENV)


READS = (("status",), ("status", "--json"), ("status", "--long"), ("log",), ("verify", "duel"))
WRITES = (("exchange", "Ann", "Bob", "--dice", "ann=+000", "--dice", "bob=0000"), ("undo",))


def session(db: Path) -> tuple[list[str], str]:
    """What each command prints (masked after the first write), and all they wrote on stderr."""
    outputs, errors = [], []
    for number, args in enumerate((*READS, *WRITES, *READS)):
        result = run(db, *args)
        assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
        outputs.append(result.stdout if number < len(READS) else HEX.sub("#", result.stdout))
        errors.append(result.stderr)
    quiet()
    return outputs, "".join(errors)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("clean")
    build(folder / "fudge.db")
    copy = folder / "copy.db"
    shutil.copy(folder / "fudge.db", copy)
    expected, errors = session(copy)
    assert WARNING not in errors
    return folder / "fudge.db", expected


def fight_ids(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as con:
        found = dict(con.execute("SELECT name, id FROM fights"))
    return found["duel"], found["other"]


# --- every column, every kind of value, without the key ------------------------------------------------

COLUMNS = {"snapshots": ("fight", "seq", "hash", "version", "body", "mac"),
           "views": ("fight", "name", "seq", "hash", "version", "body", "mac")}
VALUES = {
    "text": "'abc'",  # text in an integer column; other text in a text column
    "non_ascii": "'é' || substr({col}, 2)",
    "empty": "''",
    "huge": "CASE typeof({col}) WHEN 'integer' THEN 9223372036854775807 "
            "ELSE replace(hex(zeroblob(5000000)), '0', 'a') END",
    "truncated": "substr({col}, 1, length({col}) / 2)",
    "blob": "CAST({col} AS BLOB)",
    "negative": "-1",
    "swapped": "(SELECT {col} FROM {table} AS o WHERE o.fight = {other} ORDER BY o.rowid LIMIT 1)",
}
HUGE_BODY = "zeroblob(9 << 20)"  # a snapshot's body over its bound


def edit(db: Path, table: str, column: str, kind: str) -> bool:
    """Edit `column` of every row of "duel" in `table`; False when SQLite's own constraints refuse it (text
    in an INTEGER PRIMARY KEY, a key taken)."""
    duel, other = fight_ids(db)
    value = VALUES[kind].format(col=column, table=table, other=other)
    if table == "snapshots" and column == "body" and kind == "huge":
        value = HUGE_BODY
    if table == "views" and kind == "swapped" and column != "fight":
        value = f"(SELECT {column} FROM views AS o WHERE o.fight = {other} AND o.name = views.name)"
    if column == "fight" and kind == "swapped":  # the two fights' rows trade places
        statements = [f"UPDATE {table} SET fight = -7 WHERE fight = {duel}",
                      f"UPDATE {table} SET fight = {duel} WHERE fight = {other}",
                      f"UPDATE {table} SET fight = {other} WHERE fight = -7"]
    else:
        statements = [f"UPDATE {table} SET {column} = {value} WHERE fight = {duel}"]
    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA foreign_keys=OFF")  # as the sqlite3 shell edits a file
        for statement in statements:
            con.execute(statement)
        con.commit()
        return True
    except sqlite3.IntegrityError:
        return False  # a NOT NULL, key or foreign-key constraint: the edit cannot be made
    finally:
        con.close()


def assert_answers_as_clean(db: Path, expected: list[str]) -> str:
    """Every command as on the clean copy; at most one warning per cache, never an error. Its stderr."""
    outputs, errors = session(db)
    assert "internal error" not in errors and "Traceback" not in errors and "error:" not in errors, errors
    for given, wanted, args in zip(outputs, expected, (*READS, *WRITES, *READS)):
        assert given == wanted, args
    for cache in ("snapshot", "view"):
        assert errors.count(f"stored {cache} {WARNING}") <= 1, errors
    return errors


@pytest.mark.parametrize("table,column", [(t, c) for t, cs in COLUMNS.items() for c in cs])
def test_an_edited_column_of_a_cache_is_ignored_and_every_command_answers_as_on_a_clean_store(
        clean: tuple[Path, list[str]], tmp_path: Path, table: str, column: str) -> None:
    source, expected = clean
    edited = 0
    for kind in VALUES:
        snapshots._IGNORED.clear()  # one warning per process: each case is a process of its own
        db = tmp_path / f"{kind}.db"
        shutil.copy(source, db)
        if edit(db, table, column, kind):
            edited += 1
            assert_answers_as_clean(db, expected)
    assert edited >= 3, edited  # an INTEGER PRIMARY KEY takes only integers: 3 kinds; other columns take all


@pytest.mark.parametrize("table", COLUMNS)
def test_the_edit_the_issue_names_warns_once_and_the_next_write_stores_a_good_cache_again(
        clean: tuple[Path, list[str]], tmp_path: Path, table: str) -> None:
    """`update snapshots set mac='é'||substr(mac,2)` (and the same on views): one warning, no exit; the
    next write replaces the row, so the command after it reads the cache without a warning."""
    source, expected = clean
    db = tmp_path / "fudge.db"
    shutil.copy(source, db)
    with sqlite3.connect(db) as con:
        con.execute(f"UPDATE {table} SET mac = 'é' || substr(mac, 2) WHERE mac != ''")
    snapshots._IGNORED.clear()
    errors = assert_answers_as_clean(db, expected)
    assert errors.count(WARNING) == 1, errors
    snapshots._IGNORED.clear()
    again = run(db, "status", "--json")
    assert again.exit_code == 0 and WARNING not in again.stderr, again.stderr
    quiet()


def quiet() -> None:
    """After CliRunner: the CLI configured structlog on the runner's streams, now closed; the helpers
    below need no logs."""
    structlog.reset_defaults()
    log.setup, log.threshold = None, logging.ERROR


# --- rows forged under the user's own key ----------------------------------------------------------------

def tail(db: Path) -> tuple[str, int, str, bytes]:
    store = SqliteStore(db)
    try:
        seq, last_hash = store.tail("duel")
        return store.fight("duel").fight_id, seq, last_hash, snapshots.local_key(create=False) or b""
    finally:
        store.close()


def forge_snapshot(db: Path, body: bytes) -> None:
    """A snapshot row at the fight's last event holding `body`, under the user's own key."""
    fight_id, seq, last_hash, key = tail(db)
    assert key
    version = snapshots.code_version()
    mac = snapshots._mac(key, fight_id, seq, last_hash, version, body)
    duel, _ = fight_ids(db)
    with sqlite3.connect(db) as con:
        con.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?,?,?,?)", (duel, seq, last_hash, version, body, mac))


def state_of(db: Path) -> Any:
    store = SqliteStore(db)
    try:
        return Fights(store).state("duel")
    finally:
        store.close()


def forged(db: Path, change: Callable[[list[Any], list[Any]], None]) -> bytes:
    """The duel's own snapshot body with `change(state, history)` made to what msgpack holds (store.schema:
    each class an array of its fields in order, `FIELD` below)."""
    state, history = schema.tree(state_of(db), UNKNOWN)
    state, history = list(state), list(history)
    change(state, history)
    return msgspec.msgpack.encode((state, history))


FIELD = {name: number for number, name in enumerate(FightState.__struct_fields__)}


def spliced(db: Path, field: str, replacement: bytes) -> bytes:
    """The duel's snapshot body with the bytes of field `field` replaced by `replacement` (raw msgpack:
    what no encoder would write)."""
    marker = "SPLICED-HERE"

    def mark(state: list[Any], history: list[Any]) -> None:
        state[FIELD[field]] = (marker,)

    body = forged(db, mark)
    encoded = msgspec.msgpack.encode((marker,))
    assert body.count(encoded) == 1
    return body.replace(encoded, replacement)


class _Allocates:
    def __reduce__(self) -> tuple[Any, ...]:
        return (bytes, (2_400_000_000,))


def bytes_bomb(db: Path) -> bytes:
    """About 50 bytes that make `bytes(2_400_000_000)`: 2.4 GB from an unpickler that may name a builtin."""
    body = pickle.dumps(_Allocates(), protocol=pickle.HIGHEST_PROTOCOL)
    assert len(body) < 64
    return body


def hash_bomb(levels: int = 40) -> bytes:
    """The pickle that hung the unpickler under the right key: a dict keyed by a tuple that holds one tuple
    twice, `levels` deep (a few hundred bytes; pickle shares the tuple, and hashing the key walks it
    2**levels times, before any check could run). Written opcode by opcode: building it here would hash it."""
    nested: Any = ()
    for _ in range(levels):
        nested = (nested, nested)
    key = pickle.dumps(nested, protocol=2)  # b"\x80\x02" + the opcodes that build the tuple + b"."
    return b"\x80\x02}" + key[2:-1] + b"K\x01s."  # {key: 1}


def test_the_hash_bomb_is_the_dict_it_claims_to_be() -> None:
    """At 12 levels (4,096 steps) the forgery unpickles to {key: 1}, the key shared at every level: at 40
    it is the same dict, 2**40 steps to hash."""
    found = pickle.loads(hash_bomb(12))
    (key, value), = found.items()
    assert value == 1 and key[0] is key[1] and key[0][0] is key[0][1]
    depth = 0
    while key:
        key, depth = key[0], depth + 1
    assert depth == 12 and len(hash_bomb(40)) < 400


def pickle_hash_bomb(db: Path) -> bytes:
    return hash_bomb(40)


def deep_nesting(db: Path) -> bytes:
    """An index key of arrays nested 100,000 deep (where the schema has a tuple of text and numbers)."""
    return spliced(db, "index", b"\x92\xc3\x81" + b"\x91" * 100_000 + b"\xa1x" + b"\x01")


def huge_length(db: Path) -> bytes:
    """The events' keys as an array declaring 2**32 - 1 items, followed by the rest of the body."""
    return spliced(db, "events", b"\xdd\xff\xff\xff\xff")


def ext_type(db: Path) -> bytes:
    """The round as a msgpack ext value (an application type: the schema has none)."""
    return forged(db, lambda state, history: state.__setitem__(FIELD["round"], msgspec.msgpack.Ext(1, b"\x00" * 8)))


def wrong_types(db: Path) -> bytes:
    """The state with a combatant's fudge points as text and his boxes as a number."""
    state = state_of(db)
    ann = state.combatants["ann"]
    forged_ann = replace(ann, fudge_points="many", boxes=7)  # type: ignore[arg-type]
    return schema.encode(replace(state, combatants=PMap({**state.combatants, "ann": forged_ann})), UNKNOWN)


def out_of_bounds(db: Path) -> bytes:
    """The options with a billion Scratch boxes (the option's bound is 1,000: a rule would allocate them)."""
    at = list(RuleOptions.__struct_fields__).index("wound_boxes")

    def change(state: list[Any], history: list[Any]) -> None:
        options = list(state[FIELD["options"]])
        options[at] = (10 ** 9, 1, 1, 1, 1)
        state[FIELD["options"]] = options

    return forged(db, change)


def undo_of_no_field(db: Path) -> bytes:
    """An undo history whose change puts back a field the state does not have."""
    return forged(db, lambda state, history: history.__setitem__(0, [("c" * 32, 1, [("no_such_field", 1)], [])]))


def other_fight(db: Path) -> bytes:
    """A sound state of the other fight, signed as this one's."""
    store = SqliteStore(db)
    try:
        return schema.encode(Fights(store).state("other"), UNKNOWN)
    finally:
        store.close()


def runs_code(db: Path) -> bytes:
    return b"\x80\x05\x8c\x02os\x8c\x06system\x93\x8c\x04true\x85R."


SNAPSHOT_FORGERIES: dict[str, Callable[[Path], bytes]] = {
    "pickle_hash_bomb": pickle_hash_bomb, "runs_code": runs_code, "bytes_bomb": bytes_bomb,
    "deep_nesting": deep_nesting, "huge_length": huge_length, "ext_type": ext_type, "wrong_types": wrong_types,
    "out_of_bounds": out_of_bounds, "undo_of_no_field": undo_of_no_field, "other_fight": other_fight}


def no_pickle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any use of pickle from now on fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        pytest.fail("pickle was used to read a snapshot")

    for module in (pickle, _pickle):
        for name in ("loads", "load", "Unpickler"):
            monkeypatch.setattr(module, name, refuse)


@pytest.mark.parametrize("forgery", SNAPSHOT_FORGERIES)
def test_a_snapshot_forged_under_the_users_key_is_ignored_and_every_command_answers_as_on_a_clean_store(
        clean: tuple[Path, list[str]], tmp_path: Path, forgery: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each forgery is refused by the decoder in well under a second (the hash bomb held the unpickler for
    2**40 steps), with one warning, and nothing is ever unpickled."""
    source, expected = clean
    db = tmp_path / "fudge.db"
    shutil.copy(source, db)
    body = SNAPSHOT_FORGERIES[forgery](db)
    forge_snapshot(db, body)
    no_pickle(monkeypatch)
    fight_id, seq, last_hash, key = tail(db)
    reasons: list[str] = []
    with monkeypatch.context() as patched:
        patched.setattr(snapshots, "ignored", lambda cache, fight, reason: reasons.append(reason))
        started = time.process_time()
        assert snapshots.unpack(snapshots.signed(body, fight_id, seq, last_hash, key), fight_id, seq, last_hash,
                                key) is None
        assert time.process_time() - started < 0.5
    assert len(reasons) == 1 and ("does not decode" in reasons[0] or forgery == "other_fight"), reasons
    snapshots._IGNORED.clear()
    errors = assert_answers_as_clean(db, expected)
    assert errors.count(f"stored snapshot {WARNING}") == 1, errors


def forge_view(db: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    """The status view's head at the fight's last event, changed and sealed again under the user's key."""
    fight_id, seq, last_hash, key = tail(db)
    duel, _ = fight_ids(db)
    with sqlite3.connect(db) as con:
        body = con.execute("SELECT body FROM views WHERE fight = ? AND name = 'status'", (duel,)).fetchone()[0]
        changed = change(json.loads(body))
        text = changed if isinstance(changed, str) else json.dumps(changed)
        row = views.sealed("status", text, fight_id, seq, last_hash, views.board_version(), key)
        con.execute("INSERT OR REPLACE INTO views VALUES (?,?,?,?,?,?,?)",
                    (duel, row.name, row.seq, row.hash, row.version, row.body, row.mac))


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


VIEW_FORGERIES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "json_past_the_decoder": lambda head: "[" * 100_000 + "]" * 100_000,
    "json_of_a_list": lambda head: {**head, "json": nested(3)},
    "board_of_numbers": lambda head: {**head, "board": [[1, 2]]},
    "order_of_text": lambda head: {**head, "first": ["x"]},
    "pages_missing": lambda head: {**head, "pages": [["9", "0" * 32]]},
    "not_an_object": lambda head: [1, 2, 3],
    "text_of_numbers": lambda head: {**head, "text": [1, 2]},
}


@pytest.mark.parametrize("forgery", VIEW_FORGERIES)
def test_a_view_forged_under_the_users_key_is_ignored_and_every_command_answers_as_on_a_clean_store(
        clean: tuple[Path, list[str]], tmp_path: Path, forgery: str) -> None:
    source, expected = clean
    db = tmp_path / "fudge.db"
    shutil.copy(source, db)
    forge_view(db, VIEW_FORGERIES[forgery])
    snapshots._IGNORED.clear()
    errors = assert_answers_as_clean(db, expected)
    assert errors.count(f"stored view {WARNING}") == 1, errors


# --- as a GM runs it: each command its own process -----------------------------------------------------

MEMORY = 1 << 30  # bytes of address space each process may map: a fudge command needs about a quarter
PROCESS_COMMANDS = (("status",), ("status", "--json"), ("verify", "duel"),
                    ("exchange", "Ann", "Bob", "--dice", "ann=+000", "--dice", "bob=0000"))


def processes(db: Path) -> list[tuple[int, str, str]]:
    out = []
    for args in PROCESS_COMMANDS:
        done = fudge(*args, store=db, key=db.parent.parent / "snapshot.key", limit=MEMORY)
        out.append((done.returncode, HEX.sub("#", done.stdout), done.stderr))
    return out


def test_damaged_and_forged_caches_as_separate_processes_under_a_memory_limit(tmp_path: Path) -> None:
    """The issue's edits, and the forgeries that took gigabytes or hung the process when snapshots were
    pickles (a 51-byte `bytes(2_400_000_000)`, a key of one tuple shared at 40 levels), with an array
    declaring four billion items and a body nested 100,000 deep, each command a process of its own limited
    to 1 GiB of address space: each answers as on a clean store, with one warning."""
    key = tmp_path / "snapshot.key"
    (tmp_path / "clean").mkdir()
    db = tmp_path / "clean" / "fudge.db"
    with_key(key, lambda: build(db))
    cases: dict[str, Callable[[Path], None]] = {
        "mac_non_ascii": lambda db: _sql(db, "UPDATE snapshots SET mac = 'é' || substr(mac, 2)"),
        "view_mac_non_ascii": lambda db: _sql(db, "UPDATE views SET mac = 'é' || substr(mac, 2) WHERE mac != ''"),
        "body_text_seq_text": lambda db: _sql(db, "UPDATE snapshots SET body = 'x', seq = 'y'"),
        "bytes_bomb": lambda db: _forged(db, key, bytes_bomb),
        "pickle_hash_bomb": lambda db: _forged(db, key, pickle_hash_bomb),
        "huge_length": lambda db: _forged(db, key, huge_length),
        "deep_nesting": lambda db: _forged(db, key, deep_nesting),
    }
    folders = {}
    for name, damage in cases.items():
        (tmp_path / name).mkdir()
        folders[name] = tmp_path / name / "fudge.db"
        shutil.copy(db, folders[name])
        damage(folders[name])
    with ThreadPoolExecutor(3) as pool:
        results = dict(zip(["clean", *cases], pool.map(processes, [db, *folders.values()])))
    expected = results.pop("clean")
    assert all(code == 0 for code, _, _ in expected), expected
    for name, got in results.items():
        for (code, stdout, stderr), (_, wanted, _), args in zip(got, expected, PROCESS_COMMANDS):
            assert code == 0 and "internal error" not in stderr and "Traceback" not in stderr, (name, args, stderr)
            assert stdout == wanted, (name, args)
        warned = [line for _, _, stderr in got for line in stderr.splitlines() if WARNING in line]
        assert 1 <= len(warned) <= len(PROCESS_COMMANDS), (name, warned)
        assert all(len(stderr.splitlines()) <= 2 for _, _, stderr in got), name  # a line per cache at most


def with_key(key: Path, do: Callable[[], None]) -> None:
    """`do()` with `key` as the user's snapshot key file (the processes' one)."""
    before = os.environ["FUDGE_KEY_FILE"]
    os.environ["FUDGE_KEY_FILE"] = str(key)
    try:
        do()
    finally:
        os.environ["FUDGE_KEY_FILE"] = before


def _sql(db: Path, statement: str) -> None:
    with sqlite3.connect(db) as con:
        con.execute(statement)


def _forged(db: Path, key: Path, forgery: Callable[[Path], bytes]) -> None:
    with_key(key, lambda: forge_snapshot(db, forgery(db)))
