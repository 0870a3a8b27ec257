"""The store contract every backend passes (tests/test_store_contract.py): the log, the caches kept
beside it, the settings and the GM's secrets. The service (service/) asks a store for nothing else."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from fudge_combat.store.snapshots import Snapshot
from fudge_combat.store.views import View

from fudge_combat.events.rows import Row


class StoreError(Exception):
    """A store problem the user can act on."""


class Conflict(StoreError):
    pass


class DuplicateCommand(StoreError):
    pass


class UnknownFight(StoreError):
    pass


@dataclass(frozen=True, slots=True)
class FightInfo:
    name: str
    fight_id: str
    parent: str | None = None
    fork_seq: int | None = None
    created_at: str = ""


CONFLICT = "the fight changed since you read it (another command was appended): run the command again"


def checked_append(last: int, expected_last_seq: int, rows: list[Row]) -> dict[str, list[int]]:
    """What every store checks inside an append's transaction: the log still ends where the command read
    it (else Conflict) and the rows follow it in order; the seqs each command id appends."""
    if last != expected_last_seq:
        raise Conflict(CONFLICT)
    if [r.seq for r in rows] != list(range(expected_last_seq + 1, expected_last_seq + 1 + len(rows))):
        raise StoreError("rows out of sequence")
    spans: dict[str, list[int]] = {}
    for row in rows:
        spans.setdefault(row.command, []).append(row.seq)
    return spans


@dataclass(frozen=True, slots=True)
class Secret:
    fight: str  # the fight id whose event committed the seed or sealed the declaration
    key: str  # seed:<commitment>, seal:<seal>, or link:board (the players' board's secret path)
    value: str  # the seed in hex, {"declaration": ..., "salt": ...} as JSON, or the path's token
    revealed: bool = False


class SecretBox(Protocol):
    """What the service asks of the GM's secrets (tests/test_secrets.py runs every kind through it)."""

    def get(self, fight: str, key: str) -> str | None: ...
    def put(self, fight: str, items: Mapping[str, str]) -> None: ...
    def replace(self, fight: str, key: str, value: str) -> None: ...  # a link, never a seed or a seal
    def knows(self, fight: str) -> bool: ...
    def was_revealed(self, key: str) -> bool: ...
    def mark_revealed(self, keys: Iterable[str]) -> None: ...
    def export(self) -> list[Secret]: ...
    def add(self, secrets: Iterable[Secret]) -> int: ...


class EventStore(Protocol):
    """Every ability the service uses. A store that keeps no caches (in memory, without a key) says so
    by giving no snapshot key: the service then neither writes nor reads snapshots and views."""

    @property
    def path(self) -> Path | None: ...  # the store's file, for messages (None: a store in memory)

    # --- the log (A-LOG-1) ------------------------------------------------------------------
    def fights(self) -> list[FightInfo]: ...
    def fight(self, name: str) -> FightInfo: ...
    def read(self, name: str, upto: int | None = None) -> list[Row]: ...
    def bodies(self, name: str, upto: int | None = None) -> list[str]: ...  # the bodies of `read`, alone
    def rows_from(self, name: str, seq: int) -> list[Row]: ...  # the rows from `seq` on, in order
    def rows_back(self, name: str, seq: int, limit: int) -> list[Row]: ...  # up to `limit` rows at or before `seq`, newest first
    def bodies_page(self, name: str, seq: int, limit: int, upto: int | None = None) -> list[tuple[int, str]]: ...
    def rows_of_types(self, name: str, types: Iterable[str], upto: int | None = None) -> list[Row]: ...  # in order
    def command_seqs(self, name: str, command: str, upto: int | None = None) -> list[int]: ...  # one command's events
    def last_seq(self, name: str) -> int: ...
    def tail(self, name: str) -> tuple[int, str]: ...  # (last seq, its hash); (0, GENESIS) when empty
    def has_command(self, name: str, command: str) -> bool: ...
    def append(self, name: str, expected_last_seq: int, rows: list[Row], *, create: FightInfo | None = None,
               snapshot: Snapshot | None = None, views: tuple[View, ...] = ()) -> None: ...

    # --- caches kept in the append's transaction (store.snapshots, store.views) --------------------
    def snapshot_key(self, create: bool = False) -> bytes | None: ...  # None: no caches are kept
    def snapshot(self, name: str) -> Snapshot | None: ...
    def view(self, name: str, view: str) -> View | None: ...
    def views_under(self, name: str, prefix: str) -> dict[str, View]: ...  # the fight's views named prefix...

    # --- the GM's secrets and the store's settings ---------------------------------------------------
    def user_secrets(self) -> SecretBox: ...  # the GM's seeds and sealed declarations (store.secrets)
    def legacy_secrets(self) -> dict[str, str]: ...  # secrets an older version kept in the store itself
    def forget_legacy_secrets(self) -> None: ...
    def setting(self, key: str) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...

    # --- following a fight another process writes (a live view of the table) -------------------------
    def wait_for_change(self, name: str, seq: int, timeout: float) -> int: ...  # last seq once past `seq`, or at timeout
    # True where the store itself wakes `wait_for_change` (PostgreSQL's LISTEN/NOTIFY) and may be waited
    # on from a thread of its own; False where it would poll (a file has no notifications).
    notifies: bool


def is_url(target: object) -> bool:
    """A PostgreSQL connection URL (`postgresql://...`, store.postgres), not a store file's path."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))
