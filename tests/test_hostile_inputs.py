"""Every input that once gave exit 70 (a defect) or hung, each run as a GM runs it: `fudge` as its own process
on a real store with its snapshot key and secrets file.

An input that is refused gets a non-zero exit that is not 70, exactly one line on stderr naming the cause,
no traceback, and leaves the store (and the secrets file) as they were. An input that is no error (an
output that cannot print the board's symbols, a key file fudge cannot use) runs, with at most one
warning line naming the cause.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.cli import exits
from fudge_combat.engine import commands as cmd
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights
from tests.processes import ROOT, fudge
from tests.test_audit import fex, rewrite
from tests.test_inputs import dump

SHEETS = ROOT / "examples" / "sheets"
BIG = "9" * 5000  # past Python's 4300 digits of an int read from text


@dataclass
class Case:
    """`args` run in a folder holding `fudge.db` (the duel, F-EX, current) after `setup(folder)` (which may
    return extra environment); `cause`: words the one stderr line must hold. `ok`: not an error."""

    args: Callable[[Path], list[str]]
    cause: tuple[str, ...]
    setup: Callable[[Path], dict[str, str] | None] = lambda folder: None
    ok: bool = False
    check: Callable[[subprocess.CompletedProcess[str], Path], None] | None = None
    needs: Callable[[Path], str | None] = field(default=lambda folder: None)  # a reason to skip, if any


def write(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(text)
    return str(folder / name)


def big_sheet(folder: Path) -> None:
    text = (SHEETS / "snorri.toml").read_text().replace("damage = 4 ", f"damage = {BIG} ")
    assert BIG in text
    write(folder, "big.toml", text)


def big_house(folder: Path) -> None:
    write(folder, "house.toml", f'extends = "fudge"\nwound_boxes = [{BIG}, 1, 1, 1, 1]\n')


def nameless_fight(folder: Path) -> None:
    """A fight named '' as an older version let `fudge new ''` make it."""
    with sqlite3.connect(folder / "fudge.db") as db:
        db.execute("UPDATE fights SET name = '' WHERE name = 'rematch'")


def deep_json(folder: Path) -> None:
    write(folder, "deep.json", "[" * 100_000)


def billion_boxes(folder: Path) -> None:
    """The duel's first event re-hashed with a billion boxes of Scratch, the chain rebuilt after it."""
    def edit(data: dict[str, Any]) -> None:
        for part in (data["event"], data["issued"]):
            part["options"]["wound_boxes"] = [1e9, 1, 1, 1, 1]
    rewrite(folder / "fudge.db", "duel", 1, edit, rechain=True)
    with sqlite3.connect(folder / "fudge.db") as db:
        db.execute("DELETE FROM snapshots")
        db.execute("DELETE FROM views")


def key_folder(folder: Path) -> dict[str, str]:
    (folder / "keys").mkdir()
    return {"FUDGE_KEY_FILE": str(folder / "keys")}


def key_fifo(folder: Path) -> dict[str, str]:
    os.mkfifo(folder / "key.fifo")
    return {"FUDGE_KEY_FILE": str(folder / "key.fifo")}


def sheet_fifo(folder: Path) -> None:
    os.mkfifo(folder / "sheet.toml")


def secrets_of(folder: Path) -> Path:
    return folder / "secrets.db"  # beside the snapshot key (tests.processes: snapshot.key in the store's folder)


def secrets_mode(mode: int) -> Callable[[Path], dict[str, str]]:
    def setup(folder: Path) -> dict[str, str]:
        path = folder / "mine.db"
        shutil.copy(secrets_of(folder), path)
        path.chmod(mode)
        return {"FUDGE_SECRETS_FILE": str(path)}
    return setup


def secrets_link(folder: Path) -> dict[str, str]:
    path = folder / "kept.db"
    shutil.copy(secrets_of(folder), path)
    path.chmod(0o600)
    (folder / "linked.db").symlink_to(path)
    return {"FUDGE_SECRETS_FILE": str(folder / "linked.db")}


def ascii_only(result: subprocess.CompletedProcess[str], folder: Path) -> None:
    assert "Snorri" in result.stdout and "→" not in result.stdout and "…" not in result.stdout


CASES: dict[str, Case] = {
    "a 5000-digit integer in a sheet": Case(lambda f: ["join", str(f / "big.toml")], ("big.toml", "4300 digits"),
                                            big_sheet),
    "a 5000-digit integer in a house file": Case(lambda f: ["new", "h", "--house", str(f / "house.toml")],
                                                 ("house.toml", "4300 digits"), big_house),
    "a fight name in bytes that are not UTF-8": Case(lambda f: ["new", os.fsdecode(b"\xff")], ("not UTF-8",)),
    "an empty fight name": Case(lambda f: ["new", ""], ("fight name", "empty")),
    "a fight name with an escape": Case(lambda f: ["new", "a\x1b[2Jb"], ("fight name", "control character")),
    "a fight name of 100 characters": Case(lambda f: ["new", "x" * 100], ("fight name", "at most 64")),
    "a branch named in bytes that are not UTF-8": Case(lambda f: ["branch", os.fsdecode(b"ok\xfe")], ("not UTF-8",)),
    "use of a name no fight has beside a fight named ''": Case(lambda f: ["use", "nope"], ("no fight named 'nope'",),
                                                               nameless_fight),
    "a fight looked up in bytes that are not UTF-8": Case(lambda f: ["status", "-f", os.fsdecode(b"\xff")],
                                                          ("not UTF-8",)),
    "a combatant named in bytes that are not UTF-8": Case(
        lambda f: ["join", str(SHEETS / "brynhild.toml"), "--as", os.fsdecode(b"B\xff")], ("not UTF-8", "0xff")),
    "a condition named in bytes that are not UTF-8": Case(
        lambda f: ["mark", "Snorri", os.fsdecode(b"da\xffzed")], ("not UTF-8", "0xff")),
    "a kill's reason in bytes that are not UTF-8": Case(
        lambda f: ["kill", "Snorri", "--reason", os.fsdecode(b"fell\xfe")], ("not UTF-8", "0xfe")),
    "a GM's wound's reason in bytes that are not UTF-8": Case(
        lambda f: ["wound", "Snorri", "Hurt", "--reason", os.fsdecode(b"\xe9boulis")], ("not UTF-8", "0xe9")),
    "[ x 100,000 to secrets import": Case(lambda f: ["secrets", "import", str(f / "deep.json")],
                                          ("not a `fudge secrets export`",), deep_json),
    "an output in latin-1 under LC_ALL=C": Case(lambda f: ["log"], (), lambda f: {
        "LC_ALL": "C", "PYTHONIOENCODING": "latin-1"}, ok=True, check=ascii_only),
    "a billion wound boxes in a re-hashed log": Case(lambda f: ["status"], ("event 1", "altered", "wound_boxes"),
                                                    billion_boxes),
    "the key file a folder": Case(lambda f: ["roll", "Snorri", "Sword"], ("snapshot key refused", "keys", "folder"),
                                  key_folder, ok=True),
    "the key file a named pipe": Case(lambda f: ["roll", "Snorri", "Sword"], ("snapshot key refused", "key.fifo", "named pipe"),
                                      key_fifo, ok=True),
    "a sheet that is a named pipe": Case(lambda f: ["join", str(f / "sheet.toml")], ("sheet.toml", "named pipe"),
                                         sheet_fifo),
    "a secrets file others can read": Case(lambda f: ["roll", "Snorri", "Sword"], ("mine.db", "mode 644"),
                                           secrets_mode(0o644)),
    "a secrets file others can write": Case(lambda f: ["roll", "Snorri", "Sword"], ("mine.db", "mode 620"),
                                            secrets_mode(0o620)),
    "a secrets file that is a link": Case(lambda f: ["roll", "Snorri", "Sword"], ("linked.db", "symbolic link"),
                                          secrets_link),
    "a modifier of 5000 digits": Case(lambda f: ["roll", "Snorri", "Sword", "--mod", BIG], ("--mod",)),
    "a modifier of 10**23": Case(lambda f: ["roll", "Snorri", "Sword", "--mod", "1" + "0" * 23],
                                 ("--mod", "1000")),
    "a box number of 10**23": Case(lambda f: ["wound", "Snorri", "Scratch", "--box", "1" + "0" * 23], ("--box",)),
    "an emptied log": Case(lambda f: ["verify"], ("duel", "no event"), lambda f: empty_log(f)),
}


def empty_log(folder: Path) -> None:
    with sqlite3.connect(folder / "fudge.db") as db:
        db.execute("DELETE FROM events")
        db.execute("DELETE FROM commands")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The duel (F-EX, current, a roll of its generated dice: the seed is in the secrets file) and a rematch,
    made as the CLI makes them (the key and the secrets file where `fudge` keeps them). A roll, not an
    exchange: generated dice could leave a fighter unable to act, and the cases after it act with both."""
    folder = tmp_path_factory.mktemp("template")
    assert fudge("new", "rematch", store=folder / "fudge.db").returncode == 0
    assert fudge("new", "duel", store=folder / "fudge.db").returncode == 0
    for sheet in ("snorri", "brynhild"):
        assert fudge("join", str(SHEETS / f"{sheet}.toml"), store=folder / "fudge.db").returncode == 0
    assert fudge("roll", "Snorri", "Sword", store=folder / "fudge.db").returncode == 0
    assert secrets_of(folder).exists()
    return folder


def copy_of(template: Path, folder: Path) -> None:
    shutil.copytree(template, folder, dirs_exist_ok=True)


def state_of(folder: Path, env: dict[str, str]) -> list[object]:
    """The store's rows and the secrets file's, as a refused command must leave them."""
    secrets = Path(env.get("FUDGE_SECRETS_FILE") or secrets_of(folder))
    kept = dump(secrets) if secrets.is_file() and not secrets.is_symlink() else None
    return [dump(folder / "fudge.db"), kept]


@pytest.mark.parametrize("name", list(CASES))
def test_no_input_gives_exit_70_a_traceback_or_a_hang(template: Path, tmp_path: Path, name: str) -> None:
    case = CASES[name]
    copy_of(template, tmp_path)
    env = case.setup(tmp_path) or {}
    before = state_of(tmp_path, env)
    result = fudge(*case.args(tmp_path), store=tmp_path / "fudge.db", env=env, timeout=60)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.returncode != exits.INTERNAL_ERROR
    lines = result.stderr.strip().splitlines()
    if case.ok:
        assert result.returncode == 0, result.stderr
        assert len(lines) <= 1, result.stderr
    else:
        assert result.returncode != 0, result.stdout
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert state_of(tmp_path, env) == before  # nothing was written
    for words in case.cause:
        assert words in result.stderr, (words, result.stderr)
    if case.check is not None:
        case.check(result, tmp_path)


# --- a full disk under the secrets file: a real small file system, where this machine lets a test mount one --

@pytest.fixture
def tiny_disk(tmp_path: Path) -> Any:
    """A 64 KiB tmpfs (needs the right to mount: skipped elsewhere), unmounted afterwards."""
    where = tmp_path / "disk"
    where.mkdir()
    if not shutil.which("mount") or os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)


def test_a_full_disk_under_the_secrets_file_says_so_and_writes_nothing(template: Path, tmp_path: Path,
                                                                       tiny_disk: Path) -> None:
    """The secrets file on a disk filled to its last byte: a new fight's seed cannot be kept. The line said
    "cannot rollback" (SQLite had rolled back itself); it says the disk is full and nothing was written."""
    folder = tmp_path / "gm"
    copy_of(template, folder)
    env = {"FUDGE_SECRETS_FILE": str(tiny_disk / "secrets.db")}
    assert fudge("new", "first", store=folder / "fudge.db", env=env).returncode == 0
    filler = os.open(tiny_disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(filler, b"\0" * 512):
            pass
    except OSError:  # ENOSPC: the disk is full to its last block
        pass
    finally:
        os.close(filler)
    before = state_of(folder, env)
    result = fudge("new", "second", store=folder / "fudge.db", env=env)
    assert result.returncode not in (0, exits.INTERNAL_ERROR)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "disk is full" in lines[0] and "nothing was written" in lines[0], result.stderr
    assert "rollback" not in result.stderr
    assert state_of(folder, env) == before


def test_a_full_disk_in_the_secrets_writer_is_named_and_its_transaction_left_closed(tmp_path: Path) -> None:
    """In process, as SQLite does it on a full disk: the write fails and SQLite has already rolled back. The
    writer's own rollback then failed ("cannot rollback - no transaction is active") and hid the cause."""
    from fudge_combat.store.base import StoreError
    from fudge_combat.store.secrets import SecretFile

    box = SecretFile(tmp_path / "secrets.db")
    box.put("A", {"seed:c1": "01"})

    def full(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO secrets (fight, key, value) VALUES ('A', 'seed:c2', '02')")
        db.execute("ROLLBACK")  # what SQLite does itself on SQLITE_FULL
        raise sqlite3.OperationalError("database or disk is full")

    with pytest.raises(StoreError, match="the disk is full .*nothing was written") as raised:
        box._write(full)
    assert "rollback" not in str(raised.value)
    assert [s.key for s in box.export()] == ["seed:c1"]
    box.put("A", {"seed:c3": "03"})  # the file is usable again
    assert [s.key for s in box.export()] == ["seed:c1", "seed:c3"]


def test_the_secrets_file_refused_is_left_as_it_was(template: Path, tmp_path: Path) -> None:
    """Refused, not repaired: fudge does not chmod nor follow the GM's file; it names what to do."""
    copy_of(template, tmp_path)
    env = secrets_mode(0o644)(tmp_path)
    path = Path(env["FUDGE_SECRETS_FILE"])
    result = fudge("roll", "Snorri", "Sword", store=tmp_path / "fudge.db", env=env)
    assert result.returncode == 1 and f"chmod 600 {path}" in result.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    path.chmod(0o600)
    assert fudge("roll", "Snorri", "Sword", store=tmp_path / "fudge.db", env=env).returncode == 0


def test_a_fight_named_in_the_bounds_is_made_by_every_way_in(tmp_path: Path) -> None:
    """The same check for new, branch and import, and a name of exactly 64 printable characters passes."""
    fights = make_fights(SqliteStore(tmp_path / "fudge.db"))
    fex(fights)
    name = "Ä" + "x" * 62 + "!"
    fights.branch("duel", name, 9)
    fights.import_(fights.export("duel"), "copy of duel")
    fights.execute(name, cmd.RollTrait(combatant="Snorri", trait="Sword"), dice("snorri=0 0 0 0"))
    from fudge_combat.engine.kernel.errors import InputError

    for bad in ("", " duel", "a\nb", "x" * 65):
        with pytest.raises(InputError, match="the fight name"):
            fights.branch("duel", bad, 9)
        with pytest.raises(InputError, match="the fight name"):
            fights.import_(fights.export("duel"), bad)
    assert [info.name for info in fights.store.fights()] == ["duel", name, "copy of duel"]
    assert json.loads(fights.export(name)[-1])["seq"] == 12  # 9 of the duel's, the branch's start, the roll
