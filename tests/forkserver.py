"""A warm start for the tests' `fudge` processes (tests/processes.py says when it is used, and why it is sound).

Run as a script by tests/processes.py, two per test process (a pytest-xdist worker), with one end of a socket pair
as the file descriptor its argument names. It starts as `python -m fudge_combat.cli.main` starts: the interpreter,
then the command modules imported the way `fudge` imports them (`cli.main.start_up`: plugins of pydantic off, the
collector paused, what the imports made frozen), then what depends on the code alone built (`prebuild`). Then, for
each command it is sent (the arguments, the whole environment, the folder, a memory limit if any, and the process's
stdin, stdout and stderr as file descriptors), it forks a child that takes those, runs `fudge_combat.cli.main` as
`python -m` does (`runpy._run_module_as_main`, the same function), and ends as that interpreter ends: its exit code,
an uncaught exception's traceback, its atexit handlers and flushes are the interpreter's own. The server reports the
child's pid when it starts and its exit code when it ends, and kills it when the test's timeout passes.

What a child does not do again is the interpreter's start-up, the imports and those builds; what they leave in
the process is checked before the first fork: no thread, no open file but the three standard streams and the socket, and
every environment variable the imports read recorded (the tests send a command here only when its
environment agrees with this one on each of them, and on everything the interpreter reads as it starts).
"""

from __future__ import annotations

import builtins
import gc
import importlib
import json
import os
import resource
import selectors
import signal
import socket
import sys
import threading
import types

CONTROL = int(sys.argv[1])  # the socket pair's end tests/processes.py passes
del sys.path[0]  # this script's folder: modules are found as `python -m` finds them, from the child's folder


# Libraries nearly every command imports as it runs, after the start-up: imported here too (about 10 ms of a
# child's 60). Their import only defines things (the environment any of them reads is recorded as the rest's,
# and no file stays open: `check_quiet`); the project's own modules a command imports as it runs (the store's,
# a ruleset's, the board's) it imports in the child, as in `fudge`: importing them here gained nothing measurable.
LIBRARIES = ("msgspec", "msgspec.json", "msgspec.msgpack", "tomllib", "typer._adapters", "typer._click.decorators")


class _Reads(type(os.environ)):  # type: ignore[misc]  # os._Environ, whose class is not public
    """os.environ, noting each variable read (all of them, when it is copied or walked)."""

    read: set[str] = set()

    def __getitem__(self, key: str) -> str:
        _Reads.read.add(key)
        return super().__getitem__(key)

    def __iter__(self):  # type: ignore[no-untyped-def]
        _Reads.read.add("*")
        return super().__iter__()


def prepare() -> set[str]:
    """Import what `fudge` imports, as it does; the environment variables read meanwhile."""
    environ_class = type(os.environ)
    os.environ.__class__ = _Reads
    try:
        from fudge_combat.cli import main

        main.start_up(sorted(set(main.COMMANDS.values())), one_shot=True)
        for name in LIBRARIES:
            importlib.import_module(name)
        prebuild()
        gc.freeze()  # as start_up does with what its imports made
        # `python -m` runs the module as __main__ alone: imported under its own name, it would be another module
        del sys.modules[main.__name__], sys.modules["fudge_combat.cli"].main
    finally:
        os.environ.__class__ = environ_class
    return set(_Reads.read)


def opened() -> dict[int, str]:
    """This process's open file descriptors, and what each is."""
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except FileNotFoundError:  # listdir's own, closed by now
            pass
    return found


def prebuild() -> None:
    """What every command that reads a store builds once a process, built here: about half of what a child
    did besides its command. Each depends on nothing a command changes: the snapshot's and the board view's code
    versions are digests of the project's sources and of the libraries' versions, and the snapshot's msgpack
    schema is derived from the state's types alone (a snapshot one process writes, every other reads)."""
    from fudge_combat.store import schema, snapshots, views

    snapshots.code_version()
    views.board_version()
    schema._schema()


def check_quiet() -> None:
    """Nothing a fork would copy wrongly: one thread, and no open file but stdin, stdout, stderr and the socket."""
    assert threading.active_count() == 1, f"threads before the fork: {threading.enumerate()}"
    extra = {fd: what for fd, what in opened().items() if fd not in (0, 1, 2, CONTROL)}
    assert not extra, f"files open before the fork: {extra}"


def serve(control: socket.socket) -> dict[str, object]:
    """Fork a child for each command until the tests close their end; return only in a child, with its command."""
    children: dict[int, tuple[int, socket.socket]] = {}  # pidfd: (pid, the test's reply socket)
    with selectors.DefaultSelector() as selector:
        selector.register(control, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fileobj is control:
                    message, fds, _, _ = socket.recv_fds(control, 1 << 20, 4)
                    if not message:  # the tests are done (or gone): stop what still runs, and end
                        for pid, _ in children.values():
                            os.kill(pid, signal.SIGKILL)
                        raise SystemExit(0)
                    reply, *stdio = fds
                    pid = os.fork()
                    if pid == 0:
                        for fd, (_, other) in children.items():
                            other.close()
                            os.close(fd)
                        selector.close()
                        control.close()
                        os.close(reply)
                        for target, fd in enumerate(stdio):
                            os.dup2(fd, target)
                            os.close(fd)
                        return dict(json.loads(message))
                    for fd in stdio:
                        os.close(fd)
                    test = socket.socket(fileno=reply)
                    test.sendall(b"%d\n" % pid)
                    pidfd = os.pidfd_open(pid)
                    children[pidfd] = (pid, test)
                    selector.register(pidfd, selectors.EVENT_READ)
                    selector.register(test, selectors.EVENT_READ, pidfd)
                elif isinstance(key.fileobj, socket.socket):  # the test's timeout passed (or it went away): kill
                    key.fileobj.recv(16)
                    selector.unregister(key.fileobj)
                    signal.pidfd_send_signal(key.data, signal.SIGKILL)
                else:  # a child ended
                    pidfd = key.fd
                    pid, test = children.pop(pidfd)
                    selector.unregister(pidfd)
                    if test in (found.fileobj for found in selector.get_map().values()):
                        selector.unregister(test)
                    os.close(pidfd)
                    _, status = os.waitpid(pid, 0)
                    try:
                        test.sendall(b"%d\n" % os.waitstatus_to_exitcode(status))
                    except OSError:  # the test went away
                        pass
                    test.close()


def become(command: dict[str, object]) -> None:
    """The child takes the command's environment (whole), folder and arguments, as `python -m` would have them."""
    left = opened()
    if sorted(left) != [0, 1, 2]:  # the three streams, nothing of the server's
        os.write(2, f"fork server: files left open in the child: {left}\n".encode())
        os._exit(99)
    os.environ.clear()
    os.environ.update(command["env"])  # type: ignore[arg-type]
    os.chdir(str(command["cwd"]))
    limit = command.get("limit")
    if isinstance(limit, int):  # a memory limit: set here as tests/processes.py sets it before a new interpreter's exec
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.path.insert(0, os.getcwd())  # `python -m`: the folder it was started in, first
    sys.argv = ["-m", *command["argv"]]  # type: ignore[misc]  # runpy puts the module's file in argv[0]
    sys.orig_argv = [sys.executable, "-m", str(command["module"]), *command["argv"]]  # type: ignore[misc]
    main = sys.modules["__main__"] = types.ModuleType("__main__")  # a fresh one, as the interpreter makes it
    main.__annotations__, main.__builtins__ = {}, builtins  # type: ignore[attr-defined]
    if command["module"] == "fudge_combat.cli.main":  # what its `start_up` sets as it imports a command's module,
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # which this process did before the fork


if __name__ == "__main__":
    _read = prepare()
    check_quiet()
    _control = socket.socket(fileno=CONTROL)
    _control.sendall(json.dumps(sorted(_read)).encode())  # what the imports read: the tests compare it
    import runpy

    _command = serve(_control)
    become(_command)

    runpy._run_module_as_main(str(_command.pop("module")))  # type: ignore[attr-defined]  # what `python -m` calls
