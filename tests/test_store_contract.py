"""The store contract (A-LOG-1, A-LOG-2), run against every backend.

One class of tests, parametrized over the embedded SQLite store (a real file
in tmp_path), the in-memory store and PostgreSQL (a throwaway server, one
connection or a pool: tests/pgserver.py), in the style of the `eventsourcing`
library's shared store test suite: whatever passes for one passes for the
other. Every refusal is checked to write nothing: no rows, no command ids,
no secrets, no fight.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.events import structs as ev
from fudge_combat.events.rows import Row
from fudge_combat.service.fights import Fights
from fudge_combat.store.base import (Conflict, DuplicateCommand, EventStore, FightInfo, ReadShortcuts, StoreError,
                                     UnknownFight)
from fudge_combat.store.memory import MemoryStore
from fudge_combat.store.snapshots import Snapshot
from fudge_combat.store.sqlite import SqliteStore
from fudge_combat.store.views import View, ViewStore, stored_board
from tests.conftest import dice, make_fights, sheet, start

CONFLICT_TEXT = "the fight changed since you read it"


def rows(first: int, command: str, count: int = 1, kind: str = "note") -> list[Row]:
    """`count` rows of one command, numbered from `first` (the store does not read bodies)."""
    return [Row(seq, command, kind, f'{{"seq":{seq},"command":"{command}"}}', f"{seq:064x}")
            for seq in range(first, first + count)]


class Backend:
    """A store under test, and how to open it again (a new connection, or the same object)."""

    def __init__(self, kind: str, tmp_path: Path, url: str | None = None) -> None:
        self.kind = kind
        self.path = tmp_path / "contract.db"
        self.url = url
        self.opened: list[Any] = []
        self.store = self.open()

    def open(self) -> Any:
        if self.kind == "memory":
            if self.opened:
                return self.opened[0]
            store: Any = MemoryStore()
        elif self.kind.startswith("postgresql"):
            from fudge_combat.store.postgres import PostgresStore

            store = PostgresStore.pooled(self.url or "") if self.kind.endswith("pool") else PostgresStore(self.url or "")
        else:
            store = SqliteStore(self.path)
        self.opened.append(store)
        return store

    def close(self) -> None:
        for store in self.opened:
            if hasattr(store, "close"):
                store.close()


@pytest.fixture(params=["sqlite", "memory", "postgresql", "postgresql-pool"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    url = request.getfixturevalue("pg_url") if request.param.startswith("postgresql") else None
    opened = Backend(request.param, tmp_path, url)
    yield opened
    opened.close()


def snapshot(store: Any, name: str) -> tuple[Any, ...]:
    """Everything observable about one fight, to compare before/after a refused append."""
    return (tuple(store.read(name)), store.last_seq(name), store.fight(name), tuple(store.fights()))


class TestStoreContract:
    """A-LOG-1: append-only, ordered, checked; the same for SQLite and memory."""

    def create(self, store: Any, name: str = "duel", count: int = 1, **info: Any) -> None:
        store.append(name, 0, rows(1, f"{name}-start", count, "fight_started"),
                     create=FightInfo(name, f"id-{name}", created_at="2026-01-01", **info))

    def test_A_LOG_1_append_then_read_in_order(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        store.append("duel", 1, rows(2, "c2", 3))
        store.append("duel", 4, rows(5, "c3"))
        read = store.read("duel")
        assert [r.seq for r in read] == [1, 2, 3, 4, 5]
        assert [r.command for r in read] == ["duel-start", "c2", "c2", "c2", "c3"]
        assert read == rows(1, "duel-start", 1, "fight_started") + rows(2, "c2", 3) + rows(5, "c3")
        assert store.last_seq("duel") == 5

    def test_A_REPLAY_1_read_upto_a_sequence_number(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        store.append("duel", 1, rows(2, "c2", 4))
        assert [r.seq for r in store.read("duel", 3)] == [1, 2, 3]
        assert [r.seq for r in store.read("duel", 5)] == [1, 2, 3, 4, 5]
        assert [r.seq for r in store.read("duel", 99)] == [1, 2, 3, 4, 5]

    def test_A_REPLAY_1_bodies_are_the_bodies_read_returns(self, backend: Backend) -> None:
        """A-REPLAY-1: `bodies` (what a replay parses) is `read`'s bodies, in order, to the same `upto`."""
        store = backend.store
        self.create(store)
        store.append("duel", 1, rows(2, "c2", 4))
        for upto in (None, 0, 3, 5, 99):
            assert store.bodies("duel", upto) == [r.body for r in store.read("duel", upto)]
        assert len(store.bodies("duel")) == 5
        with pytest.raises(UnknownFight):
            store.bodies("nobody")

    def test_A_LOG_1_fights_are_separate_logs(self, backend: Backend) -> None:
        store = backend.store
        self.create(store, "duel")
        self.create(store, "brawl", count=2)
        store.append("duel", 1, rows(2, "shared-id"))
        store.append("brawl", 2, rows(3, "shared-id"))  # command ids are unique per fight
        assert [r.seq for r in store.read("duel")] == [1, 2]
        assert [r.seq for r in store.read("brawl")] == [1, 2, 3]
        assert [f.name for f in store.fights()] == ["duel", "brawl"]

    def test_A_BRANCH_1_fight_info_records_parent_and_fork(self, backend: Backend) -> None:
        store = backend.store
        self.create(store, "duel")
        self.create(store, "what-if", parent="duel", fork_seq=1)
        info = store.fight("what-if")
        assert (info.name, info.fight_id, info.parent, info.fork_seq) == ("what-if", "id-what-if", "duel", 1)
        assert store.fight("duel").parent is None

    def test_conflict_on_a_stale_expected_last_seq(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        store.append("duel", 1, rows(2, "first"))
        before = snapshot(store, "duel")
        with pytest.raises(Conflict, match=CONFLICT_TEXT):
            store.append("duel", 1, rows(2, "second"))
        with pytest.raises(Conflict, match=CONFLICT_TEXT):
            store.append("duel", 3, rows(4, "ahead"))
        assert snapshot(store, "duel") == before
        assert not store.has_command("duel", "second")

    def test_duplicate_command_id_is_refused(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        store.append("duel", 1, rows(2, "roll-1", 2))
        assert store.has_command("duel", "roll-1")
        before = snapshot(store, "duel")
        with pytest.raises(DuplicateCommand):
            store.append("duel", 3, rows(4, "roll-1"))
        with pytest.raises(DuplicateCommand):
            store.append("duel", 3, rows(4, "new") + rows(5, "roll-1"))
        assert snapshot(store, "duel") == before
        assert not store.has_command("duel", "new")

    def test_Conflict_and_DuplicateCommand_are_store_errors(self) -> None:
        assert issubclass(Conflict, StoreError)
        assert issubclass(DuplicateCommand, StoreError)
        assert issubclass(UnknownFight, StoreError)

    def test_creating_a_fight_twice_is_refused(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        store.append("duel", 1, rows(2, "c2"))
        before = snapshot(store, "duel")
        with pytest.raises(StoreError, match="already exists"):
            store.append("duel", 0, rows(1, "again"), create=FightInfo("duel", "other-id"))
        assert snapshot(store, "duel") == before
        assert store.fight("duel").fight_id == "id-duel"

    def test_a_refused_create_leaves_no_fight(self, backend: Backend) -> None:
        store = backend.store
        with pytest.raises(Conflict):
            store.append("ghost", 2, rows(3, "c"), create=FightInfo("ghost", "id"))
        with pytest.raises(StoreError):
            store.append("ghost", 0, rows(2, "c"), create=FightInfo("ghost", "id"))
        assert store.fights() == []
        with pytest.raises(UnknownFight):
            store.read("ghost")

    def test_unknown_fight(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        for call in (lambda: store.read("nope"), lambda: store.last_seq("nope"), lambda: store.fight("nope"),
                     lambda: store.has_command("nope", "c"), lambda: store.append("nope", 0, rows(1, "c"))):
            with pytest.raises(UnknownFight, match="no fight named 'nope'"):
                call()
        assert [f.name for f in store.fights()] == ["duel"]

    def test_rows_out_of_sequence_are_refused(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        before = snapshot(store, "duel")
        for bad in (rows(3, "gap"), rows(1, "restart"), rows(2, "a") + rows(4, "b"), rows(2, "a") + rows(2, "b")):
            with pytest.raises(StoreError):
                store.append("duel", 1, bad)
        assert snapshot(store, "duel") == before
        assert not store.has_command("duel", "gap")

    def test_secrets_are_kept_by_fight_outside_the_store(self, backend: Backend) -> None:
        """A-FAIR-1, A-SEAL-1: the GM's secrets are not in the store (tests/test_secrets.py has their contract)."""
        store = backend.store
        store.append("duel", 0, rows(1, "start"), create=FightInfo("duel", "id"))
        box = store.user_secrets()
        box.put("id", {"seed:abc": "0102", "seal:def": '{"salt": "s"}'})
        assert (box.get("id", "seed:abc"), box.get("id", "seal:def")) == ("0102", '{"salt": "s"}')
        assert box.get("other-id", "seed:abc") is None and box.get("id", "seed:other") is None
        assert store.legacy_secrets() == {}
        if isinstance(store, SqliteStore):
            assert b"0102" not in backend.path.read_bytes()

    def test_settings(self, backend: Backend) -> None:
        store = backend.store
        assert store.setting("current") is None
        store.set_setting("current", "duel")
        assert store.setting("current") == "duel"
        store.set_setting("current", "what-if")
        assert store.setting("current") == "what-if"

    def test_A_LOG_1_what_was_appended_survives_reopening(self, backend: Backend) -> None:
        store = backend.store
        self.create(store)
        store.append("duel", 1, rows(2, "c2", 2))
        store.set_setting("current", "duel")
        again = backend.open()
        assert again.read("duel") == store.read("duel")
        assert again.fight("duel") == store.fight("duel")
        assert again.setting("current") == "duel"
        assert again.has_command("duel", "c2")

    def test_A_LOG_1_a_reader_holding_an_old_view_gets_the_conflict(self, backend: Backend) -> None:
        """Two handles on one store: the second writer's expected seq is stale."""
        first, second = backend.store, backend.open()
        self.create(first)
        seen_by_second = second.last_seq("duel")
        first.append("duel", seen_by_second, rows(2, "first-writer"))
        with pytest.raises(Conflict, match=CONFLICT_TEXT):
            second.append("duel", seen_by_second, rows(2, "second-writer"))
        assert [r.command for r in second.read("duel")] == ["duel-start", "first-writer"]

    def test_A_LOG_2_the_same_commands_give_the_same_bytes(self, backend: Backend) -> None:
        """Through the Fights shell, a store only keeps what it was given: same log on every backend."""
        fights = make_fights(backend.store)
        start(fights, "duel")
        fights.execute("duel", cmd.Join(sheet=sheet("Snorri", skills={"Sword": "Great"}, attack="Sword",
                                                     weapon=4, armor=2), source="snorri.toml"))
        fights.execute("duel", cmd.Join(sheet=sheet("Brynhild", skills={"Axe": "Good"}, attack="Axe",
                                                     weapon=3, armor=2), source="brynhild.toml"))
        fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"),
                       dice("snorri=+ 0 0 0", "brynhild=- 0 0 0"))
        fights.execute("duel", cmd.Undo())
        reference = make_fights(MemoryStore())
        start(reference, "duel")
        for command, given in ((cmd.Join(sheet=sheet("Snorri", skills={"Sword": "Great"}, attack="Sword",
                                                      weapon=4, armor=2), source="snorri.toml"), None),
                               (cmd.Join(sheet=sheet("Brynhild", skills={"Axe": "Good"}, attack="Axe",
                                                      weapon=3, armor=2), source="brynhild.toml"), None),
                               (cmd.Exchange(first="Snorri", second="Brynhild"),
                                dice("snorri=+ 0 0 0", "brynhild=- 0 0 0")),
                               (cmd.Undo(), None)):
            reference.execute("duel", command, given)
        assert backend.store.read("duel") == reference.store.read("duel")
        assert len(backend.store.read("duel")) > 8



# --- every ability the Protocol declares, on both backends ------------------------------------------------

def declared(*protocols: Any) -> frozenset[str]:
    return frozenset(name for protocol in protocols for name in (*vars(protocol), *protocol.__annotations__)
                     if not name.startswith("_"))


# What every backend must do, the read shortcuts it may offer (store.base) and the read models it may keep beside
# the log (store.views): all three backends offer all of them.
DECLARED = declared(EventStore, ReadShortcuts, ViewStore)


class OnlyDeclared:
    """A store seen through its Protocols alone: asking it for anything `EventStore`, `ReadShortcuts` and (unless
    `abilities` says otherwise) `ViewStore` do not declare fails (tests/test_narrow_store.py runs the service on
    `EventStore`'s members alone)."""

    def __init__(self, store: Any, abilities: frozenset[str] = DECLARED) -> None:
        self._store, self._abilities = store, abilities

    def __getattr__(self, name: str) -> Any:
        if name not in self._abilities:
            raise AttributeError(f"the service asked the store for {name!r}, which its Protocols do not declare")
        return getattr(self._store, name)


class WithoutViews(OnlyDeclared):
    """A store that offers the log and its snapshots but no read models: its append takes no views."""

    def __init__(self, store: Any) -> None:
        super().__init__(store, declared(EventStore) - {"append"})

    def append(self, name: str, expected_last_seq: int, rows: list[Row], *, create: FightInfo | None = None,
               snapshot: Snapshot | None = None) -> None:
        self._store.append(name, expected_last_seq, rows, create=create, snapshot=snapshot)


def keyed(backend: Backend) -> Any:
    """The backend's store with a snapshot key: SQLite's is this user's key file, memory's is given."""
    if backend.kind == "memory":
        return MemoryStore(snapshot_key=bytes(range(32)))
    return backend.store


class TestDeclaredAbilities:
    """The abilities the service uses beyond the log itself, each declared by `EventStore`."""

    def test_both_backends_have_every_declared_ability(self, backend: Backend) -> None:
        assert {"rows_from", "rows_back", "wait_for_change", "snapshot", "view", "snapshot_key", "user_secrets", "setting",
                "set_setting", "legacy_secrets", "forget_legacy_secrets", "path"} <= DECLARED
        for name in DECLARED:
            assert hasattr(backend.store, name), name
        assert isinstance(backend.store, ReadShortcuts)  # the service takes its shortcuts (service.reads)
        assert backend.store.path == (backend.path if backend.kind == "sqlite" else None)  # postgresql: no file

    def test_A_LOG_1_rows_from_a_seq_on_in_order(self, backend: Backend) -> None:
        store = backend.store
        store.append("duel", 0, rows(1, "start"), create=FightInfo("duel", "id"))
        store.append("duel", 1, rows(2, "c2", 5))
        every = store.read("duel")
        assert store.rows_from("duel", 3) == every[2:]
        assert store.rows_from("duel", 1) == store.rows_from("duel", 0) == every
        assert store.rows_from("duel", 6) == every[5:] and store.rows_from("duel", 7) == []
        with pytest.raises(UnknownFight):
            store.rows_from("nobody", 1)

    def test_A_LOG_1_pages_types_and_one_commands_events(self, backend: Backend) -> None:
        """bodies_page, rows_of_types and command_seqs: what a long replay and undo read, the same on every backend."""
        store = backend.store
        store.append("duel", 0, rows(1, "start", 1, "fight_started"), create=FightInfo("duel", "id"))
        store.append("duel", 1, rows(2, "c2", 3, "note"))
        store.append("duel", 4, rows(5, "c3", 2, "undone"))
        every = store.read("duel")
        assert store.bodies_page("duel", 2, 3) == [(r.seq, r.body) for r in every[1:4]]
        assert store.bodies_page("duel", 5, 99) == [(r.seq, r.body) for r in every[4:]]
        assert store.bodies_page("duel", 1, 99, upto=2) == [(r.seq, r.body) for r in every[:2]]
        assert store.bodies_page("duel", 3, 0) == [] and store.bodies_page("duel", 7, 5) == []
        assert store.rows_of_types("duel", ["undone", "fight_started"]) == [every[0], every[4], every[5]]
        assert store.rows_of_types("duel", {"undone"}, upto=5) == [every[4]]
        assert store.rows_of_types("duel", ["nothing"]) == []
        assert store.command_seqs("duel", "c2") == [2, 3, 4] and store.command_seqs("duel", "c2", upto=3) == [2, 3]
        assert store.command_seqs("duel", "never") == []
        with pytest.raises(UnknownFight):
            store.command_seqs("nobody", "c2")

    def test_wait_for_change_returns_once_another_writer_appends(self, backend: Backend) -> None:
        """What a live view of the table (`fudge serve`) waits on: SQLite polls, PostgreSQL listens."""
        import threading

        store = backend.store
        store.append("duel", 0, rows(1, "start"), create=FightInfo("duel", "id"))
        assert store.wait_for_change("duel", 0, 60) == 1  # already past: no wait
        assert store.wait_for_change("duel", 1, 0) == 1  # nothing new when the time is up
        with pytest.raises(UnknownFight):
            store.wait_for_change("nobody", 0, 0)
        if backend.kind == "memory":
            return  # no other process writes a store in memory

        def other_writer() -> None:
            time.sleep(0.3)  # most often after the waiter began to wait; before it is fine too
            writer = backend.open()
            backend.opened.remove(writer)  # closed here, in its own thread
            try:
                writer.append("duel", 1, rows(2, "c2", 2))
            finally:
                writer.close()

        thread = threading.Thread(target=other_writer)
        thread.start()
        try:
            assert store.wait_for_change("duel", 1, 120) == 3
        finally:
            thread.join()

    def test_A_LOG_1_rows_back_a_page_newest_first(self, backend: Backend) -> None:
        store = backend.store
        store.append("duel", 0, rows(1, "start"), create=FightInfo("duel", "id"))
        store.append("duel", 1, rows(2, "c2", 5))
        assert [r.seq for r in store.rows_back("duel", 5, 2)] == [5, 4]
        assert [r.seq for r in store.rows_back("duel", 99, 3)] == [6, 5, 4]
        assert [r.seq for r in store.rows_back("duel", 2, 10)] == [2, 1]
        assert store.rows_back("duel", 0, 5) == [] and store.rows_back("duel", 4, 0) == []
        assert store.rows_back("duel", 6, 6) == store.read("duel")[::-1]
        with pytest.raises(UnknownFight):
            store.rows_back("nobody", 1, 1)

    def test_snapshots_and_views_are_kept_with_the_append_that_brings_them(self, backend: Backend) -> None:
        store = keyed(backend)
        key = store.snapshot_key(create=True)
        assert isinstance(key, bytes) and len(key) == 32
        store.append("duel", 0, rows(1, "start"), create=FightInfo("duel", "id"))
        assert store.snapshot("duel") is None and store.view("duel", "status") is None
        first = Snapshot(1, "h1", "v", b"state-1", "mac-1")
        status = View("status", 1, "h1", "v", '{"round":1}', "mac-s")
        store.append("duel", 1, rows(2, "c2"), snapshot=first, views=(status,))
        assert store.snapshot("duel") == first
        assert store.view("duel", "status") == status and store.view("duel", "other") is None
        later = Snapshot(3, "h3", "v", b"state-3", "mac-3")
        with pytest.raises(Conflict):
            store.append("duel", 1, rows(2, "stale"), snapshot=later)
        assert store.snapshot("duel") == first  # a refused append keeps nothing it brought
        store.append("duel", 2, rows(3, "c3"), snapshot=later)
        assert store.snapshot("duel") == later and store.view("duel", "status") == status
        with pytest.raises(UnknownFight):
            store.snapshot("nobody")

    def test_the_views_under_a_name_are_read_together(self, backend: Backend) -> None:
        """A view stored in parts (projections.board_view): the parts are read in one query, each as stored,
        none of another fight's nor of another name."""
        store = keyed(backend)
        store.append("duel", 0, rows(1, "start"), create=FightInfo("duel", "id"))
        store.append("other", 0, rows(1, "start"), create=FightInfo("other", "id2"))
        parts = {name: View(name, 1, "h1", "v", f'"{name}"', "") for name in ("status/kara", "status/o'k %_")}
        store.append("duel", 1, rows(2, "c2"), views=(View("status", 1, "h1", "v", "{}", "m"), *parts.values(),
                                                      View("statuses", 1, "h1", "v", "{}", "m")))
        store.append("other", 1, rows(2, "c2"), views=(View("status/grok", 1, "h1", "v", "{}", ""),))
        assert store.views_under("duel", "status/") == parts
        assert store.views_under("duel", "nothing/") == {}
        with pytest.raises(UnknownFight):
            store.views_under("nobody", "status/")

    def test_a_store_without_a_key_keeps_no_caches_and_the_service_folds(self) -> None:
        """A memory store without a key (a simulation's scratch store) gets neither snapshots nor views."""
        store = MemoryStore()
        assert store.snapshot_key() is None and store.snapshot_key(create=True) is None
        fights = make_fights(store)
        start(fights, "duel")
        fights.execute("duel", cmd.Join(sheet=sheet("Snorri"), source="snorri.toml"))
        assert store.snapshot("duel") is None and store.view("duel", "status") is None

    def test_the_service_asks_a_store_for_nothing_its_protocol_does_not_declare(self, backend: Backend) -> None:
        """New, commands with read models and secrets, undo, redo, sealed declarations, branch, export,
        import and reveal-seed through a store that offers only what `EventStore` declares."""
        store = OnlyDeclared(keyed(backend))
        counter = iter(range(1, 10_000))
        fights = Fights(store, clock=lambda: "2026-01-01T00:00:00.000+00:00",
                        new_id=lambda: f"{next(counter):032x}", random_bytes=lambda n: bytes(range(n)))
        start(fights, "duel")
        for who in ("Snorri", "Brynhild"):
            fights.execute("duel", cmd.Join(sheet=sheet(who, skills={"Sword": "Good"}, attack="Sword", weapon=2),
                                            source=f"{who.lower()}.toml"))
        fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"))
        fights.execute("duel", cmd.Undo())
        fights.execute("duel", cmd.Redo())
        fights.declare("duel", "Snorri", ev.Declaration(all_out="offense"), sealed=True)
        fights.branch("duel", "what-if", None)
        opened = fights.reveals(fights.state("duel"), ["Snorri", "Brynhild"])
        fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild", reveals=opened))
        fights.import_(fights.export("duel"), "copy")
        again = Fights(store)  # a new process: the state from the snapshot, the next draw read backwards
        again.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"))
        again.reveal_seed("duel")
        assert again.state("duel") == fights.state("duel", as_of=store.last_seq("duel"))  # A-REPLAY-1
        assert [r.seq for r in store.read("duel")] == list(range(1, store.last_seq("duel") + 1))
        assert store.snapshot("duel") is not None and store.view("copy", "status") is not None  # caches kept

    def test_a_store_that_keeps_no_views_still_shows_the_board_computed_from_the_fight(self, backend: Backend) -> None:
        """Read models are an ability a store declares (`ViewStore`), asked once by the service: a store
        without it gets appends with no views, keeps its snapshots, and every read of the board computes
        it from the fight: the board a store keeping views stores for the same commands."""
        from fudge_combat.cli.views import stored_output
        from fudge_combat.projections.board_view import build

        without = WithoutViews(keyed(backend))
        assert not isinstance(without, ViewStore) and isinstance(OnlyDeclared(keyed(backend)), ViewStore)
        keeping = MemoryStore(snapshot_key=bytes(range(32)))
        assert isinstance(keeping, ViewStore)
        states = []
        for store in (without, keeping):
            fights = make_fights(store, views=True)  # kept wherever the store can
            start(fights, "duel")
            for who in ("Snorri", "Brynhild"):
                fights.execute("duel", cmd.Join(sheet=sheet(who, skills={"Sword": "Good"}, attack="Sword", weapon=2),
                                                source=f"{who.lower()}.toml"))
            fights.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"))
            fights.execute("duel", cmd.Undo())
            fights.execute("duel", cmd.Exchange(first="Brynhild", second="Snorri"))
            states.append(make_fights(store).state("duel"))  # a new process: read from the snapshot
        inner = without._store
        assert inner.view("duel", "status") is None and inner.views_under("duel", "status") == {}  # none written
        assert inner.snapshot("duel") is not None  # the other caches are kept as before
        assert stored_board(without, "duel") is None and stored_output(without, "duel", as_json=True) is None
        kept = stored_board(keeping, "duel")
        assert kept is not None and kept[1] == keeping.last_seq("duel")
        assert states[0] == states[1]
        assert kept[0] == json.loads(json.dumps(build(states[0])))  # what a read computes without the view
