"""A-LOG-1, A-LOG-2, A-VERIFY-1: stored rows of every schema load, replay and verify alike.

New rows are compact (events.envelope, schema 2: fields equal to their defaults are left out).
`fixtures/schema1_logs.jsonl` and `fixtures/schema1_bodies.jsonl` were written by the code
before that (schema 1: every field, `null` for each unset one): whole fights of every event
type whose rows are exactly as that code stored them, and a body of every event type in each
shape the test suite wrote. They must load to the same records, replay and verify for ever.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.events import models as ev
from fudge_combat.events import records
from fudge_combat.events.records import SCHEMA_VERSION, Recorded, canonical, chain_hash, load
from fudge_combat.events.rows import Row
from fudge_combat.projections.fold import replay
from fudge_combat.store.base import FightInfo, StoreError
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def old_bodies() -> list[str]:
    return [json.loads(line) for line in (FIXTURES / "schema1_bodies.jsonl").read_text().splitlines()]


def new_type_bodies() -> list[str]:
    """`fixtures/schema2_bodies.jsonl`: a compact (schema 2) body of each event type added after the
    schema-1 fixtures were written, in each shape, as the code that added the type stored it."""
    return [json.loads(line) for line in (FIXTURES / "schema2_bodies.jsonl").read_text().splitlines()]


def old_logs() -> list[list[dict[str, Any]]]:
    logs: dict[int, list[dict[str, Any]]] = {}
    for line in (FIXTURES / "schema1_logs.jsonl").read_text().splitlines():
        row = json.loads(line)
        logs.setdefault(row["log"], []).append(row)
    return list(logs.values())


def contains(dumped: Any, stored: Any) -> bool:
    """Every field a stored body holds is in the dump with the same value (a later field may be added)."""
    if isinstance(stored, dict):
        return isinstance(dumped, dict) and all(k in dumped and contains(dumped[k], v) for k, v in stored.items())
    if isinstance(stored, list):
        return isinstance(dumped, list) and len(dumped) == len(stored) and all(map(contains, dumped, stored))
    return type(dumped) is type(stored) and dumped == stored


def compact(record: Recorded) -> str:
    """A record's body as the service writes it today (schema 2)."""
    return records.body(msgspec.structs.replace(record, schema_version=SCHEMA_VERSION))


def full(record: Recorded) -> dict[str, Any]:
    out = json.loads(msgspec.json.encode(record))
    out.pop("schema")
    return out


def store_of(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[SqliteStore, str]:
    store = SqliteStore(tmp_path / "old.db")
    name = rows[0]["fight"]
    store.append(name, 0, [Row(r["seq"], r["command"], r["type"], r["body"], r["hash"]) for r in rows],
                 create=FightInfo(name, load(rows[0]["body"]).fight))
    return store, name


def test_schema1_bodies_cover_every_event_type() -> None:
    """A-LOG-1: the fixture has a schema-1 body of every event type (a new type needs no schema-1 body)."""
    written = {json.loads(body)["event"]["type"] for body in old_bodies()}
    assert len(written) >= 44
    assert all(json.loads(body)["schema"] == 1 for body in old_bodies())


def test_every_event_type_has_a_stored_body_of_either_schema() -> None:
    """A-LOG-1: a type added since the schema-1 fixtures has a compact body in schema2_bodies.jsonl (FT-INIT's
    turn passed or held: both shapes), which loads to its record and is written again byte for byte."""
    from typing import get_args

    every = {kind.model_fields["type"].default for kind in get_args(get_args(ev.Event)[0])}
    old = {json.loads(body)["event"]["type"] for body in old_bodies()}
    new = [load(body) for body in new_type_bodies()]
    assert {record.event.type for record in new} | old == every
    assert not {record.event.type for record in new} & old
    assert all(record.schema_version == 2 for record in new)
    assert [compact(record) for record in new] == new_type_bodies()
    assert {record.event.behind for record in new if record.event.type == "fate_turn_passed"} == {None, "Cyrus"}


@pytest.mark.parametrize("index", range(len(old_bodies())))
def test_a_schema1_body_and_its_compact_form_load_to_the_same_record(index: int) -> None:
    """A-LOG-1, A-LOG-2: an old body loads with every value it stored; written again compact (no field equal
    to its default), it is shorter and loads to an equal record with the same full dump, nested models,
    tuples and non-None defaults included."""
    body = old_bodies()[index]
    record = load(body)
    assert record.schema_version == 1
    assert contains(json.loads(msgspec.json.encode(record)), json.loads(body))
    small = compact(record)
    again = load(small)
    assert again.schema_version == SCHEMA_VERSION
    assert msgspec.structs.replace(again, schema_version=1) == record
    assert full(again) == full(record)
    assert len(small) <= len(body)
    stored = json.loads(small)
    assert stored["event"]["type"] == record.event.type and stored["event"]["v"] == record.event.v
    assert canonical(stored) == small  # canonical: the bytes the chain hashes


@pytest.mark.parametrize("index", range(len(old_logs())))
def test_a_schema1_log_replays_and_verifies_and_takes_new_compact_rows(tmp_path: Path, index: int) -> None:
    """A-LOG-1, A-VERIFY-1, A-REPLAY-1: a fight stored by the code before compact rows replays to the same state
    as its records re-written compact; it verifies; commands appended to it write compact rows whose chain
    links onto the old rows, and the mixed log verifies too."""
    rows = old_logs()[index]
    store, name = store_of(tmp_path, rows)
    assert verify(store.read(name)).ok
    records = [load(r["body"]) for r in rows]
    assert replay([load(compact(r)) for r in records]) == replay(records)
    fights = Fights(store)
    assert fights.state(name) == replay(records)
    try:
        fights.execute(name, cmd.Undo())
        fights.execute(name, cmd.Redo())
    except RuleError:
        return  # nothing to undo in this fight: its replay and verify were checked above
    new = store.read(name)[len(rows):]
    assert new and all(json.loads(r.body)["schema"] == SCHEMA_VERSION for r in new)
    assert load(new[0].body).prev == rows[-1]["hash"]
    report = verify(store.read(name))
    assert report.ok, report.problems
    assert Fights(store).state(name) == replay([load(r.body) for r in store.read(name)])


def tamper(path: Path, name: str, seq: int, edit: Any, rehash: bool = False) -> None:
    with sqlite3.connect(path) as db:
        (fight,) = db.execute("SELECT id FROM fights WHERE name = ?", (name,)).fetchone()
        (body,) = db.execute("SELECT body FROM events WHERE fight = ? AND seq = ?", (fight, seq)).fetchone()
        data = json.loads(body)
        edit(data)
        new = canonical(data)
        assert new != body
        if rehash:
            db.execute("UPDATE events SET body = ?, hash = ? WHERE fight = ? AND seq = ?",
                       (new, chain_hash(new), fight, seq))
        else:
            db.execute("UPDATE events SET body = ? WHERE fight = ? AND seq = ?", (new, fight, seq))


def mixed(tmp_path: Path) -> tuple[SqliteStore, str, int]:
    """The first fixture fight, stored as written before, plus an undo and a redo written compact."""
    rows = old_logs()[0]
    store, name = store_of(tmp_path, rows)
    Fights(store).execute(name, cmd.Undo())
    Fights(store).execute(name, cmd.Redo())
    return store, name, len(rows)


@pytest.mark.parametrize("which", ["old", "new"])
def test_A_VERIFY_1_an_edited_row_is_caught_in_old_and_compact_rows(tmp_path: Path, which: str) -> None:
    """A-VERIFY-1: an edited body is named by its seq whether the row is schema 1 or schema 2."""
    store, name, old = mixed(tmp_path)
    seq = 2 if which == "old" else old + 1
    tamper(store.path, name, seq, lambda d: d.update(at="2030-01-01T00:00:00.000+00:00"))
    problems = verify(store.read(name)).problems
    assert problems[0][0] == seq and "do not match its hash" in problems[0][1]


def test_A_VERIFY_1_writing_out_a_default_changes_no_value_but_breaks_the_hash(tmp_path: Path) -> None:
    """A-VERIFY-1, A-LOG-2: the chain is over the stored bytes, never a re-serialisation: a compact row given its
    default `reason` explicitly loads to the same record, and verify still reports it altered."""
    store, name, old = mixed(tmp_path)
    before = load(store.read(name)[old].body)
    assert before.event.type == "command_undone" and "reason" not in json.loads(store.read(name)[old].body)["event"]
    tamper(store.path, name, old + 1, lambda d: d["event"].update(reason="undo"))
    assert load(store.read(name)[old].body) == before
    problems = verify(store.read(name)).problems
    assert problems[0][0] == old + 1 and "do not match its hash" in problems[0][1]


@pytest.mark.parametrize("rehash", [False, True])
@pytest.mark.parametrize("edit", ["unknown field", "unknown type", "wrong type"])
def test_A_VERIFY_1_a_command_on_a_log_with_a_row_that_does_not_read_names_the_row_and_writes_nothing(
        tmp_path: Path, edit: str, rehash: bool) -> None:
    """A-VERIFY-1: a body edited so that it reads as no event (with its hash recomputed or not), on a fight whose
    state must be folded from its log (no snapshot serves): reading the state, a command, an undo and an undo
    back to an event each fail in one line naming the event as `fudge verify` names it, and nothing is
    appended."""
    store, name, old = mixed(tmp_path)
    edits = {"unknown field": lambda d: d["event"].update(zz=1),
             "unknown type": lambda d: d["event"].update(type="wound_markd"),
             "wrong type": lambda d: d["event"].update(round="three")}
    first_round = next(r.seq for r in store.read(name) if r.type == "round_started")
    tamper(store.path, name, first_round, edits[edit], rehash=rehash)
    with sqlite3.connect(store.path) as db:
        db.execute("DELETE FROM snapshots")
        db.execute("DELETE FROM views")
    before = [r.hash for r in store.read(name)]
    why = "cannot be read" if rehash else "its bytes do not match its hash: the event was altered"
    for attempt in (lambda f: f.state(name), lambda f: f.execute(name, cmd.Undo()),
                    lambda f: f.execute(name, cmd.StartRound()), lambda f: f.undo_to(name, 1)):
        with pytest.raises(StoreError, match=rf"^{name}: event {first_round}: {why}.*; `fudge verify {name}`"):
            attempt(Fights(store))
    assert [r.hash for r in store.read(name)] == before


def test_A_VERIFY_1_a_rehashed_edit_of_a_compact_row_breaks_the_next_link(tmp_path: Path) -> None:
    """A-VERIFY-1: recomputing an edited compact row's own hash does not help: the next row's `prev` names the old one."""
    store, name, old = mixed(tmp_path)
    tamper(store.path, name, old + 1, lambda d: d.update(at="2030-01-01T00:00:00.000+00:00"), rehash=True)
    problems = verify(store.read(name)).problems
    assert problems[0][0] == old + 2 and "link" in problems[0][1]


# --- every default is part of the stored format -------------------------------------------------

def stored_models() -> list[type[BaseModel]]:
    return sorted((v for v in vars(ev).values() if isinstance(v, type) and issubclass(v, BaseModel)
                   and v.__module__ in (ev.__name__, "fudge_combat.events.declaration") and v.model_fields),
                  key=lambda c: c.__name__)


def defaults() -> dict[str, Any]:
    out = {}
    for model in stored_models():
        for field, info in model.model_fields.items():
            if not info.is_required() and field not in ("type", "v"):  # both always written
                value = info.get_default(call_default_factory=True)
                out[f"{model.__name__}.{field}"] = value.model_dump(mode="json") if isinstance(
                    value, BaseModel) else json.loads(json.dumps(value))
    return out


def test_A_LOG_1_no_stored_default_ever_changes() -> None:
    """A-LOG-1: compact rows leave out fields at their defaults, so each default recorded here must stay as it is
    (a new field may be added: it is not in the fixture yet). Changing one is a new `v` with an upcaster."""
    recorded = json.loads((FIXTURES / "event_defaults.json").read_text())
    now = defaults()
    changed = {key: (value, now.get(key, "<removed>")) for key, value in recorded.items()
               if key not in now or not contains(now[key], value)}  # a model default may gain new fields
    assert not changed, changed


# --- reading a whole log (store.bulk) -----------------------------------------------------------

def test_A_REPLAY_1_the_collector_is_paused_only_while_a_log_is_read(tmp_path: Path) -> None:
    """A-REPLAY-1: `Fights.replayed` folds every row of the log (the same state as `replay` of `log`), and the
    cyclic garbage collector it pauses is on again afterwards, also after an error, and stays off if it was."""
    import gc

    from fudge_combat.store.bulk import paused_gc

    store, name = store_of(tmp_path, old_logs()[0])
    fights = Fights(store)
    records, state = fights.replayed(name)
    assert records == fights.log(name) and state == replay(fights.log(name)) and gc.isenabled()
    with pytest.raises(ZeroDivisionError), paused_gc():
        assert not gc.isenabled()
        _ = 1 / 0
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_A_VERIFY_1_a_log_of_old_and_compact_rows_exports_and_imports_byte_for_byte(tmp_path: Path) -> None:
    """A-VERIFY-1, A-BRANCH-1: export then import keeps every row's bytes (schema 1 and 2 alike), so the
    imported chain checks; a branch copies both kinds of rows as they are."""
    store, name, old = mixed(tmp_path)
    fights = Fights(store)
    other = Fights(SqliteStore(tmp_path / "other.db"))
    other.import_(fights.export(name), "copy")
    assert [r.body for r in other.store.read("copy")][: old + 2] == [r.body for r in store.read(name)]
    assert verify(other.store.read("copy")).ok
    fights.branch(name, "side", old + 2)
    assert [r.body for r in store.read("side")][: old + 2] == [r.body for r in store.read(name)]
    assert verify(store.read("side")).ok
