"""An in-memory store with the same contract as SQLite: for simulations and tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fudge_combat.events.rows import Row
from fudge_combat.store.base import DuplicateCommand, FightInfo, StoreError, UnknownFight, checked_append
from fudge_combat.store.secrets import MemorySecrets
from fudge_combat.store.snapshots import Snapshot
from fudge_combat.store.views import View


class MemoryStore:
    """The log, caches and settings in dicts. Without `snapshot_key` (the default: a simulation's scratch
    store, most tests) it keeps no caches, so the service folds the log as SQLite without a key would."""

    notifies = False  # one process: nobody else appends to wait for

    path: Path | None = None

    def __init__(self, snapshot_key: bytes | None = None) -> None:
        self._fights: dict[str, FightInfo] = {}
        self._rows: dict[str, list[Row]] = {}
        self._commands: dict[str, set[str]] = {}
        self._secrets = MemorySecrets()
        self._settings: dict[str, str] = {}
        self._key = snapshot_key
        self._snapshots: dict[str, Snapshot] = {}
        self._views: dict[tuple[str, str], View] = {}

    def fights(self) -> list[FightInfo]:
        return list(self._fights.values())

    def fight(self, name: str) -> FightInfo:
        if name not in self._fights:
            raise UnknownFight(f"no fight named {name!r}; `fudge fights` lists them")
        return self._fights[name]

    def read(self, name: str, upto: int | None = None) -> list[Row]:
        self.fight(name)
        rows = self._rows[name]
        return list(rows if upto is None else rows[:max(upto, 0)])

    def bodies(self, name: str, upto: int | None = None) -> list[str]:
        return [row.body for row in self.read(name, upto)]

    def rows_from(self, name: str, seq: int) -> list[Row]:
        self.fight(name)
        return self._rows[name][max(seq, 1) - 1:]

    def rows_back(self, name: str, seq: int, limit: int) -> list[Row]:
        self.fight(name)
        rows = self._rows[name]
        end = min(max(seq, 0), len(rows))
        return rows[max(end - max(limit, 0), 0):end][::-1]

    def bodies_page(self, name: str, seq: int, limit: int, upto: int | None = None) -> list[tuple[int, str]]:
        rows = [row for row in self.read(name, upto) if row.seq >= seq]
        return [(row.seq, row.body) for row in rows[:max(limit, 0)]]

    def rows_of_types(self, name: str, types: Iterable[str], upto: int | None = None) -> list[Row]:
        kinds = set(types)
        return [row for row in self.read(name, upto) if row.type in kinds]

    def command_seqs(self, name: str, command: str, upto: int | None = None) -> list[int]:
        return [row.seq for row in self.read(name, upto) if row.command == command]

    def last_seq(self, name: str) -> int:
        self.fight(name)
        return len(self._rows[name])

    def tail(self, name: str) -> tuple[int, str]:
        self.fight(name)
        rows = self._rows[name]
        return (rows[-1].seq, rows[-1].hash) if rows else (0, "0" * 64)

    def wait_for_change(self, name: str, seq: int, timeout: float) -> int:
        """The last seq at once: no other process writes a store in memory (a thread that does appends
        before or after, never while this runs)."""
        return self.last_seq(name)

    def has_command(self, name: str, command: str) -> bool:
        self.fight(name)
        return command in self._commands.get(name, set())

    def append(self, name: str, expected_last_seq: int, rows: list[Row], *, create: FightInfo | None = None,
               snapshot: Snapshot | None = None, views: tuple[View, ...] = ()) -> None:
        if create is not None:
            if name in self._fights:
                raise StoreError(f"a fight named {name!r} already exists; pick another name")
        else:
            self.fight(name)
        current = self._rows.get(name, [])
        spans = checked_append(len(current), expected_last_seq, rows)
        known = self._commands.get(name, set())
        if known & spans.keys():
            raise DuplicateCommand(f"that command was already applied to {name}")
        if create is not None:
            self._fights[name] = create
        self._rows[name] = current + list(rows)
        self._commands[name] = known | {r.command for r in rows}
        if snapshot is not None:
            self._snapshots[name] = snapshot
        for view in views:
            self._views[name, view.name] = view

    # --- caches -----------------------------------------------------------------------------
    def snapshot_key(self, create: bool = False) -> bytes | None:
        """The key this store was given (None: it keeps no snapshots nor views)."""
        return self._key

    def snapshot(self, name: str) -> Snapshot | None:
        self.fight(name)
        return self._snapshots.get(name)

    def view(self, name: str, view: str) -> View | None:
        self.fight(name)
        return self._views.get((name, view))

    def views_under(self, name: str, prefix: str) -> dict[str, View]:
        self.fight(name)
        return {view: row for (fight, view), row in self._views.items() if fight == name and view.startswith(prefix)}

    # --- secrets and settings ------------------------------------------------------------------
    def user_secrets(self) -> MemorySecrets:
        """The secrets of this store's fights, in memory like the store."""
        return self._secrets

    def legacy_secrets(self) -> dict[str, str]:
        return {}

    def forget_legacy_secrets(self) -> None:
        pass

    def setting(self, key: str) -> str | None:
        return self._settings.get(key)

    def set_setting(self, key: str, value: str) -> None:
        self._settings[key] = value
