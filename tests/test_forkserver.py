"""The warm `fudge` server of the tests (tests/forkserver.py) hides nothing: a child of it finds the process a new
interpreter would (tests/forkprobe.py, run both ways), ends as that interpreter ends, and runs `fudge` to the same
exit code, output and errors. tests/processes.py's docstring says why it is sound; these check it."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import processes
from tests.processes import ROOT, copied, fudge

HERE = ROOT / "tests"


def probe(*args: str, fresh: bool, input: str | None = "", timeout: float = 60,
          env: dict[str, str] | None = None, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m forkprobe ARGS` in a new interpreter or a child; `limit` as tests/processes.py `fudge` sets it."""
    environment = processes._environment()
    environment.update({"PROBE_GROUP": str(os.getpgrp()), "PROBE_SESSION": str(os.getsid(0)), **(env or {})})
    if fresh:
        return subprocess.run([sys.executable, "-m", "forkprobe", *args], capture_output=True, text=True,
                              input=input, env=environment, cwd=HERE, timeout=timeout,
                              preexec_fn=None if limit is None else lambda: processes._limit_memory(limit))
    early = {k: v for k, v in environment.items() if not k.startswith("PROBE_")}  # read by the probe alone
    server = processes._server()
    if not server.takes(early):  # an environment of its own: its own servers (tests/processes.py `fudge`)
        server = processes._server(early)
    assert server is not None and server.takes(early)
    return server.run("forkprobe", list(args), environment, HERE, input, timeout, limit)


def test_a_child_finds_what_a_new_interpreter_finds() -> None:
    """Arguments, path, folder, environment, the three streams (encoding, buffering, not a terminal), signals,
    open files, threads, limits: the same; the random module seeded anew in each child."""
    runs = {fresh: probe(input="some input\n", fresh=fresh) for fresh in (True, False)}
    facts = {}
    for fresh, done in runs.items():
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        text, tail = done.stdout.split("\n", 1)
        assert tail == "é\nline\nend\n"  # decoded and its newlines read as subprocess reads them
        facts[fresh] = json.loads(text)
    assert facts[False].pop("pid") != facts[True].pop("pid")
    assert facts[False].pop("random") != facts[True].pop("random")
    facts[False].pop("hash"), facts[True].pop("hash")
    assert facts[False] == facts[True]
    assert facts[True]["stdin"] == "some input\n" and facts[True]["threads"] == 1


def test_children_draw_their_own_random_numbers_and_successive_ones_hash_apart() -> None:
    """The random module is seeded anew in every child; a string's hash (set iteration order) is salted per
    interpreter, so successive commands go to servers of their own salt (tests/processes.py `SERVERS`)."""
    children = [json.loads(probe(fresh=False).stdout.split("\n", 1)[0]) for _ in range(2 * processes.SERVERS)]
    assert len({child["random"] for child in children}) == len(children)
    assert all(one["hash"] != other["hash"] for one, other in zip(children, children[1:]))


@pytest.mark.parametrize("how, code, error", [
    (["exit", "3"], 3, ""),
    (["message"], 1, "a message for stderr\n"),
    (["raise"], 1, "ValueError: an uncaught exception\n"),
    (["signal"], -15, ""),
    (["atexit"], 0, "atexit ran\n"),
    (["thread"], 0, ""),
])
def test_a_child_ends_as_a_new_interpreter_ends(how: list[str], code: int, error: str) -> None:
    """Exit codes, sys.exit's message, an uncaught exception's traceback, death by a signal, atexit, threads."""
    for fresh in (True, False):
        done = probe(*how, fresh=fresh)
        assert done.returncode == code, (fresh, done.stderr)
        assert done.stderr.endswith(error), (fresh, done.stderr)
        assert ("Traceback" in done.stderr) == (how == ["raise"])
        assert done.stdout.endswith("end\n" + ("thread done\n" if how == ["thread"] else ""))


def test_an_environment_the_imports_read_gets_warm_servers_of_its_own() -> None:
    """A command whose environment differs on what is read before the fork (FUDGE_PLAIN) runs in a new interpreter
    the first AFTER times, then in a child of a pair of servers started with that environment, taking commands in
    turn; the child finds what a new interpreter with that environment finds."""
    mark = {"FUDGE_PLAIN": "1", "FORKPROBE_MARK": f"{os.getpid()}-{id(object())}"}  # this test's environment alone
    environment = {**processes._environment(), **mark}
    assert not processes._server().takes(environment)
    found = [processes._server(environment) for _ in range(processes.AFTER + 2)]
    assert found[:processes.AFTER] == [None] * processes.AFTER
    assert all(server is not None and server.takes(environment) for server in found[processes.AFTER:])
    assert found[-1] is not found[-2]
    facts = {}
    for fresh in (True, False):
        done = probe(fresh=fresh, env=mark)
        assert done.returncode == 0 and done.stderr == "", (fresh, done.stderr)
        facts[fresh] = json.loads(done.stdout.split("\n", 1)[0])
    for key in ("pid", "random", "hash"):
        facts[True].pop(key), facts[False].pop(key)
    assert facts[False] == facts[True] and facts[True]["env"]["FUDGE_PLAIN"] == "1"


def test_a_memory_limit_holds_in_a_child_as_in_a_new_interpreter() -> None:
    """`fudge(..., limit=...)` (tests/test_cache_fuzz.py): the child has the limit a new interpreter has, and an
    allocation past it fails there as it does in a new interpreter, while one well under it succeeds."""
    limit = 1 << 30
    for fresh in (True, False):
        facts = json.loads(probe(fresh=fresh, limit=limit).stdout.split("\n", 1)[0])
        assert facts["limits"][1] == [limit, limit], fresh
        over = probe("allocate", str(limit), fresh=fresh, limit=limit)
        assert (over.returncode, over.stderr) == (1, "MemoryError\n"), (fresh, over.stderr)
        under = probe("allocate", str(limit // 4), fresh=fresh, limit=limit)
        assert under.returncode == 0 and under.stdout.endswith("allocated\n"), (fresh, under.stderr)


def test_a_timeout_kills_the_child() -> None:
    """As subprocess.run: the child killed, TimeoutExpired with what it had printed."""
    for fresh in (True, False):
        with pytest.raises(subprocess.TimeoutExpired) as caught:
            probe("sleep", fresh=fresh, timeout=1.5)
        assert b"end" in (caught.value.output or b""), fresh


def test_what_the_imports_read_must_agree(tmp_path: Path) -> None:
    """A command goes to the server only when its environment agrees with the server's on everything but what
    `fudge` reads as it runs; FUDGE_PLAIN, read at import, sends it to a new interpreter."""
    server = processes._server()
    assert "FUDGE_PLAIN" in server.read  # projections/speed.py reads it at import
    base = processes._environment()
    assert server.takes({**base, "FUDGE_KEY_FILE": str(tmp_path / "k"), "FUDGE_STORE": "x", "COLUMNS": "200"})
    for setting in ({"FUDGE_PLAIN": "1"}, {"PYTHONHASHSEED": "0"}, {"LANG": "C"}, {"PYDANTIC_DISABLE_PLUGINS": ""},
                    {"HOME": str(tmp_path)}):
        assert not server.takes({**base, **setting}), setting
    assert not server.takes({k: v for k, v in base.items() if k != "PATH"})


COMMANDS = [
    ("--help",), ("new", "--help"), ("status",), ("log",), ("nope",), ("exchange", "Snorri"), ("--version",),
    ("exchange", "Snorri", "Brynhild", "--dice", "snorri=+ + 0 -", "--dice", "brynhild=- - 0 0"),
    ("status", "--long"), ("undo",), ("verify",), ("rules", "show", "fudge"), ("join", "missing.toml"),
]


def test_fudge_in_a_child_as_in_a_new_interpreter(the_duel: Path, tmp_path: Path) -> None:
    """The same commands, on copies of one store, in new interpreters and in children: the same exit codes,
    output and errors, command by command."""
    outcomes = {}
    for fresh in (True, False):
        store = copied(the_duel, tmp_path / str(fresh))
        outcomes[fresh] = [(done.returncode, re.sub(r"\b[0-9a-f]{8,}\b", "ID", done.stdout), done.stderr)
                           for done in (fudge(*args, store=store, fresh=fresh) for args in COMMANDS)]
    for args, new, child in zip(COMMANDS, outcomes[True], outcomes[False]):
        assert new == child, args
    assert {code for code, _, _ in outcomes[True]} >= {0, 1, 2}  # errors as well as successes were compared
