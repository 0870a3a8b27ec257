"""A cached projection: the state of a fight as of its last event, so a command need not replay.

A snapshot is a `FightState` and its undo history (engine.kernel.rewind) as msgpack, in the types
store.schema derives from the state's annotations, keyed by the fight's last sequence number and
hash and by the code that built it (`code_version`: a digest of the engine, events and projections
sources, of the body's format and of the Python, pydantic and msgspec versions). It is used only when
all three still match and its HMAC (keyed by this user's key, kept outside every store) checks;
anything else is ignored and the state is rebuilt from the log, then saved again. The log stays the
only truth: `verify` and every as-of view fold the events, never a snapshot.

The HMAC key lives outside every store, in a file only its owner can read (`$FUDGE_KEY_FILE`,
else `$XDG_STATE_HOME/fudge/snapshot.key`, else `~/.local/state/fudge/snapshot.key`). A store
file received from someone else (to audit a session, say) carries snapshots under a key this
machine does not have: they are ignored and the state is folded from the log, which `verify`
checks. Without a usable key file there are simply no snapshots.

A snapshot is a cache and, like everything read from a store, untrusted: a row any column of which
is not of its type, fails its HMAC, or does not decode to a fight's state within bounds is ignored,
with one warning (`ignored`), and the state is folded from the log; the next command writes a new
one. Even under the right HMAC (a key stolen, or a defect), what a body can make is bounded: it is at
most `MAX_BODY` bytes, and msgspec decodes it against the derived types in one pass (store.schema):
msgpack names no class or function and holds no reference, so nothing in it runs, nothing is shared
or cyclic, the decoded tree has at most as many items as the body has bytes, and it nests no deeper
than the state's own types; every value is of its field's exact type, within the bounds of its
pydantic field, before anything reads it. What the types cannot tell (a state whose values
contradict each other) is met when the commands after it are folded on (service.caches), before any
command decides on it.

A snapshot of another format (the pickles of formats 1 and 2 included) has another version: it is
not used, never decoded, and the next command writes one in this format.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import hmac
import os
import re
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from fudge_combat.store.log import log

if TYPE_CHECKING:  # the schema (and the state's classes) are imported by a read or write of a snapshot alone
    from fudge_combat.engine.kernel.rewind import History
    from fudge_combat.engine.kernel.state import FightState

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("engine", "events", "projections")
_VERSION: list[str] = []
# The layout of a snapshot's body, part of its version: a snapshot of another format is ignored (the state
# is folded from the log), never misread. 2: the events of the actions are left in the log (keys only);
# 3: msgpack of the types store.schema derives (1 and 2 were pickles); 4: a ruleset's own fields (Fate's)
# are one tagged part of the state (`FightState.part`), no longer fields of their own.
FORMAT = "4"


def code_version() -> str:
    """Changes whenever code that could change a fold's result, or a body's layout, changes."""
    if not _VERSION:
        import msgspec

        _VERSION.append(source_digest(SOURCES, f"{FORMAT}|{sys.version}|{pydantic_version()}|{msgspec.__version__}"))
    return _VERSION[0]


@functools.cache
def pydantic_version() -> str:
    """pydantic's version file, as text (it names the version), read without importing pydantic: a fold of a
    ruleset of another package validates its events by pydantic's models, and the board's lines were once
    pydantic's, but a command of this project's never imports it."""
    import importlib.util

    spec = importlib.util.find_spec("pydantic")  # finds the package without running it
    return Path(spec.origin).with_name("version.py").read_text() if spec is not None and spec.origin else ""


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


class Snapshot(Struct, frozen=True):
    seq: int
    hash: str
    version: str
    body: bytes
    mac: str


# Bytes: several times the body of the longest fight the benchmarks build (bench/README.md, snapshots); a
# body is read whole, so this bounds a read's memory.
MAX_BODY = 8 << 20
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


def pack(found: tuple[FightState, History], fight_id: str, seq: int, last_hash: str, key: bytes) -> Snapshot:
    """A snapshot of (state, history) at this event of this fight, signed with `key`."""
    from fudge_combat.store import schema

    return signed(schema.encode(*found), fight_id, seq, last_hash, key)


def signed(body: bytes, fight_id: str, seq: int, last_hash: str, key: bytes) -> Snapshot:
    """A snapshot row holding `body`, signed with `key` for this fight and event and this code."""
    version = code_version()
    return Snapshot(seq, last_hash, version, body, _mac(key, fight_id, seq, last_hash, version, body))


def unpack(snapshot: Snapshot | None, fight_id: str, seq: int, last_hash: str, key: bytes,
           fight: str | None = None) -> tuple[FightState, History] | None:
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


def decode(body: bytes) -> tuple[FightState, History]:
    """The (state, history) a snapshot's body holds, of the state's types and within their bounds (see
    the module's docstring), or an exception saying why not (msgspec's names where the body differs)."""
    from fudge_combat.store import schema

    return schema.decode(body)
