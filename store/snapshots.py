"""A cached projection: the state of a fight as of its last event, so a command need not replay.

A snapshot is a pickled `FightState` keyed by the fight's last sequence number and hash and by
the code that built it (`code_version`: a digest of the engine, events and projections sources
and of the Python and pydantic versions). It is used only when all three still match and its
HMAC (keyed by a secret kept in the store) checks; anything else is ignored and the state is
rebuilt from the log, then saved again. The log stays the only truth: `verify` and every
as-of view fold the events, never a snapshot.

Pickle runs code from what it reads, so a snapshot is trusted only if it was written on this
machine by this user: the HMAC key lives outside every store, in a file only its owner can read
(`$FUDGE_KEY_FILE`, else `$XDG_STATE_HOME/fudge/snapshot.key`, else
`~/.local/state/fudge/snapshot.key`). A store file received from someone else (to audit a
session, say) carries snapshots under a key this machine does not have: they are ignored and the
state is folded from the log, which `verify` checks. Without a usable key file there are simply
no snapshots.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("engine", "events", "projections")
_VERSION: list[str] = []


def code_version() -> str:
    """Changes whenever code that could change a fold's result changes."""
    if not _VERSION:
        import pydantic

        _VERSION.append(source_digest(SOURCES, f"{sys.version}|{pydantic.VERSION}"))
    return _VERSION[0]


def source_digest(packages: tuple[str, ...], seed: str) -> str:
    """A digest of `seed` and of the sources of these packages of the project."""
    digest = hashlib.sha256(seed.encode())
    for package in packages:
        for path in sorted((ROOT / package).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def key_file() -> Path:
    if os.environ.get("FUDGE_KEY_FILE"):
        return Path(os.environ["FUDGE_KEY_FILE"])
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "fudge" / "snapshot.key"


def local_key(create: bool = False) -> bytes | None:
    """This user's snapshot key; made (readable by its owner only) when `create` and missing."""
    path = key_file()
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        if not create:
            return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(os.urandom(32).hex())
    except FileExistsError:
        pass  # another process made it first: read theirs
    except OSError:
        return None  # nowhere to keep a key: no snapshots
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class Snapshot:
    seq: int
    hash: str
    version: str
    body: bytes
    mac: str


def _mac(key: bytes, fight_id: str, seq: int, last_hash: str, version: str, body: bytes) -> str:
    head = f"{fight_id}|{seq}|{last_hash}|{version}|".encode()
    return hmac.new(key, head + body, hashlib.sha256).hexdigest()


def pack(state: Any, fight_id: str, seq: int, last_hash: str, key: bytes) -> Snapshot:
    version = code_version()
    body = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    return Snapshot(seq, last_hash, version, body, _mac(key, fight_id, seq, last_hash, version, body))


def unpack(snapshot: Snapshot | None, fight_id: str, seq: int, last_hash: str, key: bytes) -> Any | None:
    """The state, if the snapshot is of this fight at this very event, by this code, untouched."""
    if snapshot is None or (snapshot.seq, snapshot.hash, snapshot.version) != (seq, last_hash, code_version()):
        return None
    if not hmac.compare_digest(snapshot.mac, _mac(key, fight_id, seq, last_hash, snapshot.version, snapshot.body)):
        return None
    try:
        return pickle.loads(snapshot.body)
    except Exception:  # noqa: BLE001  (a snapshot is a cache: any failure means "rebuild")
        return None
