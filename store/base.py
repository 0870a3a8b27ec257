"""The store contract every backend passes (tests/test_store_contract.py): what every backend must do
(`EventStore`: the log, the caches kept beside it, the settings and the GM's secrets) and the reads it
may offer to go faster (`ReadShortcuts`). The service (service/) asks a store for nothing else."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

from msgspec import Struct

from fudge_combat.store.snapshots import Snapshot
from fudge_combat.events.rows import Row


class StoreError(Exception):
    """A store problem the user can act on."""


class Conflict(StoreError):
    pass


class DuplicateCommand(StoreError):
    pass


class UnknownFight(StoreError):
    pass


class FightInfo(Struct, frozen=True):
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


class Secret(Struct, frozen=True):
    fight: str  # the fight id whose event committed the seed or sealed the declaration
    key: str  # seed:<commitment>, seal:<seal>, or link:board (the players' board's secret path)
    value: str  # the seed in hex, {"declaration": ..., "salt": ...} as JSON, or the path's token
    revealed: bool = False


class SecretBox(Protocol):
    """What the service asks of the GM's secrets (tests/test_secrets.py runs every kind through it)."""

    def get(self, fight: str, key: str) -> str | None: ...
    def put(self, fight: str, items: Mapping[str, str]) -> None: ...
    def replace(self, fight: str, key: str, value: str) -> None: ...  # a link, never a seed or a seal
    def forget(self, fight: str, key: str) -> bool: ...  # a player's link revoked: False if none was kept
    def knows(self, fight: str) -> bool: ...
    def was_revealed(self, key: str) -> bool: ...
    def mark_revealed(self, keys: Iterable[str]) -> None: ...
    def export(self) -> list[Secret]: ...
    def add(self, secrets: Iterable[Secret]) -> int: ...


class EventStore(Protocol):
    """What every backend must do, and all the service needs: the log (append at an expected version,
    read it to an event or from one), the fights, the caches written in the append's transaction, the
    settings and the GM's secrets. A store that keeps no caches (in memory, without a key) says so by
    giving no snapshot key: the service then neither writes nor reads snapshots and views.

    A backend may also answer some reads in fewer rows or round trips (`ReadShortcuts`): the service
    checks once which it offers (service.reads) and otherwise reads through these."""

    @property
    def path(self) -> Path | None: ...  # the store's file, for messages (None: a store in memory)

    # --- the log (A-LOG-1) ------------------------------------------------------------------
    def fights(self) -> list[FightInfo]: ...
    def fight(self, name: str) -> FightInfo: ...
    def read(self, name: str, upto: int | None = None) -> list[Row]: ...  # the rows to `upto`, in order
    def rows_from(self, name: str, seq: int) -> list[Row]: ...  # the rows from `seq` on, in order
    def tail(self, name: str) -> tuple[int, str]: ...  # (last seq, its hash); (0, GENESIS) when empty
    def append(self, name: str, expected_last_seq: int, rows: list[Row], *, create: FightInfo | None = None,
               snapshot: Snapshot | None = None) -> None: ...

    # --- caches kept in the append's transaction (store.snapshots; read models: store.views.ViewStore) -----
    def snapshot_key(self, create: bool = False) -> bytes | None: ...  # None: no caches are kept
    def snapshot(self, name: str) -> Snapshot | None: ...

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


@runtime_checkable
class ReadShortcuts(Protocol):
    """Reads a backend may offer beside `EventStore`'s, each answering exactly what the narrow reads
    filtered would (service.reads falls back to that), in one query over an index instead of the log:
    what keeps a one-shot command, a replay from scratch and `fudge play`'s step from reading the whole
    log. All three backends offer them; tests/test_narrow_store.py runs the service without."""

    def bodies(self, name: str, upto: int | None = None) -> list[str]: ...  # the bodies of `read`, alone
    def bodies_page(self, name: str, seq: int, limit: int, upto: int | None = None) -> list[tuple[int, str]]: ...
    def rows_back(self, name: str, seq: int, limit: int) -> list[Row]: ...  # up to `limit` rows at or before `seq`, newest first
    def rows_of_types(self, name: str, types: Iterable[str], upto: int | None = None) -> list[Row]: ...  # in order
    def command_seqs(self, name: str, command: str, upto: int | None = None) -> list[int]: ...  # one command's events
    def has_command(self, name: str, command: str) -> bool: ...
    def last_seq(self, name: str) -> int: ...


def is_url(target: object) -> bool:
    """A PostgreSQL connection URL (`postgresql://...`, store.postgres), not a store file's path."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))
