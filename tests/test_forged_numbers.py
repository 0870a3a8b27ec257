"""A-LOG-2, A-VERIFY-1: a huge number forged into any kind of event field is named in one line by every command.

A fight is played from the command line and exported. Then, for each kind of bounded field (events.bounds: an
event's version, an event's number alone and in a list, a round, a die's face, a level inside a side, damage
inside a hit, a count, and a number of 5,000 digits), one value of the log is replaced by a huge one and the
chain re-hashed after it, as someone holding the export or able to write the store would do it:

- the forged export is given to `fudge import`, which refuses it;
- the same forgery, written into the store by its writer (the caches emptied, as the writer can), is read
  by `status`, `log` and `verify`.

Each answers in one line on stderr naming the event and what is wrong with it, with an exit that is neither
success nor 70 (a defect), no traceback, within the timeout (no hang), and `import` writes nothing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.cli import exits
from fudge_combat.events.records import GENESIS, canonical, chain_hash
from tests.processes import ROOT, fudge
from tests.test_inputs import dump

HUGE = "9" * 5000  # past Python's 4,300 digits of an int read from text
MARK = "\ue000forged\ue000"  # stands for the number in a body until its text is written

# kind: (the event's type, the path of the value in its body, the number forged there)
KINDS: dict[str, tuple[str, tuple[Any, ...], int | str]] = {
    "an event's version": ("dice_rolled", ("event", "v"), 10**12),
    "an event's number": ("exchange_resolved", ("event", "action"), 2**62 + 1),  # past the stores' numbers
    "an event's number in a list": ("events_voided", ("event", "seqs", 0), 2**63),  # past a 64-bit column
    "a round": ("round_started", ("event", "round"), 10**30),
    "a die's face": ("dice_rolled", ("event", "faces", 0), 10**12),
    "a level inside a side": ("exchange_resolved", ("event", "sides", 0, "level"), -10**12),
    "damage inside a hit": ("exchange_resolved", ("event", "hits", 0, "damage"), 10**12),
    "a count": ("fudge_point_spent", ("event", "cost"), 10**12),
    "a number of 5,000 digits": ("wound_marked", ("event", "level"), HUGE),
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A duel with typed dice (so no roll can end it before its last command), a fudge point spent on a roll
    (its consequences voided) and wounds on both sides; its export's lines."""
    folder = tmp_path_factory.mktemp("played")
    store = folder / "fudge.db"
    sheets = ROOT / "examples" / "sheets"
    for args in (("new", "duel"), ("join", str(sheets / "snorri.toml")), ("join", str(sheets / "brynhild.toml")),
                 ("exchange", "Snorri", "Brynhild", "-d", "Snorri=+ + 0 0", "-d", "Brynhild=0 0 0 0"),
                 ("spend", "Snorri", "skill", "--shift", "-1"),
                 ("exchange", "Snorri", "Brynhild", "-d", "Snorri=0 0 0 0", "-d", "Brynhild=+ + 0 0")):
        done = fudge(*args, store=store)
        assert done.returncode == 0, (args, done.stderr)
    exported = fudge("export", "duel", store=store)
    assert exported.returncode == 0, exported.stderr
    return folder, [json.loads(line) for line in exported.stdout.splitlines()]


def forged_bodies(bodies: list[dict[str, Any]], kind: str) -> tuple[int, list[str]]:
    """The bodies' texts with the kind's number at its place in the first event of its type, each body from
    there on linked to the one before and re-hashed; and the seq forged."""
    event_type, path, value = KINDS[kind]
    seq = next(body["seq"] for body in bodies if body["event"]["type"] == event_type)
    texts, prev = [], GENESIS
    for body in bodies:
        body = json.loads(json.dumps(body))
        body["prev"] = prev
        if body["seq"] == seq:
            place = body
            for step in path[:-1]:
                place = place[step]
            assert isinstance(place[path[-1]], int)  # the kind is where the test says it is
            place[path[-1]] = MARK
        text = canonical(body).replace(json.dumps(MARK, ensure_ascii=False), str(value))
        texts.append(text)
        prev = chain_hash(text)
    return seq, texts


def forge_store(store: Path, texts: list[str]) -> None:
    """The forged bodies written over the fight's rows, as the store's writer can; the caches emptied with them."""
    with sqlite3.connect(store) as db:
        (fight,) = db.execute("SELECT id FROM fights WHERE name = 'duel'").fetchone()
        for seq, text in enumerate(texts, start=1):
            db.execute("UPDATE events SET body = ?, hash = ? WHERE fight = ? AND seq = ?",
                       (text, chain_hash(text), fight, seq))
        db.execute("DELETE FROM snapshots")
        db.execute("DELETE FROM views")


def one_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.returncode not in (0, exits.INTERNAL_ERROR), (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def cause(kind: str) -> tuple[str, ...]:
    """What the line says of the value: the field named, or JSON's own refusal of a number of 5,000 digits."""
    _, path, value = KINDS[kind]
    if value == HUGE:
        return ("number out of range", "the event was altered")
    return (".".join(map(str, path[1:])), "beyond any a fight holds", "the event was altered")


@pytest.mark.parametrize("kind", list(KINDS))
def test_import_refuses_a_forged_export_in_one_line(played: tuple[Path, list[dict[str, Any]]], tmp_path: Path,
                                                   kind: str) -> None:
    folder, lines = played
    seq, texts = forged_bodies([line["body"] for line in lines], kind)
    (tmp_path / "forged.jsonl").write_text("".join(
        f'{{"body": {text}, "hash": "{chain_hash(text)}", "seq": {number}}}\n'
        for number, text in enumerate(texts, start=1)))
    shutil.copy(folder / "fudge.db", tmp_path / "fudge.db")
    before = dump(tmp_path / "fudge.db")
    result = fudge("import", str(tmp_path / "forged.jsonl"), "--as", "copy", store=tmp_path / "fudge.db", timeout=60)
    if KINDS[kind][2] == HUGE:  # no JSON reader of Python's takes it: the line is named
        one_line(result, f"line {seq} is not an exported event", "5000 digits", "nothing was imported")
    else:
        one_line(result, f"refusing to import: event {seq}: cannot be read", *cause(kind), "nothing was imported")
    assert dump(tmp_path / "fudge.db") == before


@pytest.mark.parametrize("kind", list(KINDS))
def test_status_log_and_verify_name_a_forged_number_in_one_line(played: tuple[Path, list[dict[str, Any]]],
                                                                tmp_path: Path, kind: str) -> None:
    folder, lines = played
    shutil.copytree(folder, tmp_path, dirs_exist_ok=True)
    seq, texts = forged_bodies([line["body"] for line in lines], kind)
    forge_store(tmp_path / "fudge.db", texts)
    for command in (("status",), ("log",), ("verify", "duel")):
        result = fudge(*command, store=tmp_path / "fudge.db", timeout=60)
        one_line(result, f"duel: event {seq}: cannot be read", *cause(kind))
        if command[0] == "verify":
            assert result.returncode == exits.VERIFY_FAILED
