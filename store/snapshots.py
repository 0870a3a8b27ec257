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

A snapshot is a cache and, like everything read from a store, untrusted: a row any column of which
is not of its type, fails its HMAC, or does not decode to a fight's state within bounds is ignored,
with one warning (`ignored`), and the state is folded from the log; the next command writes a new
one. Even under the right HMAC (a key stolen, or a defect), pickle's bytes are bounded: the body is
at most `MAX_BODY` bytes; the unpickler names only the classes the state's annotations reach
(store.checked.classes), never a builtin callable; it runs in a thread whose C stack is sized to
the body (the C unpickler hashes a dict's keys with no depth check: a key nested a hundred
thousand tuples deep, 100 KB of pickle, overflows a normal stack); and what it built is walked
against the state's annotations, for types, cycles and its size as a tree, before anything else
reads it (store.checked).

What this cannot bound: the C unpickler hashes a dict's keys and a set's items as it builds them,
and a tuple's hash is not cached, so a key made of one tuple shared twice at each of 40 levels (a
few hundred bytes, under the right HMAC) takes 2**40 steps inside pickle, before any check runs.
Only a decoder without shared references (no memo: msgpack, say) closes that; pickle is kept here
until the state is given such a format.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import hmac
import os
import io
import pickle
import re
import stat
import sys
import threading
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
    and a command computes both (the second read was a measurable share of a one-shot command)."""
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


def _not_a_key(path: Path, why: str) -> bytes | None:  # no key: None, after one warning
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


MAX_BODY = 8 << 20  # bytes: far above what the longest bench fight's state pickles to (its events stay in the log)
EXPANSION = 16  # items the decoded state may hold, walked as a tree, per byte of body (real states stay far below)
STACK_PER_BYTE = 96  # C stack per byte of body for the unpickler's thread (hashing one tuple level takes 64)
MAC_TEXT = re.compile(r"[0-9a-f]{64}")

_IGNORED: set[tuple[str, str]] = set()
QUIET = contextvars.ContextVar("quiet", default=False)  # True: a reader that must print nothing (completion)


def ignored(cache: str, fight: str, reason: str) -> None:
    """Say once per process and fight that a stored cache was not used, and why: the command goes on
    from the log, so this is a warning, never an error."""
    if (cache, fight) not in _IGNORED and not QUIET.get():
        _IGNORED.add((cache, fight))
        log.warning(f"stored {cache} not used: read from the fight's log instead (the next command stores it "
                    "again)", fight=fight, reason=reason)


def from_row(row: Any, fight: str) -> Snapshot | None:
    """A stored row (seq, hash, version, body, mac) as a `Snapshot`, or None when a column is not of its
    type (text where a number or bytes belong, an oversized body). Its MAC is checked by `unpack`."""
    seq, last_hash, version, body, mac = row
    if isinstance(body, (bytearray, memoryview)):
        body = bytes(body)
    if not (type(seq) is int and type(last_hash) is str and type(version) is str and type(body) is bytes
            and type(mac) is str):
        ignored("snapshot", fight, "a column is not of its type")
        return None
    if len(body) > MAX_BODY:
        ignored("snapshot", fight, f"its body is over {MAX_BODY} bytes")
        return None
    return Snapshot(seq, last_hash, version, body, mac)


def _mac(key: bytes, fight_id: str, seq: int, last_hash: str, version: str, body: bytes) -> str:
    head = f"{fight_id}|{seq}|{last_hash}|{version}|".encode()
    return hmac.new(key, head + body, hashlib.sha256).hexdigest()


def pack(state: Any, fight_id: str, seq: int, last_hash: str, key: bytes) -> Snapshot:
    version = code_version()
    out = io.BytesIO()
    StatePickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
    body = out.getvalue()
    return Snapshot(seq, last_hash, version, body, _mac(key, fight_id, seq, last_hash, version, body))


def unpack(snapshot: Snapshot | None, fight_id: str, seq: int, last_hash: str, key: bytes,
           fight: str | None = None) -> Any | None:
    """The (state, history), if the snapshot is of this fight at this very event, by this code, untouched,
    and decodes to a state within bounds. An older snapshot or one of other code is simply not used; one
    that fails its MAC or its decoding is ignored with one warning (`fight`: the name it gives)."""
    if snapshot is None or (snapshot.seq, snapshot.hash, snapshot.version) != (seq, last_hash, code_version()):
        return None
    named = fight or fight_id
    if not (MAC_TEXT.fullmatch(snapshot.mac) and hmac.compare_digest(
            snapshot.mac.encode(), _mac(key, fight_id, seq, last_hash, snapshot.version, snapshot.body).encode())):
        ignored("snapshot", named, "its MAC does not check under this user's key (another user's store, or "
                "a row edited)")
        return None
    if len(snapshot.body) > MAX_BODY:
        ignored("snapshot", named, f"its body is over {MAX_BODY} bytes")
        return None
    try:
        found = decode(snapshot.body)
    except Exception as error:  # noqa: BLE001  (a snapshot is a cache: any failure means "rebuild")
        ignored("snapshot", named, f"it does not decode to a fight's state ({type(error).__name__}: {error})"[:300])
        return None
    state = found[0]
    if (state.fight_id, state.last_seq) != (fight_id, seq):
        ignored("snapshot", named, "it holds another fight or another event")
        return None
    return found


def decode(body: bytes) -> Any:
    """The (state, history) a snapshot's body holds, within bounds (see the module's docstring), or an
    exception saying why not."""
    from store import checked

    out: list[Any] = []

    def load() -> None:
        try:
            out.append(StateUnpickler(io.BytesIO(body)).load())
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            out.append(error)

    with _STACK:
        before = threading.stack_size(max(1 << 20, STACK_PER_BYTE * len(body)) + (8 << 20))
        try:
            thread = threading.Thread(target=load, name="snapshot-decode", daemon=True)
            thread.start()
        finally:
            threading.stack_size(before)
    thread.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    checked.check(out[0], EXPANSION * len(body) + 4096)
    return out[0]


_STACK = threading.Lock()  # the stack size is the process's setting for the next thread started


class StatePickler(pickle.Pickler):
    """Pickles a state with its action events left in the log (`EventMap.logged_keys`): the events are
    the bulk of a long fight's state, and the log holds them already; the service gives the unpickled
    state a reader for them (service.caches). Format 2."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is EventMap:
            return obj.logged_keys()
        return NotImplemented


class StateUnpickler(pickle.Unpickler):
    """Unpickles a fight's state and nothing else: pickle may name only the classes the state's
    annotations reach (store.checked.classes: the core's state, sheets, options and events, the
    persistent maps). A function (`os.system`, `builtins.eval`, `subprocess.Popen`...), a builtin
    (`bytes(10**10)` would allocate 10 GB from a few bytes) or any other class is refused before it
    can be called, even in a snapshot whose HMAC checks (defence in depth: a stolen key still
    cannot run code). Looking names up here costs once per class, not per object."""

    def find_class(self, module: str, name: str) -> Any:
        from store import checked

        if module.startswith(STATE_PACKAGES) and "." not in name:
            found = super().find_class(module, name)
            if found in checked.classes():
                return found
        raise pickle.UnpicklingError(f"a snapshot may not name {module}.{name}")


# The packages whose classes a fight's state is made of.
STATE_PACKAGES = ("engine.", "events.", "projections.")
