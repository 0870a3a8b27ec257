"""A-VERIFY-1, A-LOG-2: random edits of the stored rows of real fights, as an attacker or a broken disk makes them.

The fights: the golden logs of tests/fixtures (every event type, written by older code) and a store
of fights written here (entered and generated dice, a sealed declaration, undo and redo, a revealed
seed, a branch, an import). An edit: bytes of a body (left invalid UTF-8 or not), a JSON value
replaced or removed, two fields swapped, a column (`seq`, `command`, `type`, `hash`) changed, a body
stored as a blob, a row deleted, the log truncated, rows swapped within a fight or taken from another
fight; each with the hashes left, the row re-hashed, or the whole chain after it rebuilt (a rewrite).

What must hold, for every edit:
- `verify` never raises; with the receipt of the untouched log (`--head`) it passes only if the rows
  are exactly the untouched ones;
- without the receipt, an edit of one event that `verify` passes means nothing: the log replays to
  the very state of the untouched one (or it is the untouched log cut short, which only the receipt
  can tell);
- `fudge verify`, `status`, `replay`, `log` and `export` on the store never print a traceback: they
  succeed or say one line (`error: ...`), naming the first bad event; exit 3 when verify fails;
- `fudge import` of the export refuses every log `verify` rejects, and a refused import writes nothing.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from msgspec.structs import replace
from typer.testing import CliRunner

from fudge_combat.cli import main, views
from fudge_combat.cli.history import VERIFY_FAILED
from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.events import structs as ev
from fudge_combat.events.records import GENESIS, canonical, chain_hash, load_all
from fudge_combat.events.rows import Row
from fudge_combat.events.receipt import receipt
from fudge_combat.projections.fold import replay
from fudge_combat.events.rows import Row
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, start
from tests.fuzzing import fuzz
from tests.test_audit import fex, join

FIXTURES = Path(__file__).resolve().parent / "fixtures"
Logs = dict[str, tuple[list[Row], str]]  # name -> (rows, the fight's own id)


# --- the fights ------------------------------------------------------------------------------------------

def golden() -> Logs:
    """The golden logs: whole fights as older code stored them."""
    out: dict[str, list[Row]] = {}
    for line in (FIXTURES / "schema1_logs.jsonl").read_text().splitlines():
        row = json.loads(line)
        out.setdefault(f"golden-{row['log']}", []).append(
            Row(row["seq"], row["command"], row["type"], row["body"], row["hash"]))
    return {name: (rows, json.loads(rows[-1].body)["fight"]) for name, rows in out.items()}


def written(path: Path) -> Fights:
    """A store of fights written by today's code: every way a fight is made and most ways it grows."""
    fights = make_fights(SqliteStore(path))
    seeds = itertools.count(1)
    fights.random_bytes = lambda n: bytes([next(seeds)]) * n
    fex(fights)  # duel: seq 1..19, entered dice
    fights.declare("duel", "Snorri", ev.Declaration(all_out="offense"), sealed=True)
    for who in ("Snorri", "Brynhild"):
        fights.execute("duel", cmd.RollTrait(combatant=who, trait="Perception", difficulty=1))  # generated
    fights.execute("duel", cmd.Undo())
    fights.execute("duel", cmd.Redo())
    fights.reveal_seed("duel")
    fights.execute("duel", cmd.RollTrait(combatant="Brynhild", trait="Perception"))
    fights.branch("duel", "what-if", 9)
    fights.execute("what-if", cmd.Exchange(first="Snorri", second="Brynhild"),
                   dice("snorri=+ + + +", "brynhild=- - - -", "snorri=0 0 0 0"))
    fights.import_(fights.export("duel"), "copy")
    start(fights, "other")
    join(fights, "other", "snorri", "brynhild")
    fights.execute("other", cmd.Exchange(first="Snorri", second="Brynhild"))  # generated dice
    return fights


class Quiet(tuple):  # type: ignore[type-arg]
    """A fixture's value, shown by its type alone when a test fails (the rows would fill pages)."""

    def __repr__(self) -> str:
        return f"<{len(self)} values>"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Logs]:
    path = tmp_path_factory.mktemp("template") / "fudge.db"
    fights = written(path)
    logs = {info.name: (fights.store.read(info.name), info.fight_id) for info in fights.store.fights()}
    fights.store.close()  # type: ignore[attr-defined]
    return Quiet((path, logs))


@pytest.fixture(scope="module")
def everything(template: tuple[Path, Logs]) -> Any:
    return Quiet(({**golden(), **template[1]},))


# --- the edits -------------------------------------------------------------------------------------------

VALUES = st.recursive(
    st.one_of(st.integers(-3, 120), st.sampled_from([99, -1, 0, 2**63, 10**30]), st.none(), st.booleans(),
              st.floats(), st.text(max_size=6),
              st.sampled_from(["", "Nobody", "Snorri", "brynhild", "generated", "entered", "\x1b[2J", "0" * 64])),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=4)


def paths(data: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value (not the root itself)."""
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield here + (key,)
        yield from paths(value, here + (key,))


def parent(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


def text(body: bytes) -> str:
    """Stored bytes as the store reads them back (invalid UTF-8 as lone surrogates: store.sqlite)."""
    return body.decode("utf-8", "surrogateescape")


def rechain(rows: list[Row], start: int, renumber: bool = False) -> list[Row]:
    """The chain rebuilt from `start` on, as a forger with the code would: each later body re-linked and
    re-hashed (and renumbered). Stops at a body that is not JSON."""
    out = list(rows)
    prev = out[start - 1].hash if start > 0 else GENESIS
    for index in range(start, len(out)):
        row = out[index]
        try:
            data = json.loads(row.body)
            data["prev"] = prev
            if renumber:
                data["seq"] = index + 1
            body = canonical(data)
            digest = chain_hash(body)
        except (ValueError, TypeError, UnicodeError, RecursionError):
            break
        out[index] = Row(index + 1 if renumber else row.seq, row.command, row.type, body, digest)
        prev = digest
    return out


def rehashed(rows: list[Row], index: int, how: str) -> list[Row]:
    """The edited row `index` left as it is, re-hashed alone, or with the chain after it rebuilt."""
    if how == "none" or not isinstance(rows[index].body, str):
        return rows
    if how == "own":
        try:
            digest = chain_hash(rows[index].body)
        except UnicodeError:
            return rows
        return rows[:index] + [replace(rows[index], hash=digest)] + rows[index + 1:]
    return rechain(rows, index)


class Edit(tuple):  # type: ignore[type-arg]
    """(fight, its edited rows, whether the edit is one event's: a local edit rather than a rewrite), shown
    briefly when a test fails (the rows differ from the fight's where they differ)."""

    def __repr__(self) -> str:
        return f"<edit of {self[0]}>"


@st.composite
def edits(draw: Any, logs: Logs) -> Edit:
    name, rows, local = draw(edit_of(logs))
    original = logs[name][0]
    changed = [(i, row) for i, row in enumerate(rows) if i >= len(original) or row != original[i]]
    note = f"{name}: {len(rows)} rows of {len(original)}; changed: {[(i, repr(r)[:300]) for i, r in changed[:2]]}"
    from hypothesis import note as say

    say(note)
    return Edit((name, rows, local))


@st.composite
def edit_of(draw: Any, logs: Logs) -> tuple[str, list[Row], bool]:
    name = draw(st.sampled_from(sorted(logs)))
    rows = list(logs[name][0])
    index = draw(st.integers(0, len(rows) - 1))
    row = rows[index]
    how = draw(st.sampled_from(["none", "own", "chain"]))
    kind = draw(st.sampled_from(["bytes", "value", "value", "value", "swap", "column", "blob", "delete",
                                 "truncate", "rows", "foreign"]))
    if kind == "bytes":
        raw = bytearray(row.body.encode())
        at = draw(st.integers(0, len(raw) - 1))
        op = draw(st.sampled_from(["set", "insert", "delete"]))
        byte = draw(st.integers(0, 255))
        if op == "set":
            raw[at] = byte
        elif op == "insert":
            raw.insert(at, byte)
        else:
            del raw[at]
        rows[index] = replace(row, body=text(bytes(raw)))
        return name, rehashed(rows, index, how), True
    if kind in ("value", "swap"):
        data = json.loads(row.body)
        places = list(paths(data))
        first = draw(st.sampled_from(places))
        if kind == "value":
            holder = parent(data, first)
            if isinstance(holder, dict) and draw(st.booleans()):
                del holder[first[-1]]
            else:
                holder[first[-1]] = draw(VALUES)
        else:
            second = draw(st.sampled_from(places))
            if second[:len(first)] == first or first[:len(second)] == second:
                return name, rows, True
            a, b = parent(data, first), parent(data, second)
            a[first[-1]], b[second[-1]] = b[second[-1]], a[first[-1]]
        rows[index] = replace(row, body=canonical(data))
        return name, rehashed(rows, index, how), True
    if kind == "column":
        column = draw(st.sampled_from(["seq", "command", "type", "hash"]))
        other = rows[draw(st.integers(0, len(rows) - 1))]
        value = getattr(other, column) if draw(st.booleans()) else draw(
            st.integers(-1, 3) if column == "seq" else st.sampled_from(["", "dice_rolled", "command_undone", "x"]))
        rows[index] = replace(row, **{column: value})
        return name, rows, True
    if kind == "blob":  # the body's own bytes, stored as a blob: the store reads bytes back
        rows[index] = replace(row, body=row.body.encode())  # type: ignore[arg-type]
        return name, rows, True
    if kind == "delete":
        del rows[index]
        return name, rechain(rows, index, renumber=True) if how == "chain" else rows, how != "chain"
    if kind == "truncate":
        return name, rows[:index + 1], True
    if kind == "rows":  # two rows of the fight change places
        other = draw(st.integers(0, len(rows) - 1))
        rows[index], rows[other] = rows[other], rows[index]
        low = min(index, other)
        return name, rechain(rows, low, renumber=True) if how == "chain" else rows, how != "chain"
    donor = logs[draw(st.sampled_from(sorted(logs)))][0]  # a row of another fight, at the same place
    rows[index] = donor[min(index, len(donor) - 1)]
    return name, rehashed(rows, index, how), how != "chain"


def state_of(rows: list[Row]) -> Any:
    return replay(load_all(row.body for row in rows))


# --- verify: never raises; the receipt catches every change; without it, no change of meaning passes ---------

@fuzz(1500)
@given(data=st.data())
def test_A_VERIFY_1_every_edit_is_reported_by_its_seq_and_none_changes_the_meaning_unseen(
        everything: Logs, data: Any) -> None:
    logs = everything[0]
    name, rows, local = data.draw(edits(logs))
    original, fight_id = logs[name]
    head = (original[-1].seq, original[-1].hash[:32])
    anchored = verify(rows, fight_id, head)
    assert anchored.ok == (rows == original), anchored.problems
    for seq, why in anchored.problems:
        assert isinstance(seq, int) and why and "\n" not in why
    report = verify(rows, fight_id)
    if report.ok and local and rows != original[:len(rows)] and not unrevealed_roll(rows, original, report):
        assert state_of(rows) == state_of(original)


def unrevealed_roll(rows: list[Row], original: list[Row], report: Any) -> bool:
    """A-FAIR-1's own limit: a generated roll's faces and draw are checked once its seed is revealed, not before
    (tests/test_audit.py shows the same forgery caught after the reveal)."""
    first = next(i for i, (a, b) in enumerate(zip(rows, original)) if a != b)
    event = json.loads(original[first].body)["event"]
    return report.rolls_unchecked > 0 and event.get("source") == "generated"


# --- the command line on an edited store: one line, never a traceback; import refuses what verify rejects ---

def store_rows(path: Path, name: str, rows: list[Row]) -> None:
    """The fight's rows in the file replaced by `rows`, byte for byte (invalid UTF-8 kept, blobs as blobs)."""
    with sqlite3.connect(path) as db:
        (fight,) = db.execute("SELECT id FROM fights WHERE name = ?", (name,)).fetchone()
        db.execute("DELETE FROM events WHERE fight = ?", (fight,))
        for row in rows:
            body: Any = row.body
            cast = "?"
            if isinstance(body, str):
                try:
                    body.encode()
                except UnicodeError:
                    body, cast = body.encode("utf-8", "surrogateescape"), "CAST(? AS TEXT)"
            db.execute(f"INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, {cast}, ?)",
                       (fight, row.seq, row.command, row.type, body, row.hash))


def run(*args: str) -> Any:
    """`fudge ARGS` in this process: one line on stderr when it fails, never a traceback. Only the named
    command's module is read, as the console script does (cli.main)."""
    app.named = main._named(list(args))
    try:
        result = CliRunner().invoke(app, list(args), env={"FUDGE_STORE": None})
    finally:
        app.named = None
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
    if result.exit_code:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)
    return result


def dump(path: Path) -> list[Any] | None:
    """Every row of a store; None when there is no store file (a store is made by its first write)."""
    if not path.exists():
        return None
    with sqlite3.connect(path) as db:
        return [db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("fights", "events", "secrets", "meta")]


NAMES = itertools.count()


@fuzz(120)
@given(data=st.data())
def test_A_VERIFY_1_the_command_line_on_an_edited_store_says_one_line_and_import_refuses_forgeries(
        template: tuple[Path, Logs], tmp_path_factory: pytest.TempPathFactory, data: Any) -> None:
    source, logs = template
    name, rows, _ = data.draw(edits(logs))
    folder = tmp_path_factory.mktemp("edited")
    path, target = folder / "fudge.db", folder / "target.db"
    shutil.copyfile(source, path)
    store_rows(path, name, rows)
    reader = SqliteStore(path)
    rows = reader.read(name)  # as the store reads them back (in seq order; a blob as bytes)
    reader.close()
    original = logs[name][0]
    store = str(path)

    checked = run("--store", store, "verify", name, "--head", receipt(original[-1].seq, original[-1].hash))
    assert checked.exit_code == (0 if rows == original else VERIFY_FAILED), checked.stderr
    plain = run("--store", store, "verify", name)
    assert plain.exit_code in (0, VERIFY_FAILED)
    if plain.exit_code:
        assert plain.stderr.startswith(f"error: {name}: event ")
    shown = views.status_from_argv(["--store", store, "status", "-f", name, "--receipt"])
    assert shown is None or "receipt " in shown
    for args in (["status", "-f", name], ["status", "-f", name, "--as-of", "5"], ["replay", name],
                 ["log", name, "--json"]):
        result = run("--store", store, *args)
        if result.exit_code:
            if "--as-of" in args and max((r.seq for r in rows), default=0) < 5 and "--as-of takes" in result.stderr:
                continue  # a log cut shorter than the event asked for: said as such, nothing to read
            assert plain.exit_code and "event " in result.stderr and "fudge verify" in result.stderr, result.stderr
    exported = run("--store", store, "export", name)
    if exported.exit_code:
        assert plain.exit_code and "event " in exported.stderr
        return
    before = dump(target)
    copy = f"copy{next(NAMES)}"
    (folder / "log.jsonl").write_text(exported.stdout)
    imported = run("--store", str(target), "import", str(folder / "log.jsonl"), "--as", copy)
    if imported.exit_code:
        assert "refusing to import" in imported.stderr or "is not an exported event" in imported.stderr
        assert dump(target) == before  # a refused import writes nothing
        return
    assert run("--store", str(target), "verify", copy).exit_code == 0  # nothing verify rejects is imported


def test_the_edits_reach_every_kind_of_row(everything: Any) -> None:
    """The fuzzed fights hold the shapes a real store holds: a branch, an import, a reveal, undo and redo,
    generated and entered dice, a sealed declaration, schema 1 and schema 2 bodies."""
    types = {row.type for rows, _ in everything[0].values() for row in rows}
    assert {"branch_started", "seed_committed", "seed_revealed", "command_undone", "command_redone",
            "declaration_sealed", "dice_rolled", "wound_marked"} <= types
    schemas = {json.loads(row.body)["schema"] for rows, _ in everything[0].values() for row in rows}
    assert schemas == {1, 2}
