"""Bad input and a hostile machine: one `error:` line naming the cause, a non-zero exit, nothing written.

Each case here gave a traceback (or silently changed a file) before: files that are not UTF-8 text,
TOML nested past the parser's recursion, house files with the wrong types, sizes the rules never
need (a billion wound boxes), numbers past SQLite's integers, export onto a missing folder, a full
device or a folder, a read-only or full store, a foreign SQLite database, a read-only command that
made a store file.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fudge_combat.cli.main import app
from fudge_combat.events.rows import Row
from fudge_combat.store.base import FightInfo, StoreError
from fudge_combat.store.sqlite import SqliteStore
from tests.processes import ROOT, fudge as fudge_process

SHEETS = ROOT / "examples" / "sheets"


class Cli:
    """`fudge --store DB ...` in-process; `fails` checks the one-line error and returns it."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.db, self.runner = tmp, tmp / "fudge.db", CliRunner()

    def __call__(self, *args: str) -> str:
        result = self.runner.invoke(app, ["--store", str(self.db), *args], env={"FUDGE_STORE": None})
        assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
        return result.stdout

    def fails(self, *args: str) -> str:
        result = self.runner.invoke(app, ["--store", str(self.db), *args], env={"FUDGE_STORE": None})
        assert result.exit_code != 0, (args, result.stdout)
        assert isinstance(result.exception, SystemExit), repr(result.exception)  # not a crash
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        return lines[0]

    def file(self, name: str, data: bytes | str) -> str:
        path = self.tmp / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return str(path)

    def written(self) -> list[object] | None:
        """Every row of every table of the store (the file's bytes move when SQLite checkpoints its WAL)."""
        return dump(self.db)


def dump(path: Path) -> list[object] | None:
    if not path.exists():
        return None
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [(table, sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)) for table in tables]
    finally:
        db.close()


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    runner = Cli(tmp_path)
    runner("new", "duel")
    runner("join", str(SHEETS / "snorri.toml"))
    return runner


SHEET = 'name = "Thug"\n[skills]\nSword = "Fair"\n[combat]\nattack = "Sword"\n'
BAD_SHEETS = {
    "deep-toml": ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    "deep-table": ("a = " + "{b = " * 50 + "1" + "}" * 50 + "\n", "nested too deeply"),
    "binary": (b"\x00\xff\xfe\x80\x01binary", "not UTF-8 text"),
    "latin-1": ('name = "Bj\xf6rn"\n'.encode("latin-1"), "not UTF-8 text"),
    "utf-16": ('name = "Bjorn"\n'.encode("utf-16"), "UTF-16"),
    "nul": (b'name = "a"\n\x00\n', "NUL"),
    "spaces-name": ('name = "   "\n', "visible character"),
    "long-name": (f'name = "{"x" * 500}"\n', "at most 200"),
    "billion-boxes": (SHEET + "[wounds]\nboxes = [1000000000, 1, 1, 1, 1]\n", "-1000 to 1000"),
    "many-boxes": (SHEET + "[wounds]\nboxes = [900, 1, 1, 1, 1]\n", "0 to 20"),
    "aspect-boxes": (SHEET + "[aspects]\nStrong = 500\n", "0 to 20"),
    "huge-level": ('name = "X"\n[skills]\nSword = "Good+99999999999999999999"\n', "-100 to +100"),
    "huge-int-level": ('name = "X"\n[skills]\nSword = 101\n', "-100 to +100"),
    "many-skills": ('name = "X"\n[skills]\n' + "".join(f"S{i} = 1\n" for i in range(300)), "at most 200"),
    "too-large": ('name = "X"\n' + "#" * (1 << 20) + "\n", "larger than 1 MiB"),
    "float-inf": ('name = "X"\nscale = inf\n', "out of range"),
    "line-break-key": ('name = "X"\n"a\\r\\nb" = 1001\n', "out of range"),
}


@pytest.mark.parametrize("case", BAD_SHEETS, ids=list(BAD_SHEETS))
def test_a_bad_sheet_is_one_line_and_writes_nothing(cli: Cli, case: str) -> None:
    text, says = BAD_SHEETS[case]
    before = cli.written()
    assert says in cli.fails("join", cli.file("bad.toml", text))
    assert cli.written() == before


BAD_HOUSES = {
    "extends-list": ('extends = ["fudge"]\n', "not a preset"),
    "name-number": ("name = 5\n", "name = 5"),
    "name-spaces": ('name = "  "\n', "name"),
    "billion-boxes": ("wound_boxes = [1000000000, 1, 1, 1, 1]\n", "-1000 to 1000"),
    "many-boxes": ("wound_boxes = [900, 1, 1, 1, 1]\n", "0 to 20"),
    "fate-boxes": ('extends = "fate"\nfate_boxes = [2, 2, 50]\n', "0 to 20"),
    "deep": ("x = " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
    "latin-1": ('name = "R\xe8gles"\n'.encode("latin-1"), "not UTF-8 text"),
    "ladder-values": ("[ladder]\nLow = 0\nMid = 1\nHigh = 99999999999\n", "out of range"),
}


@pytest.mark.parametrize("case", BAD_HOUSES, ids=list(BAD_HOUSES))
def test_a_bad_house_file_is_one_line_and_writes_nothing(cli: Cli, case: str) -> None:
    text, says = BAD_HOUSES[case]
    before = cli.written()
    assert says in cli.fails("new", "other", "--house", cli.file("house.toml", text))
    assert cli.written() == before


def test_a_utf8_sheet_with_a_byte_order_mark_is_read(cli: Cli) -> None:
    cli("join", cli.file("bom.toml", b"\xef\xbb\xbf" + SHEET.encode()))
    assert "Thug" in cli("status")


@pytest.mark.parametrize("args", [["replay", "--to", "99999999999999999999"],
                                  ["status", "--as-of", "99999999999999999999"],
                                  ["replay", "--to", "-99999999999999999999"]])
def test_a_seq_past_sqlite_integers_is_one_line_naming_what_the_log_holds(cli: Cli, args: list[str]) -> None:
    """A number past SQLite's integers was a traceback (OverflowError); any number outside the log is
    refused with what the log holds."""
    line = cli.fails(*args)
    assert line.endswith("takes 1..2") and "the log of duel has 2 events" in line


@pytest.mark.parametrize("target", ["missing/out.jsonl", "folder", "/dev/full"])
def test_export_that_cannot_write_is_one_line(cli: Cli, target: str) -> None:
    (cli.tmp / "folder").mkdir()
    path = target if target.startswith("/") else str(cli.tmp / target)
    if path == "/dev/full" and not Path(path).exists():
        pytest.skip("no /dev/full here")
    line = cli.fails("export", "-o", path)
    assert path in line
    assert not (cli.tmp / "missing").exists()


def test_export_on_a_full_disk_keeps_the_old_file_whole(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    out = cli.tmp / "out.jsonl"
    out.write_text("the old export\n")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert "No space left on device" in cli.fails("export", "-o", str(out))
    assert out.read_text() == "the old export\n"
    assert sorted(p.name for p in cli.tmp.iterdir() if p.name.startswith(".out")) == []


def test_an_import_file_that_is_not_text_is_one_line(cli: Cli) -> None:
    before = cli.written()
    assert "not UTF-8 text" in cli.fails("import", cli.file("log.jsonl", b"\x80\xfe\x00garbage"), "--as", "copy")
    assert "UTF-16" in cli.fails("import", cli.file("log16.jsonl", '{"a": 1}\n'.encode("utf-16")), "--as", "copy")
    assert cli.written() == before


# --- the store -------------------------------------------------------------------------------------

def foreign(path: Path) -> bytes:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE people (id INTEGER, name TEXT)")
    db.execute("INSERT INTO people VALUES (1, 'Ada')")
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("args", [["status"], ["fights"], ["new", "duel"], ["log"]])
def test_a_foreign_sqlite_database_is_refused_and_left_byte_for_byte(tmp_path: Path, args: list[str]) -> None:
    cli = Cli(tmp_path)
    before = foreign(cli.db)
    assert "not a fudge store" in cli.fails(*args)
    assert cli.db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fudge.db"]


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    cli = Cli(tmp_path)
    cli.db.write_text("my notes, not a store\n" * 20)
    assert "not an SQLite database" in cli.fails("status")
    assert cli.db.read_text() == "my notes, not a store\n" * 20


@pytest.mark.parametrize("args", [["status"], ["status", "--json"], ["log"], ["replay"], ["verify"], ["fights"],
                                  ["export"], ["initiative"], ["undo"], ["use", "duel"], ["rules", "show"]])
def test_read_only_commands_never_create_a_store(tmp_path: Path, args: list[str]) -> None:
    cli = Cli(tmp_path)
    cli.runner.invoke(app, ["--store", str(cli.db), *args], env={"FUDGE_STORE": None})
    assert not cli.db.exists()
    assert list(tmp_path.iterdir()) == []


def test_status_as_its_own_process_creates_no_store(tmp_path: Path) -> None:
    """The read-model fast path of `fudge status` opens the store before Typer runs."""
    result = fudge_process("status", store=tmp_path / "fudge.db")
    assert result.returncode == 1 and "no current fight" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "fudge.db").exists()


def test_a_store_begun_empty_by_another_handle_is_read_once_written(tmp_path: Path) -> None:
    """A handle opened before the file existed reads what another handle wrote since."""
    reader, writer = SqliteStore(tmp_path / "s.db"), SqliteStore(tmp_path / "s.db")
    assert reader.fights() == [] and not (tmp_path / "s.db").exists()
    writer.append("duel", 0, [Row(1, "c1", "t", "{}", "h")], create=FightInfo("duel", "id"))
    assert [f.name for f in reader.fights()] == ["duel"]


def test_a_full_disk_during_an_append_names_the_disk_and_keeps_the_log(tmp_path: Path) -> None:
    """SQLite ends the transaction itself on a full disk: the ROLLBACK after it used to hide the cause."""
    store = SqliteStore(tmp_path / "s.db")
    store.append("duel", 0, [Row(1, "c1", "t", "{}", "h")], create=FightInfo("duel", "id"))
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError, match="disk is full.*nothing was written"):
        store.append("duel", 1, [Row(seq, f"c{seq}", "t", "x" * 4000, "h") for seq in range(2, 60)])
    assert [r.seq for r in store.read("duel")] == [1]


def test_a_full_disk_in_the_cli_is_one_line(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    original = SqliteStore._open

    def tight(self: SqliteStore) -> sqlite3.Connection:
        db = original(self)
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        return db

    monkeypatch.setattr(SqliteStore, "_open", tight)
    before = cli.written()
    line = cli.fails("join", cli.file("thug.toml", SHEET.replace("Thug", "T" * 150)))
    assert "disk is full" in line and "cannot rollback" not in line
    assert cli.written() == before


def unprivileged() -> list[str] | None:
    """A prefix that runs a process without root's power to write read-only files (None: not possible)."""
    if os.geteuid() != 0:
        return []
    capsh = shutil.which("capsh")
    return [capsh, "--drop=cap_dac_override,cap_dac_read_search", "--"] if capsh else None


def fudge_unprivileged(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    prefix = unprivileged()
    if prefix is None:
        pytest.skip("running as root without capsh: read-only files are writable")
    command = [sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), *args]
    if prefix:
        command = [*prefix, "-c", " ".join(f"'{c}'" for c in command)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(store.parent / "key")}
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=store.parent, timeout=60)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_store_is_one_line_and_unchanged(cli: Cli, what: str) -> None:
    """A store file of mode 0444, or one in a folder of mode 0555 (where SQLite cannot make its WAL file)."""
    folder = cli.tmp / "shared"
    folder.mkdir()
    store = folder / "fudge.db"
    source, copy = sqlite3.connect(cli.db), sqlite3.connect(store)
    source.backup(copy)  # the store alone, without the -wal and -shm files of the handles still open
    source.close()
    copy.close()
    before = dump(cli.db)  # (a read-only reader of the copy would leave its -wal and -shm behind)
    target, mode = (store, 0o444) if what == "file" else (folder, 0o555)
    original = target.stat().st_mode
    target.chmod(mode)
    try:
        result = fudge_unprivileged(store, "join", str(SHEETS / "brynhild.toml"))
    finally:
        target.chmod(original)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "read-only" in result.stderr
    assert dump(store) == before


def test_a_defect_is_one_line_with_exit_70(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The last resort: an exception no command expected is reported, never shown as a traceback."""
    import fudge_combat.cli.fight

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(fudge_combat.cli.fight, "service", broken)
    monkeypatch.setattr(sys, "argv", ["fudge", "--store", str(tmp_path / "s.db"), "fights"])
    monkeypatch.delenv("FUDGE_TRACEBACK", raising=False)
    with pytest.raises(SystemExit) as stopped:
        app()
    assert stopped.value.code == 70
    err = capsys.readouterr().err
    assert err.startswith("internal error: KeyError") and err.count("\n") == 1 and "please report" in err
