"""Fuzzing the inputs: no file, TOML or command line gives a traceback, and no refused input changes the store.

Random bytes, random TOML and example sheets and house files mutated one field at a time are
read by the parsers and fed to `fudge join` and `fudge new --house`; random command lines run
against a store holding a fight. In-process through Typer's CliRunner for speed, and a handful as
real processes. `FUDGE_FUZZ_SCALE=50` runs the long profile (tests/fuzzing.py).
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import sqlite3
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from fudge_combat.cli.main import COMMANDS, app
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import Sheet, parse_sheet
from tests.fuzzing import fuzz
from tests.processes import ROOT, fudge as fudge_process
from tests.test_inputs import dump

SHEETS = sorted((ROOT / "examples" / "sheets").glob("*.toml"))
HOUSES = sorted((ROOT / "examples" / "house").glob("*.toml"))
RUNNER = CliRunner()


# --- TOML from strategies --------------------------------------------------------------------------

def toml_value(value: Any) -> str:
    """A value as TOML (inline tables and arrays: any nesting on one line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's basic-string escapes
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


def toml_text(table: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(str(key))} = {toml_value(value)}\n" for key, value in table.items())


KEYS = sorted({*Sheet.__struct_fields__, *RuleOptions.__struct_fields__, "extends", "name", "fate_points", "ladder",
               "boxes", "attack", "damage", "Sword", "Strength"})
scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.integers(min_value=-30, max_value=30),
    st.booleans(), st.floats(allow_nan=True), st.text(max_size=12),
    st.sampled_from(["Good", "Fair", "Good+", "Superb+99", "fudge", "fate", "atari-isev", "  ", "a=b", "\x1b[2J",
                     "realistic", "doubled", "pawn", "npc", "Sword", "AP"]))
keys = st.one_of(st.sampled_from(KEYS), st.text(min_size=1, max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                       st.dictionaries(keys, inner, max_size=5)), max_leaves=20)
random_toml = st.dictionaries(keys, values, max_size=8).map(toml_text)


def example_tables(paths: list[Path]) -> list[dict[str, Any]]:
    return [tomllib.loads(path.read_text()) for path in paths]


def paths_of(table: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key path in a table, tables and lists included."""
    items = table.items() if isinstance(table, dict) else enumerate(table) if isinstance(table, list) else ()
    for key, value in items:
        yield (*prefix, key)
        yield from paths_of(value, (*prefix, key))


@st.composite
def mutated(draw: st.DrawFn, tables: list[dict[str, Any]]) -> str:
    """A valid example with a few fields replaced, removed or added: near-valid input."""
    table = json.loads(json.dumps(draw(st.sampled_from(tables))))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        spots = list(paths_of(table))
        if not spots or draw(st.booleans()) and draw(st.booleans()):
            table[draw(keys)] = draw(values)
            continue
        path = draw(st.sampled_from(spots))
        parent = table
        for part in path[:-1]:
            parent = parent[part]
        if isinstance(parent, dict) and draw(st.booleans()) and len(path) > 1:
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(values)
    return toml_text(table)


def as_bytes(text: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    """Text in the encodings a GM's editor may have used, or any bytes at all."""
    encodings = st.sampled_from(["utf-8", "utf-8", "utf-16", "latin-1"])
    encoded = st.tuples(text, encodings).map(lambda te: te[0].encode(te[1], errors="replace"))
    return st.one_of(encoded, st.binary(max_size=200))


sheet_texts = st.one_of(random_toml, mutated(example_tables(SHEETS)))
house_texts = st.one_of(random_toml, mutated(example_tables(HOUSES)))


# --- the parsers -----------------------------------------------------------------------------------

@fuzz(1000)
@given(sheet_texts)
def test_parse_sheet_refuses_with_an_input_error_only(text: str) -> None:
    try:
        parse_sheet(text, "fuzz.toml")
    except InputError as exc:
        assert "\n" not in str(exc).strip() or "not valid TOML" in str(exc)


@fuzz(800)
@given(house_texts)
def test_house_rules_refuse_with_an_input_error_only(text: str) -> None:
    try:
        resolve("fudge", text, "fuzz.toml")
    except InputError:
        pass


# --- the command line, in-process ------------------------------------------------------------------

def template() -> Path:
    """A store holding the fight `duel` with Snorri and Brynhild, made once (no WAL files beside it)."""
    folder = Path(tempfile.mkdtemp(prefix="fudge-fuzz-"))
    for args in (["new", "duel"], ["join", str(ROOT / "examples/sheets/snorri.toml")],
                 ["join", str(ROOT / "examples/sheets/brynhild.toml")]):
        result = RUNNER.invoke(app, ["--store", str(folder / "live.db"), *args], env={"FUDGE_STORE": None})
        assert result.exit_code == 0, result.stderr
    source, copy = sqlite3.connect(folder / "live.db"), sqlite3.connect(folder / "template.db")
    source.backup(copy)
    source.close()
    copy.close()
    return folder / "template.db"


TEMPLATE: list[Path] = []


@contextmanager
def fresh_store() -> Iterator[Path]:
    if not TEMPLATE:
        TEMPLATE.append(template())
    with tempfile.TemporaryDirectory(prefix="fudge-fuzz-") as folder:
        store = Path(folder) / "fudge.db"
        shutil.copyfile(TEMPLATE[0], store)
        yield store


def run(store: Path, *args: str) -> Any:
    """`fudge --store STORE ARGS` in-process: a clean exit (code and at most one `error:` line), never a crash."""
    result = RUNNER.invoke(app, ["--store", str(store), *args], env={"FUDGE_STORE": None, "COLUMNS": "100"})
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    if result.exit_code == 1:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)
    return result


@fuzz(100)
@given(st.one_of(sheet_texts.map(str.encode), as_bytes(sheet_texts)))
def test_join_any_file_is_one_line_or_joins(data: bytes) -> None:
    with fresh_store() as store:
        sheet = store.parent / "sheet.toml"
        sheet.write_bytes(data)
        before = dump(store)
        if run(store, "join", str(sheet)).exit_code != 0:
            assert dump(store) == before


@fuzz(60)
@given(st.one_of(house_texts.map(str.encode), as_bytes(house_texts)))
def test_new_with_any_house_file_is_one_line_or_starts(data: bytes) -> None:
    with fresh_store() as store:
        house = store.parent / "house.toml"
        house.write_bytes(data)
        before = dump(store)
        if run(store, "new", "other", "--house", str(house)).exit_code != 0:
            assert dump(store) == before


# Commands that run long by design (a simulation of thousands of fights, a server that runs until stopped:
# tests/test_serve.py checks its refusals) are left to their own tests, and so is `sheet`, which writes a
# template into the working folder (tests/test_sheet_cli.py fuzzes nothing but checks its refusals one by one).
FUZZED_COMMANDS = sorted(set(COMMANDS) - {"sim", "odds", "demo", "sheet", "serve"})
TOKENS = ["duel", "Snorri", "Brynhild", "Sword", "Axe", "Strength", "--fight", "-f", "--to", "--as-of", "--at",
          "--json", "--dice", "+ 0 - +", "snorri=+ + 0 -", "--as", "--side", "--vs", "Good", "--reason", "--avoid",
          "--step", "--house", "-o", "99999999999999999999", "-99999999999999999999", "0", "1", "-1", "3", "",
          " ", "\x1b]0;x\x07", "a=b", "--", "-", "--help", "show", "fudge", "fate", "NaN"]


@st.composite
def argvs(draw: st.DrawFn, folder: str) -> list[str]:
    files = [str(ROOT / "examples/sheets/finn.toml"), str(ROOT / "examples/house/postures.toml"),
             f"{folder}/out.jsonl", f"{folder}/missing/out.jsonl", folder, "/dev/null"]
    token = st.one_of(st.sampled_from(TOKENS), st.sampled_from(files), st.text(max_size=10),
                      st.integers().map(str))
    return [draw(st.sampled_from(FUZZED_COMMANDS)), *draw(st.lists(token, max_size=6))]


@fuzz(150)
@given(st.data())
def test_any_command_line_exits_cleanly_and_a_refusal_writes_nothing(data: st.DataObject) -> None:
    # in the store's folder: `export -o show` or `report -o x` drawn at random write there, not in the checkout
    with fresh_store() as store, contextlib.chdir(store.parent):
        argv = data.draw(argvs(str(store.parent)))
        before = dump(store)
        if run(store, *argv).exit_code != 0:
            assert dump(store) == before, argv


# --- a handful as real processes -------------------------------------------------------------------

PROCESS_CASES = {
    "deep-sheet": (["join", "{dir}/deep.toml"], "a = " + "[" * 4000 + "]" * 4000 + "\n"),
    "latin-1-sheet": (["join", "{dir}/deep.toml"], 'name = "Bj\xf6rn"\n'),
    "replay-huge": (["replay", "--to", "99999999999999999999"], None),
    "undo-to-huge": (["undo", "--to", "99999999999999999999"], None),
    "export-folder": (["export", "-o", "{dir}"], None),
}


@pytest.mark.parametrize("case", PROCESS_CASES, ids=list(PROCESS_CASES))
def test_as_a_process_no_input_gives_a_traceback(tmp_path: Path, case: str) -> None:
    args, sheet = PROCESS_CASES[case]
    store = tmp_path / "fudge.db"
    shutil.copyfile(template(), store)
    if sheet is not None:
        (tmp_path / "deep.toml").write_bytes(sheet.encode("latin-1" if "latin" in case else "utf-8"))
    before = dump(store)
    result = fudge_process(*[a.replace("{dir}", str(tmp_path)) for a in args], store=store)
    assert "Traceback" not in result.stderr and result.returncode in (0, 1, 2), result.stderr
    if result.returncode:
        assert dump(store) == before
