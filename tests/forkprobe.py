"""What a process started as `python -m forkprobe` finds about itself, as JSON on stdout: tests/test_forkserver.py
runs it in a new interpreter and as a child of the fork server, and compares. Its arguments then say how to end."""

import gc
import json
import os
import random
import resource
import signal
import sys
import threading
import time


def stream(name: str) -> dict[str, object]:
    found = getattr(sys, name)
    return {"encoding": found.encoding, "errors": found.errors, "line_buffering": found.line_buffering,
            "write_through": found.write_through, "isatty": found.isatty(), "fileno": found.fileno(),
            "name": found.name, "mode": getattr(found, "mode", None), "newlines": found.newlines,
            "same": found is getattr(sys, f"__{name}__"), "buffered": type(found.buffer).__name__}


def facts() -> dict[str, object]:
    descriptors = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            descriptors[name] = os.readlink(f"/proc/self/fd/{name}").split(":")[0]
        except FileNotFoundError:  # listdir's own
            pass
    main = sys.modules["__main__"]
    return {
        "argv": sys.argv, "orig_argv": sys.orig_argv, "path": sys.path, "cwd": os.getcwd(), "env": dict(os.environ),
        "executable": sys.executable, "flags": list(sys.flags),
        "main": [main.__name__, main.__spec__.name, main.__file__, main.__package__, sorted(vars(main)),
                 type(vars(main)["__builtins__"]).__name__],
        "streams": {name: stream(name) for name in ("stdin", "stdout", "stderr")},
        "stdin": sys.stdin.read(),
        "signals": {str(number): str(signal.getsignal(number)) for number in
                    (signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP)},
        "blocked": sorted(int(number) for number in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "descriptors": descriptors, "threads": threading.active_count(), "gc": gc.isenabled(),
        "limits": [resource.getrlimit(getattr(resource, limit)) for limit in ("RLIMIT_NOFILE", "RLIMIT_AS")],
        "umask": os.umask(0o22), "group": os.getpgrp() == int(os.environ["PROBE_GROUP"]),
        "session": os.getsid(0) == int(os.environ["PROBE_SESSION"]),
        "random": random.random(), "pid": os.getpid(), "hash": hash("a string's hash, salted per interpreter"),
    }


if __name__ == "__main__":
    print(json.dumps(facts()))
    print("é\r\nline\rend")  # text the tests' decoding must turn into é, newlines and end as subprocess does
    how = sys.argv[1] if len(sys.argv) > 1 else ""
    if how == "exit":
        sys.exit(int(sys.argv[2]))
    if how == "message":
        sys.exit("a message for stderr")
    if how == "raise":
        raise ValueError("an uncaught exception")
    if how == "signal":
        os.kill(os.getpid(), signal.SIGTERM)
    if how == "sleep":
        time.sleep(60)
    if how == "atexit":
        import atexit

        atexit.register(lambda: print("atexit ran", file=sys.stderr))
    if how == "allocate":  # bytes it then asks for at once: under a memory limit, more than the limit fails
        try:
            block = bytearray(int(sys.argv[2]))
        except MemoryError:
            sys.exit("MemoryError")
        print("allocated")
    if how == "thread":  # the interpreter waits for a thread that is not a daemon before it ends
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread done"))).start()
