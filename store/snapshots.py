"""A cached projection: the state of a fight as of its last event, so a command need not replay.

A snapshot is a pickled `FightState` keyed by the fight's last sequence number and hash and by
the code that built it (`code_version`: a digest of the engine, events and projections sources
and of the Python and pydantic versions). It is used only when all three still match and its
HMAC (keyed by this user's key, kept outside every store) checks; anything else is ignored and
the state is rebuilt from the log, then saved again. The log stays the only truth: `verify` and
every as-of view fold the events, never a snapshot.

Pickle can run code named in what it reads, so a snapshot is guarded twice: it is unpickled only
if its HMAC checks (it was written on this machine by this user), and then only by
`StateUnpickler`, which refuses every name but the core's own classes and plain containers (no
function, no other module's class): a snapshot forged with a stolen key still cannot run code.
The HMAC key lives outside every store, in a file only its owner can read (`$FUDGE_KEY_FILE`,
else `$XDG_STATE_HOME/fudge/snapshot.key`, else `~/.local/state/fudge/snapshot.key`). A store
file received from someone else (to audit a session, say) carries snapshots under a key this
machine does not have: they are ignored and the state is folded from the log, which `verify`
checks. Without a usable key file there are simply no snapshots.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import io
import pickle
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.pmap import EventMap
from store.log import log

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("engine", "events", "projections")
_VERSION: list[str] = []
# The layout of a snapshot's body, part of its version: a snapshot of another format is ignored (the state
# is folded from the log), never misread. 2: the events of the actions are left in the log (keys only).
FORMAT = "2"


def code_version() -> str:
    """Changes whenever code that could change a fold's result changes."""
    if not _VERSION:
        import pydantic

        _VERSION.append(source_digest(SOURCES, f"{FORMAT}|{sys.version}|{pydantic.VERSION}"))
    return _VERSION[0]


def source_digest(packages: tuple[str, ...], seed: str) -> str:
    """A digest of `seed` and of the sources of these packages of the project, their subpackages included
    (engine/rulesets)."""
    digest = hashlib.sha256(seed.encode())
    for package in packages:
        for part in _sources(package):
            digest.update(part)
    return digest.hexdigest()[:32]


@functools.cache
def _sources(package: str) -> tuple[bytes, ...]:
    """Each source file of a package as `source_digest` reads it (its path, then its text), read once a
    process: the snapshot's version and the status view's both digest engine, events and projections,
    and a command computes both (the second read was about 2 ms of a one-shot command)."""
    return tuple(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0"
                 for path in sorted((ROOT / package).rglob("*.py")))


KEY_BYTES = 32
_KEY_TEXT = re.compile(rb"[0-9a-f]{%d}\n?" % (2 * KEY_BYTES))


def key_file() -> Path:
    if os.environ.get("FUDGE_KEY_FILE"):
        return Path(os.environ["FUDGE_KEY_FILE"])
    return state_dir() / "snapshot.key"


def state_dir() -> Path:
    """This user's fudge folder: the snapshot key and the secrets file (store.secrets) live here."""
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "fudge"


def local_key(create: bool = False) -> bytes | None:
    """This user's snapshot key; made (readable by its owner only) when `create` and missing.

    A key is exactly 32 random bytes (64 hex digits in the file). A file that is anything else
    (empty or short after a kill, garbled, readable or writable by others) is no key: snapshots are
    off, with one warning, and the file is left for its owner to delete; it is never overwritten.
    """
    path = key_file()
    key = _read_key(path)
    if key is not None or not create or path.exists() or os.path.islink(path):
        return key
    try:
        _write_key(path)
    except OSError:
        return None  # nowhere to keep a key: no snapshots
    return _read_key(path)


def _read_key(path: Path) -> bytes | None:
    """The key in `path`, or None (missing: silently; anything else: one warning saying what to do)."""
    try:  # O_NONBLOCK: a named pipe is refused below, not waited on at its open
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _not_a_key(path, f"it cannot be read ({exc.strerror})")
    problem = private_file_problem(os.fstat(fd))
    if problem is not None:
        os.close(fd)
        return _not_a_key(path, problem)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        text = handle.read(4 * KEY_BYTES)
    if mode & 0o077:
        return _not_a_key(path, f"other users can read or write it (mode {mode & 0o777:o}, it must be 600)")
    if not _KEY_TEXT.fullmatch(text):
        return _not_a_key(path, f"it holds {len(text)} bytes, not a key of {KEY_BYTES} random bytes in hex")
    return bytes.fromhex(text.decode())


def private_file_problem(found: os.stat_result) -> str | None:
    """What makes a file no place for the GM's key or secrets (None: nothing): it must be a regular file
    (not a folder, a pipe, a device) of this user's own."""
    kind = stat.S_IFMT(found.st_mode)
    if kind != stat.S_IFREG:
        names = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a named pipe", stat.S_IFSOCK: "a socket"}
        return f"it is {names.get(kind, 'a device')}, not a file"
    if hasattr(os, "getuid") and found.st_uid != os.getuid():
        return f"it belongs to another user (uid {found.st_uid})"
    return None


_WARNED: set[str] = set()


def _not_a_key(path: Path, why: str) -> None:
    if str(path) not in _WARNED:  # one warning per process, however often the key is asked for
        _WARNED.add(str(path))
        log.warning("snapshot key refused: snapshots are off until it is deleted (the next command then "
                    "makes a new one)", key_file=str(path), reason=why)
    return None


def _write_key(path: Path) -> None:
    """A new key, whole or not at all: written to a temp file beside it, synced, then linked into place.

    A link never replaces a file: when two processes make a key at once, the second reads the first's.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(os.urandom(KEY_BYTES).hex().encode())
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            return  # another process made it first: read theirs
        except OSError:
            if path.exists():
                return
            os.rename(temp, path)  # a file system without links
        sync_folder(path.parent)
    finally:
        if temp.exists():
            temp.unlink()


def sync_folder(folder: Path) -> None:
    """A rename or link survives a crash once its folder is synced."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


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
    out = io.BytesIO()
    StatePickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
    body = out.getvalue()
    return Snapshot(seq, last_hash, version, body, _mac(key, fight_id, seq, last_hash, version, body))


def unpack(snapshot: Snapshot | None, fight_id: str, seq: int, last_hash: str, key: bytes) -> Any | None:
    """The state, if the snapshot is of this fight at this very event, by this code, untouched."""
    if snapshot is None or (snapshot.seq, snapshot.hash, snapshot.version) != (seq, last_hash, code_version()):
        return None
    if not hmac.compare_digest(snapshot.mac, _mac(key, fight_id, seq, last_hash, snapshot.version, snapshot.body)):
        return None
    try:
        return StateUnpickler(io.BytesIO(snapshot.body)).load()
    except Exception as error:  # noqa: BLE001  (a snapshot is a cache: any failure means "rebuild")
        log.warning("snapshot not used: the state is folded from the log", fight=fight_id, reason=str(error))
        return None


class StatePickler(pickle.Pickler):
    """Pickles a state with its action events left in the log (`EventMap.logged_keys`): the events are
    the bulk of a long fight's state, and the log holds them already; the service gives the unpickled
    state a reader for them (service.caches). Format 2."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is EventMap:
            return obj.logged_keys()
        return NotImplemented


# The packages whose classes a fight's state is made of, and the builtins pickle may name for them.
STATE_PACKAGES = ("engine.", "events.", "projections.")
SAFE_BUILTINS = frozenset({"frozenset", "set", "tuple", "list", "dict", "int", "float", "str", "bytes", "bool"})


class StateUnpickler(pickle.Unpickler):
    """Unpickles a fight's state and nothing else: pickle may name only classes defined in the
    project's core (state, events, sheets, options) and plain builtin containers. A function
    (`os.system`, `builtins.eval`, `subprocess.Popen`...) or any other module's class is refused
    before it can be called, even in a snapshot whose HMAC checks (defence in depth: a stolen key
    still cannot run code). Looking names up here costs once per class, not per object."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in SAFE_BUILTINS:
            return super().find_class(module, name)
        if module.startswith(STATE_PACKAGES) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and found.__module__ == module:
                return found
        raise pickle.UnpicklingError(f"a snapshot may not name {module}.{name}")
