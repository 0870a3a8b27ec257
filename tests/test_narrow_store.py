"""The store contract's two halves (store.base): a backend offering only what every backend must do
(`EventStore`) serves the same fight as one offering the read shortcuts too (`ReadShortcuts`).

A whole fight is played in `fudge play` (cli.play.Session, in this process) twice, on two SQLite
stores: once through the store itself, once through a wrapper that exposes the narrow contract's
members and nothing else, so a read that skipped the service's fallbacks (service.reads) would fail
there. Every line's output, every board, the logs, the stored rows and the states must be the same,
through undos and a redo, a fudge point's void (C-FP-2) and a branch (A-BRANCH-1); then fresh
services (as one-shot commands would make) read both stores from a snapshot and from scratch.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.events.records import json_form
from fudge_combat.cli import context, play
from fudge_combat.cli.demos import join
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events.rows import Row
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from fudge_combat.store.base import EventStore, FightInfo, ReadShortcuts, SecretBox
from fudge_combat.store.secrets import MemorySecrets
from fudge_combat.store.snapshots import Snapshot
from fudge_combat.store.sqlite import SqliteStore
from fudge_combat.store.views import View

LINES = [
    'exchange snorri brynhild -d "snorri=0 0 0 0" -d "brynhild=0 0 0 0"',
    'roll brynhild Perception --vs Good --dice "0 0 0 0"',
    "spend snorri luck",  # re-resolves the exchange: its old consequences voided (C-FP-2)
    "undo",
    "undo",
    "redo",
    "log",
    "round",
    "exchange snorri brynhild",  # generated dice: the seed, and the log's last draw read backwards
    "roll snorri Perception --vs Fair",  # the draw after the exchange's, not after the first one's
    'wound brynhild Scratch --reason "a fall"',
    "declare brynhild --sealed --all-out-defense",
    'exchange snorri brynhild -d "snorri=+ + 0 0" -d "brynhild=- 0 0 0"',
    "spend snorri skill --shift +1",  # a second void, folded again from the undo history
    "undo --to 9",
    "log",
    "branch what-if --at 7",
    'exchange snorri brynhild -d "snorri=+ 0 0 0" -d "brynhild=0 0 0 0"',
    "log",
    "use duel",
    "redo",
    "fights",
    "log --json",
]


class Narrow:
    """A store with the members `EventStore` declares and no other: the read shortcuts are absent."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store
        self.notifies = store.notifies

    @property
    def path(self) -> Path | None:
        return self._store.path

    def fights(self) -> list[FightInfo]:
        return self._store.fights()

    def fight(self, name: str) -> FightInfo:
        return self._store.fight(name)

    def read(self, name: str, upto: int | None = None) -> list[Row]:
        return self._store.read(name, upto)

    def rows_from(self, name: str, seq: int) -> list[Row]:
        return self._store.rows_from(name, seq)

    def tail(self, name: str) -> tuple[int, str]:
        return self._store.tail(name)

    def append(self, name: str, expected_last_seq: int, rows: list[Row], *, create: FightInfo | None = None,
               snapshot: Snapshot | None = None, views: tuple[View, ...] = ()) -> None:
        self._store.append(name, expected_last_seq, rows, create=create, snapshot=snapshot, views=views)

    def snapshot_key(self, create: bool = False) -> bytes | None:
        return self._store.snapshot_key(create)

    def snapshot(self, name: str) -> Snapshot | None:
        return self._store.snapshot(name)

    def view(self, name: str, view: str) -> View | None:
        return self._store.view(name, view)

    def views_under(self, name: str, prefix: str) -> dict[str, View]:
        return self._store.views_under(name, prefix)

    def user_secrets(self) -> SecretBox:
        return self._store.user_secrets()

    def legacy_secrets(self) -> dict[str, str]:
        return self._store.legacy_secrets()

    def forget_legacy_secrets(self) -> None:
        self._store.forget_legacy_secrets()

    def setting(self, key: str) -> str | None:
        return self._store.setting(key)

    def set_setting(self, key: str, value: str) -> None:
        self._store.set_setting(key, value)

    def wait_for_change(self, name: str, seq: int, timeout: float) -> int:
        return self._store.wait_for_change(name, seq, timeout)


def test_the_wrapper_offers_the_narrow_contract_alone(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "fudge.db")
    narrow: EventStore = Narrow(store)  # the type checker holds it to the whole narrow Protocol
    assert isinstance(store, ReadShortcuts) and not isinstance(narrow, ReadShortcuts)
    assert Fights(store).reads.shortcuts is store
    assert Fights(narrow).reads.shortcuts is None
    shortcuts = {name for name in dir(ReadShortcuts) if not name.startswith("_")}
    assert shortcuts and not shortcuts & set(dir(narrow))
    store.close()


def deterministic(store: Any, secrets: SecretBox) -> Fights:
    """The service as `fudge` makes it (with the board's read model, which both stores keep), with a fixed
    clock, ids and seeds: two stores given the same commands hold the same bytes."""
    ids = itertools.count(1)
    stream = itertools.count()
    return Fights(store, clock=lambda: "2026-01-01T00:00:00.000+00:00",
                  new_id=lambda: hashlib.sha256(f"id {next(ids)}".encode()).hexdigest()[:32],
                  random_bytes=lambda n: b"".join(hashlib.sha256(str(next(stream)).encode()).digest()
                                                  for _ in range(0, n, 32))[:n],
                  secrets=secrets)


def played(folder: Path, wrap: Callable[[SqliteStore], Any], monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> tuple[list[tuple[str, int, str, str]], Fights, Path]:
    """Each line's exit status, output and errors, and the board the session draws after it."""
    db = folder / "fudge.db"
    folder.mkdir()
    monkeypatch.setattr(context.settings, "store_path", db)
    monkeypatch.setenv("XDG_STATE_HOME", str(folder / "state"))
    session = play.Session()
    fights = deterministic(wrap(session.store), MemorySecrets())
    session.fights = fights
    label, options = resolve("fudge", None)
    fights.new("duel", label, json_form(options))
    for sheet in ("snorri", "brynhild"):
        fights.execute("duel", join(sheet))
    out = []
    try:
        for line in LINES:
            code = session.run(line)
            session.board(force=True)
            said = capsys.readouterr()
            out.append((line, code, said.out.replace(str(folder), "FOLDER"), said.err.replace(str(folder), "FOLDER")))
    finally:
        session.close()
    return out, fights, db


def rows_of(db: Path) -> Iterable[tuple[Any, ...]]:
    """Every stored row of the log, the commands and the read models (the snapshot's MAC included)."""
    with sqlite3.connect(db) as connection:
        for table in ("fights", "events", "commands", "snapshots", "views"):
            yield table, *connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()


def test_A_LOG_1_a_fight_on_the_narrow_contract_is_the_fight_on_the_whole_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """C-FP-2, A-UNDO-1, A-BRANCH-1, A-REPLAY-1: the same lines give the same output, boards, logs and
    stored rows whether the store offers its read shortcuts or not."""
    whole, whole_fights, whole_db = played(tmp_path / "whole", lambda store: store, monkeypatch, capsys)
    narrow, narrow_fights, narrow_db = played(tmp_path / "narrow", Narrow, monkeypatch, capsys)
    assert whole_fights.reads.shortcuts is not None and narrow_fights.reads.shortcuts is None
    for line, code, out, err in whole:
        assert code == 0 and not err, (line, err)
        assert re.search(r"^\S+ \(fudge\) · ", out, re.M), line  # the board was drawn after it (its header)
    assert any("voided" in out or "re-resolved" in out for line, _, out, _ in whole if line.startswith("spend"))
    assert narrow == whole  # line by line: status, output, errors and the board
    assert list(rows_of(narrow_db)) == list(rows_of(whole_db))

    # A fresh service on each, as a one-shot command makes it: from the snapshot, then from scratch.
    stores = {kind: SqliteStore(db) for kind, db in (("whole", whole_db), ("narrow", narrow_db))}
    try:
        fresh = {"whole": deterministic(stores["whole"], MemorySecrets()),
                 "narrow": deterministic(Narrow(stores["narrow"]), MemorySecrets())}
        for name in ("duel", "what-if"):
            last = fresh["whole"].reads.last_seq(name)
            assert fresh["narrow"].reads.last_seq(name) == last
            replayed = replay(fresh["whole"].log(name))
            for service in fresh.values():
                assert service.log(name) == fresh["whole"].log(name)
                assert service.state(name) == fresh["whole"].state(name)
                assert service.loader.rebuild(name, last) == replayed  # the paged rebuild, voids included
                for page in (1, 4, last):
                    assert list(service.reads.pages(name, last, page)) == list(fresh["whole"].reads.pages(name, last, page))
                assert list(service.reads.back(name, last)) == list(fresh["whole"].reads.back(name, last))
                log = service.log(name)
                for command in {record.command for record in log}:
                    assert service.reads.has_command(name, command)
                    assert service.reads.command_seqs(name, command) == [r.seq for r in log if r.command == command]
                    assert [row.seq for row in service.reads.command_rows(name, command)] == [
                        r.seq for r in log if r.command == command]
                assert not service.reads.has_command(name, "never-sent")
        outcomes = {kind: service.execute("duel", cmd.Undo(), command_id="undo-again")
                    for kind, service in fresh.items()}
        again = {kind: service.execute("duel", cmd.Undo(), command_id="undo-again") for kind, service in fresh.items()}
        assert outcomes["narrow"].records == outcomes["whole"].records and outcomes["whole"].records
        assert again["narrow"].replayed and again["whole"].replayed  # the id was found: nothing appended twice
        assert again["narrow"].state == again["whole"].state == replay(fresh["whole"].log("duel"))
    finally:
        for store in stores.values():
            store.close()
