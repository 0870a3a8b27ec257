"""The store contract every backend passes (tests/test_store_contract.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from events.rows import Row


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


class EventStore(Protocol):
    def fights(self) -> list[FightInfo]: ...
    def fight(self, name: str) -> FightInfo: ...
    def read(self, name: str, upto: int | None = None) -> list[Row]: ...
    def bodies(self, name: str, upto: int | None = None) -> list[str]: ...  # the bodies of `read`, alone
    def last_seq(self, name: str) -> int: ...
    def tail(self, name: str) -> tuple[int, str]: ...  # (last seq, its hash); (0, GENESIS) when empty
    def has_command(self, name: str, command: str) -> bool: ...
    def append(self, name: str, expected_last_seq: int, rows: list[Row], *,
               create: FightInfo | None = None) -> None: ...
    def user_secrets(self) -> Any: ...  # the GM's seeds and sealed declarations (store.secrets.SecretBox)
    def legacy_secrets(self) -> dict[str, str]: ...  # secrets an older version kept in the store itself
    def forget_legacy_secrets(self) -> None: ...
    def setting(self, key: str) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...
