"""The GM's secrets: each fight's dice seeds and the plaintext of its sealed declarations.

They are kept outside every store, beside the snapshot key: whoever can read a store file then
cannot predict a fight's future dice nor read a sealed declaration before its reveal, and
whoever can write it cannot choose the dice (every seed is checked against the commitment in
the log before it is used). The file is `$FUDGE_SECRETS_FILE`, else `secrets.db` in the folder
of the snapshot key (store.snapshots): a small SQLite database only its owner can read (0600),
written one transaction at a time.

A secret is keyed by the fight it belongs to (the fight id of the event that committed the seed
or sealed the declaration) and by `seed:<commitment>` or `seal:<seal>`: one fight's secret is
never taken for another's. A seed revealed in a log is marked revealed here, so a fight that
still rolls with it (its log copied under another name, say) is refused rather than predictable.

The players' board's link (`link:board`: the secret path `fudge serve` serves a fight under, so the
address the players saved still works after a restart) is kept here too, and is the one secret that
is replaced (`fudge serve --new-link`): a seed or a sealed declaration never changes. A player's own link
(`invite:<its secret>`, the fighter's name as its value: `fudge invite`) is the one that is deleted, when
the GM revokes it.

`export` and `add` move the secrets to another machine (`fudge secrets export` / `import`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from fudge_combat.store.base import Secret, StoreError
from fudge_combat.store.snapshots import key_file, private_file_problem, sync_folder

FORMAT = "fudge-secrets"
FORMAT_VERSION = 1
LINK_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,64}")  # a board's link: secrets.token_urlsafe, a path segment as it is


def secrets_file() -> Path:
    if os.environ.get("FUDGE_SECRETS_FILE"):
        return Path(os.environ["FUDGE_SECRETS_FILE"])
    return key_file().parent / "secrets.db"


class MemorySecrets:
    """Secrets of an in-memory store (simulations, tests): gone with the process."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], Secret] = {}

    def get(self, fight: str, key: str) -> str | None:
        found = self._items.get((fight, key))
        return found.value if found else None

    def put(self, fight: str, items: Mapping[str, str]) -> None:
        for key, value in items.items():
            self._items.setdefault((fight, key), Secret(fight, key, value))

    def replace(self, fight: str, key: str, value: str) -> None:
        self._items[(fight, key)] = Secret(fight, key, value)

    def forget(self, fight: str, key: str) -> bool:
        return self._items.pop((fight, key), None) is not None

    def knows(self, fight: str) -> bool:
        return any(f == fight for f, _ in self._items)

    def was_revealed(self, key: str) -> bool:
        return any(s.revealed for (_, k), s in self._items.items() if k == key)

    def mark_revealed(self, keys: Iterable[str]) -> None:
        wanted = set(keys)
        for where, found in self._items.items():
            if found.key in wanted:
                self._items[where] = Secret(found.fight, found.key, found.value, True)

    def export(self) -> list[Secret]:
        return sorted(self._items.values(), key=lambda s: (s.fight, s.key))

    def add(self, secrets: Iterable[Secret]) -> int:
        before = len(self._items)
        for secret in secrets:
            self._items.setdefault((secret.fight, secret.key), secret)
        return len(self._items) - before

    def clear(self) -> None:
        self._items.clear()


def _cause(exc: BaseException) -> str:
    """An OS or SQLite error in the words a GM acts on: a full disk is named as such."""
    import errno

    text = str(exc)
    if getattr(exc, "errno", None) == errno.ENOSPC or "disk is full" in text or "SQLITE_FULL" in text:
        return "the disk is full (free some space, then run the command again)"
    return getattr(exc, "strerror", None) or text


def _not_private(path: Path) -> str | None:
    """Why the secrets file at `path` cannot be used (None: it can; made, empty and 0600, when missing): as
    the snapshot key (store.snapshots), it is a regular file of this user's own, not a link, that no other
    user can read or write. Opened without following a link and without waiting on a pipe."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if os.path.islink(path):
            return "it is a symbolic link (the file itself must be named)"
        if os.path.isdir(path):
            return "it is a folder, not a file"
        raise
    try:
        found = os.fstat(fd)
    finally:
        os.close(fd)
    problem = private_file_problem(found)
    if problem is None and found.st_mode & 0o077:
        problem = (f"other users can read or write it (mode {found.st_mode & 0o777:o}, it must be 600): "
                   f"`chmod 600 {path}`")
    return problem


SCHEMA = """
CREATE TABLE IF NOT EXISTS secrets (
    fight TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    revealed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (fight, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS secrets_by_key ON secrets (key);
"""


class SecretFile:
    """This user's secrets file, opened at its first use (a command that reads a fight never opens it)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open(self.path or secrets_file())
        return self._db

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        """The database, made readable and writable by its owner only before SQLite first writes it
        (SQLite gives its journal the same mode)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            problem = _not_private(path)
            if problem is not None:
                raise StoreError(f"the secrets file {path} is refused: {problem}; it must be a file of your "
                                 "own only you can read (FUDGE_SECRETS_FILE names another); nothing was read or written")
            db = sqlite3.connect(path, timeout=10.0, isolation_level=None)
            db.execute("PRAGMA synchronous=FULL")
            db.executescript("BEGIN IMMEDIATE;" + SCHEMA + "COMMIT;")
            sync_folder(path.parent)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the secrets file {path}: {_cause(exc)}; set FUDGE_SECRETS_FILE to a "
                             "file you can write") from None
        return db

    def get(self, fight: str, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM secrets WHERE fight = ? AND key = ?", (fight, key)).fetchone()
        return row[0] if row else None

    def put(self, fight: str, items: Mapping[str, str]) -> None:
        self._insert([Secret(fight, key, value) for key, value in items.items()])

    def replace(self, fight: str, key: str, value: str) -> None:
        """The one secret that changes: the board's link, made anew (`fudge serve --new-link`)."""
        self._write(lambda db: db.execute("INSERT OR REPLACE INTO secrets (fight, key, value, revealed) "
                                          "VALUES (?, ?, ?, 0)", (fight, key, value)))

    def forget(self, fight: str, key: str) -> bool:
        """A player's link revoked (`fudge invite --revoke`): the one secret deleted. False: none was kept."""
        return bool(self._write(lambda db: db.execute("DELETE FROM secrets WHERE fight = ? AND key = ?",
                                                      (fight, key)).rowcount))

    def knows(self, fight: str) -> bool:
        return self.db.execute("SELECT 1 FROM secrets WHERE fight = ? LIMIT 1", (fight,)).fetchone() is not None

    def was_revealed(self, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM secrets WHERE key = ? AND revealed = 1 LIMIT 1",
                               (key,)).fetchone() is not None

    def mark_revealed(self, keys: Iterable[str]) -> None:
        self._write(lambda db: db.executemany("UPDATE secrets SET revealed = 1 WHERE key = ?",
                                              [(key,) for key in keys]))

    def export(self) -> list[Secret]:
        rows = self.db.execute("SELECT fight, key, value, revealed FROM secrets ORDER BY fight, key")
        return [Secret(fight, key, value, bool(revealed)) for fight, key, value, revealed in rows]

    def add(self, secrets: Iterable[Secret]) -> int:
        return self._insert(list(secrets))

    def _insert(self, secrets: list[Secret]) -> int:
        """Inserted in one transaction; a secret already kept is kept as it is (a seed never changes)."""
        def insert(db: sqlite3.Connection) -> int:
            before = db.total_changes
            db.executemany("INSERT OR IGNORE INTO secrets (fight, key, value, revealed) VALUES (?,?,?,?)",
                           [(s.fight, s.key, s.value, int(s.revealed)) for s in secrets])
            return db.total_changes - before
        return self._write(insert)

    def _write(self, change: Any) -> Any:
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = change(db)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:  # SQLite rolls back itself on a full disk: a second rollback would fail
                    try:
                        db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass  # the first error says what happened; the transaction is not committed either way
                raise
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot write the secrets file {self.path or secrets_file()}: {_cause(exc)}; "
                             "nothing was written to it") from None
        return result


# --- moving secrets between machines ------------------------------------------------------

def dumps(secrets: Iterable[Secret]) -> str:
    return json.dumps({"format": FORMAT, "version": FORMAT_VERSION,
                       "secrets": [{"fight": s.fight, "key": s.key, "value": s.value, "revealed": s.revealed}
                                   for s in secrets]}, indent=1, sort_keys=True) + "\n"


def loads(text: str, check_seal: Any = None) -> list[Secret]:
    """The secrets of an export; anything that is not one, or a seed that does not hash to its
    commitment, or a seal that its declaration and salt do not give, is refused whole."""
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
            raise ValueError("not a fudge secrets export")
        secrets = [Secret(str(item["fight"]), str(item["key"]), str(item["value"]), bool(item.get("revealed")))
                   for item in data["secrets"]]
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):  # RecursionError: `[` nested past the parser
        raise StoreError("that file is not a `fudge secrets export` (version 1)") from None
    for secret in secrets:
        problem = _problem(secret, check_seal)
        if problem:
            raise StoreError(f"the secret {secret.key} of fight {secret.fight} {problem}: nothing imported")
    return secrets


def _problem(secret: Secret, check_seal: Any) -> str | None:
    kind, _, name = secret.key.partition(":")
    if kind == "seed":
        try:
            seed = bytes.fromhex(secret.value)
        except ValueError:
            return "is not a seed in hex"
        return None if hashlib.sha256(seed).hexdigest() == name else "does not hash to its commitment"
    if kind == "seal":
        if check_seal is None:
            return None
        try:
            return None if check_seal(json.loads(secret.value), name) else "does not match its seal"
        except (ValueError, TypeError, KeyError):
            return "is not a sealed declaration"
    if kind == "link":
        return None if name == "board" and LINK_TOKEN.fullmatch(secret.value) else "is not a board's link"
    if kind == "invite":
        return None if LINK_TOKEN.fullmatch(name) and 0 < len(secret.value) <= 200 else "is not a player's link"
    return "is of no kind fudge keeps"


def write_private(path: Path, text: str) -> None:
    """`text` into `path`, readable by its owner only, whole or not at all (temp file, fsync, rename)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()
    sync_folder(path.parent)
