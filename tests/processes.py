"""Run `fudge` the way a GM does: each command its own process, on a real store file, with the
user's snapshot key present (so every read after the first goes through a snapshot).

The process runs on this interpreter, so it imports the `fudge_combat` the tests import: this folder's
code (the tests package stops at once when the installed one is not).

Most of what such a process costs is the interpreter's start-up and the imports (about 200 ms against the
command's 30), and the suite starts thousands of them. So each test process keeps one warm `fudge` server
(tests/forkserver.py): an interpreter that started as `python -m fudge_combat.cli.main` starts and imported the
command modules as `fudge` does, and forks a child for each command. The child is still a process of its own,
with its own memory, on the real store; it takes the command's arguments, its whole environment, its folder
and pipes for stdin, stdout and stderr (real file descriptors, as `subprocess` gives), runs the module as
`python -m` runs it, and exits with the code, the output and the traceback that interpreter would give. What it
does not repeat is the start-up. This is sound because what the start-up leaves behind is the same in each
child or is checked before a command is sent:

- an environment variable read before the fork (by the imports, the interpreter's start-up or a C library:
  FUDGE_PLAIN, PYTHON*, LANG, LC_*, TZ, ...) was read from the server's environment. A command goes to the
  server only when its environment agrees with the server's on every variable but those `fudge` reads as it
  runs (`LATE`: its store, key, state and secrets files, colour and width), and on none of those may the
  imports have read one (the server reports each variable read meanwhile); otherwise it runs fresh, or, when
  `AFTER` commands with that environment have run fresh (a test file's FUDGE_PLAIN or PYTHONPATH), in a pair of
  servers started with that environment, which the same rule then holds for;
- no thread runs and no file is open in the server but its standard streams and its socket when it forks
  (checked: no sqlite connection, no cache file held); the child has only its three streams;
- what the server builds besides its imports (tests/forkserver.py `prebuild`: the snapshot's schema, the code
  versions) depends on the code alone, and every process builds the same;
- the random module is seeded again in each child (Python does it at fork); the command's keys and seeds come
  from os.urandom and `secrets`, fresh in each process;
- what does stay shared is the string hash seed (a fresh interpreter draws its own): set iteration order is
  the same in the children of one server. Two servers (`SERVERS`) with seeds of their own take commands in
  turn, so two successive commands of a test never share one;
- what differs is what a test of the start-up itself would see: a child has every command's module imported
  (a new `fudge` only its command's), its parent is the server, and its start-up takes no time. Such a test
  (what is imported, how long it takes, the pydantic plugins) passes `fresh=True`. A memory limit (`limit`) is
  set in the child before the command runs, as on a new interpreter before it starts: the child's address space
  already holds every command's imports (more than a new `fudge` has mapped by then), so the command has no more
  room under the limit than it would have in a new interpreter. FUDGE_TESTS_FRESH=1 runs the whole
  suite fresh, to check that the server hides nothing.
"""

from __future__ import annotations

import itertools
import json
import locale
import os
import selectors
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The variables `fudge` reads as a command runs, not as it starts: these may differ from the server's
# (unless its imports read one, which the server reports). FUDGE_PLAIN, read at import, is not among them.
LATE = ("FUDGE_KEY_FILE", "FUDGE_SECRETS_FILE", "FUDGE_STORE", "FUDGE_GM", "FUDGE_SEAL_WAIT", "FUDGE_TRACEBACK",
        "XDG_STATE_HOME", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "PYTEST_CURRENT_TEST",  # pytest's, for each test
        "_FUDGE_COMPLETE", "COMP_WORDS", "COMP_CWORD")  # the shell asking for completions (cli.main `main`)
FRESH = os.environ.get("FUDGE_TESTS_FRESH", "") not in ("", "0")
SERVERS = 2
OTHERS = 2  # environments besides this process's with warm servers of their own (the latest used kept)
AFTER = 2  # commands of such an environment run in new interpreters before its servers start
MODULE = "fudge_combat.cli.main"


def fudge(*args: str, store: Path | str, key: Path | None = None, input: str | None = None,
          env: dict[str, str] | None = None, cwd: Path | None = None,
          timeout: float = 120, limit: int | None = None, fresh: bool = False) -> subprocess.CompletedProcess[str]:
    """`fudge --store STORE ARGS...` as a separate process; `key` is the snapshot key file (default:
    `key.bin` beside the store, made by the first command that writes). A store may be a `postgresql://` URL:
    then `cwd` is the GM's folder (their key, secrets and state). `limit`: the bytes of address space the
    process may map (RLIMIT_AS), for a test that what it reads cannot make it allocate without bound.
    `fresh`: a new interpreter, not a child of the warm server (the module's docstring)."""
    if isinstance(store, str):
        assert cwd is not None, "a store on a server: give the GM's folder as cwd"
    folder = store.parent if isinstance(store, Path) else cwd
    assert folder is not None
    environment = _environment()
    environment.update({
        "FUDGE_KEY_FILE": str(key if key is not None else folder / "snapshot.key"),
        "XDG_STATE_HOME": str(folder / "state"),
    })
    environment.update(env or {})
    argv = ["--store", str(store), *args]
    if not (fresh or FRESH) and Path(cwd or folder).is_dir():  # else subprocess says so
        server = _server()
        if not server.takes(environment):  # an environment of its own before the fork: servers of its own, if any
            server = _server(environment)
        if server is not None and server.takes(environment):
            return server.run(MODULE, argv, environment, cwd or folder, input, timeout, limit)
    return subprocess.run([sys.executable, "-m", MODULE, *argv],
                          capture_output=True, text=True, input=input, env=environment,
                          cwd=cwd or folder, timeout=timeout,
                          preexec_fn=None if limit is None else lambda: _limit_memory(limit))


def _environment() -> dict[str, str]:
    """This process's environment as every `fudge` process gets it: no FUDGE_ setting of the tests' own."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update({"NO_COLOR": "1", "COLUMNS": "100"})
    return environment


def _limit_memory(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class Server:
    """One warm interpreter (tests/forkserver.py) and the socket its commands are sent on."""

    def __init__(self, environment: dict[str, str] | None = None) -> None:
        self.environment = _environment() if environment is None else environment
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "forkserver.py"), str(theirs.fileno())],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        env=self.environment, cwd=ROOT, pass_fds=(theirs.fileno(),))
        theirs.close()
        self.control = ours
        self.lock = threading.Lock()
        read = ours.recv(1 << 20)
        if not read:
            raise RuntimeError(f"the fork server did not start (exit {self.process.wait()}): see its stderr")
        self.read = set(json.loads(read))

    def takes(self, environment: dict[str, str]) -> bool:
        """Whether a command with this environment runs in a child as it would in a new interpreter."""
        if "*" in self.read:  # the imports read the whole environment: only the same one
            return environment == self.environment
        differ = {k for k in environment.keys() | self.environment.keys()
                  if environment.get(k) != self.environment.get(k)}
        return not differ - (set(LATE) - self.read)

    def run(self, module: str, argv: list[str], environment: dict[str, str], cwd: Path, input: str | None,
            timeout: float, limit: int | None = None) -> subprocess.CompletedProcess[str]:
        """`python -m MODULE ARGV...` as a child of the server, as `subprocess.run(..., capture_output=True,
        text=True, input=input, timeout=timeout)` runs it: its exit code (minus a signal's number when one
        killed it), its output decoded as `subprocess` decodes it, TimeoutExpired after killing it. `limit`: the
        bytes of address space the child may map (RLIMIT_AS), set before the module runs."""
        command = [sys.executable, "-m", module, *argv]
        pipes = [os.pipe() for _ in range(3 if input is not None else 2)]
        out, err = pipes[0], pipes[1]
        stdin = pipes[2][0] if input is not None else 0  # no input: the child reads this process's stdin
        ours, theirs = socket.socketpair()
        message = json.dumps({"module": module, "argv": argv, "env": environment, "cwd": str(cwd),
                              "limit": limit}).encode()
        with self.lock:
            socket.send_fds(self.control, [message], [theirs.fileno(), stdin, out[1], err[1]])
        theirs.close()
        os.close(out[1])
        os.close(err[1])
        sending = b""
        if input is not None:
            os.close(pipes[2][0])
            sending = input.encode(locale.getpreferredencoding(False))
        deadline = time.monotonic() + timeout
        chunks: dict[int, list[bytes]] = {out[0]: [], err[0]: []}
        reply = b""
        selector = selectors.DefaultSelector()
        try:
            for fd in chunks:
                selector.register(fd, selectors.EVENT_READ)
            selector.register(ours, selectors.EVENT_READ)
            if input is not None:
                if sending:
                    os.set_blocking(pipes[2][1], False)
                    selector.register(pipes[2][1], selectors.EVENT_WRITE)
                else:
                    os.close(pipes[2][1])
            while selector.get_map():  # until the exit code has come and both pipes are closed, as communicate()
                left = deadline - time.monotonic()
                if left <= 0:
                    ours.sendall(b"kill")
                    ours.settimeout(30)
                    while reply.count(b"\n") < 2 and (piece := ours.recv(64)):
                        reply += piece
                    raise subprocess.TimeoutExpired(command, timeout, b"".join(chunks[out[0]]) or None,
                                                    b"".join(chunks[err[0]]) or None)
                for key, _ in selector.select(left):
                    if key.fileobj is ours:
                        piece = ours.recv(64)
                        if not piece:
                            raise RuntimeError(f"the fork server went away (exit {self.process.poll()}): "
                                               "see its stderr")
                        reply += piece
                        if reply.count(b"\n") >= 2:
                            selector.unregister(ours)
                    elif key.events & selectors.EVENT_WRITE:
                        try:
                            sending = sending[os.write(key.fd, sending[:65536]):]
                        except BrokenPipeError:  # the child stopped reading: as subprocess, not an error
                            sending = b""
                        if not sending:
                            selector.unregister(key.fd)
                            os.close(key.fd)
                    else:
                        piece = os.read(key.fd, 65536)
                        if piece:
                            chunks[key.fd].append(piece)
                        else:
                            selector.unregister(key.fd)
        finally:
            for key in list(selector.get_map().values()):
                selector.unregister(key.fileobj)
                if isinstance(key.fileobj, int):
                    os.close(key.fileobj)
            selector.close()
            ours.close()
            for fd in (out[0], err[0]):
                try:
                    os.close(fd)
                except OSError:
                    pass
        code = int(reply.split(b"\n")[1])
        encoding = locale.getpreferredencoding(False)
        out_text, err_text = (_text(b"".join(chunks[fd]), encoding) for fd in (out[0], err[0]))
        return subprocess.CompletedProcess(command, code, out_text, err_text)

    def close(self) -> None:
        self.control.close()  # the server ends when its socket does
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _text(data: bytes, encoding: str) -> str:
    """As `subprocess` decodes a text-mode pipe's output (universal newlines)."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


_servers: list[Server] = []
_others: dict[tuple[tuple[str, str], ...], list[Server]] = {}  # by what of the environment `fudge` reads first
_seen: dict[tuple[tuple[str, str], ...], int] = {}
_turn = itertools.count()
_started = threading.Lock()


def _server(environment: dict[str, str] | None = None) -> Server | None:
    """This process's warm servers (started with the first command), taking commands in turn. Given a command's
    `environment` that differs from this process's on what `fudge` reads before the fork (FUDGE_PLAIN, PYTHONPATH:
    the same for many commands of a test file), servers started with that environment instead, from its
    AFTER + 1st command on (None before: a new interpreter costs less than two servers for a command or two)."""
    with _started:
        if _owner[0] != os.getpid():  # the first command, or a fork of this process: the servers are its parent's
            import atexit

            _servers.clear()
            _others.clear()
            _seen.clear()
            _owner[0] = os.getpid()
            atexit.register(close)
        if environment is None:
            if not _servers:
                _servers.extend(Server() for _ in range(SERVERS))
            pair = _servers
        else:
            early = tuple(sorted((k, v) for k, v in environment.items() if k not in LATE))
            _seen[early] = _seen.get(early, 0) + 1
            if early not in _others and _seen[early] <= AFTER:
                return None
            pair = _others.pop(early, None) or [Server(environment) for _ in range(SERVERS)]
            _others[early] = pair  # the latest used last
            while len(_others) > OTHERS:
                for server in _others.pop(next(iter(_others))):
                    server.close()
        return pair[next(_turn) % len(pair)]


_owner = [0]


def close() -> None:
    """End this process's servers and wait for them (tests/conftest.py, as the session ends: a pytest-xdist
    worker may leave without running atexit, and their time is then counted as the suite's)."""
    with _started:
        if _owner[0] == os.getpid():
            for server in [*_servers, *(server for pair in _others.values() for server in pair)]:
                server.close()
        _servers.clear()
        _others.clear()


def copied(store: Path, folder: Path) -> Path:
    """A copy of the folder a store was played in (the store, its snapshot key, the GM's secrets and state), made
    in `folder`: a store of its own, as if the same commands had been played there. A fight that many tests
    begin from is played once, by `fudge` processes, and each test runs its own commands on its own copy."""
    shutil.copytree(store.parent, folder, dirs_exist_ok=True)
    return folder / store.name
