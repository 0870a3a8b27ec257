"""`fudge sim --jobs`'s worker processes die with the command, however it ends.

The command is run as a GM runs it (its own process, a real store), killed in
the middle of a long run, and the processes left are counted from /proc: every
process that carries the run's marker in its environment (inherited by the
forked workers, whoever their parent is afterwards) and is not a zombie.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.processes import ROOT

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="counts processes in /proc")

SHEETS = ROOT / "examples" / "sheets"


def marked(mark: str) -> set[int]:
    """The live processes whose environment holds `mark` (zombies have none: they are not running)."""
    found: set[int] = set()
    needle = f"SIM_RUN_MARK={mark}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environment = Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # gone meanwhile, or another user's
            continue
        if needle in environment.split(b"\0") and state not in ("Z", "X"):
            found.add(int(entry))
    return found


def start(tmp_path: Path, *args: str, group: bool = False) -> tuple[subprocess.Popen[str], str]:
    mark = uuid.uuid4().hex
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update({"PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(tmp_path / "snapshot.key"),
                        "XDG_STATE_HOME": str(tmp_path / "state"), "NO_COLOR": "1", "SIM_RUN_MARK": mark})
    process = subprocess.Popen(
        [sys.executable, "-m", "fudge_combat.cli.main", "--store", str(tmp_path / "fights.db"), "sim",
         str(SHEETS / "snorri.toml"), str(SHEETS / "brynhild.toml"), "--seed", "1", "--json", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, cwd=tmp_path,
        start_new_session=group)
    return process, mark


def wait_for(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return bool(condition())  # type: ignore[operator]


@pytest.mark.parametrize("signum, whole_group", [
    (signal.SIGTERM, False),
    (signal.SIGKILL, False),
    (signal.SIGINT, False),   # Ctrl-C sent to the command alone
    (signal.SIGINT, True),    # Ctrl-C at a terminal: the whole foreground group
    (signal.SIGTERM, True),   # a supervisor stopping the group
], ids=["term", "kill", "int", "int-group", "term-group"])
def test_no_worker_outlives_the_command(tmp_path: Path, signum: int, whole_group: bool) -> None:
    """`--jobs 4` is this process and three workers; killed mid-run by SIGTERM, SIGKILL or Ctrl-C, no
    worker is left running a second later. Stopped by a signal it can catch, the command says so in one
    line and exits as interrupted (130), never as a defect (70)."""
    process, mark = start(tmp_path, "-n", "100000000", "--jobs", "4", group=whole_group)
    try:
        assert wait_for(lambda: len(marked(mark)) == 4, 30), f"the run did not start its workers: {marked(mark)}"
        time.sleep(0.3)  # the workers busy with their ranges
        if whole_group:
            os.killpg(process.pid, signum)
        else:
            os.kill(process.pid, signum)
        process.wait(timeout=15)
        assert wait_for(lambda: not marked(mark), 1.5), f"workers still running: {marked(mark)}"
    finally:
        if process.poll() is None:
            process.kill()
        for pid in marked(mark):  # whatever the test left, so a failure does not leave it running
            os.kill(pid, signal.SIGKILL)
        process.wait()
    stderr = process.stderr.read() if process.stderr else ""
    if signum == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
        return
    assert process.returncode == 130, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, stderr
    assert "no statistics" in stderr
    if not whole_group:  # alone, the command is the one that stopped the run (a group kill may end a worker first)
        said = "stopped by SIGTERM after" if signum == signal.SIGTERM else "interrupted after"
        assert said in stderr, stderr


def test_a_worker_whose_parent_is_already_gone_ends_itself() -> None:
    """The race the kernel's death signal leaves: a worker set up after its parent died (its parent pid is
    no longer the one that forked it) ends at once instead of waiting on a queue nobody writes to."""
    from fudge_combat.sim.parallel import _worker_starts

    child = os.fork()
    if child == 0:  # the worker: told its parent was another process, as after a reparenting
        try:
            _worker_starts(os.getppid() + 1 if os.getppid() != 1 else 2)
        finally:
            os._exit(0)  # reached only if the worker did not end itself
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_asks_the_kernel_to_die_with_its_parent() -> None:
    """On Linux a worker's death signal is SIGKILL (read back with PR_GET_PDEATHSIG)."""
    import ctypes

    from fudge_combat.sim.parallel import _worker_starts

    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(read)
            _worker_starts(os.getppid())
            libc = ctypes.CDLL(None, use_errno=True)
            value = ctypes.c_int(0)
            libc.prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
            os.write(write, str(value.value).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        told = answer.read()
    os.waitpid(child, 0)
    assert told == str(int(signal.SIGKILL))


WATCHED = '''
import multiprocessing, os, sys, time
from fudge_combat.sim.parallel import _watch_parent

def worker():
    _watch_parent()
    print(os.getpid(), flush=True)  # watching from now on
    time.sleep(60)

if __name__ == "__main__":
    multiprocessing.get_context(sys.argv[1]).Process(target=worker).start()
    time.sleep(60)
'''


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_where_the_kernel_cannot_a_worker_watches_its_parent(tmp_path: Path, method: str) -> None:
    """The fallback where PR_SET_PDEATHSIG is missing (macOS, Windows: spawned workers): a thread waits on
    the parent's sentinel and ends the worker when the parent is killed outright."""
    script = tmp_path / "watched.py"
    script.write_text(WATCHED)
    parent = subprocess.Popen([sys.executable, str(script), method], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    worker = 0

    def running() -> bool:
        try:
            state = Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        return state not in ("Z", "X")

    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())  # its watch started
        parent.kill()
        parent.wait(timeout=10)
        assert wait_for(lambda: not running(), 1.5), "the worker outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.wait()
        if worker and running():  # a failure leaves nothing running
            os.kill(worker, signal.SIGKILL)


def test_a_worker_killed_from_outside_ends_the_run_in_one_line(tmp_path: Path) -> None:
    """A worker killed mid-run (the out-of-memory killer, say): the command ends the others, says so in one
    line (not a defect: exit 1, not 70) and leaves nothing running."""
    process, mark = start(tmp_path, "-n", "100000000", "--jobs", "3")
    try:
        assert wait_for(lambda: len(marked(mark)) == 3, 30), f"the run did not start its workers: {marked(mark)}"
        time.sleep(0.3)
        os.kill(min(marked(mark) - {process.pid}), signal.SIGKILL)
        process.wait(timeout=15)
        assert wait_for(lambda: not marked(mark), 1.5), f"workers still running: {marked(mark)}"
    finally:
        if process.poll() is None:
            process.kill()
        for pid in marked(mark):
            os.kill(pid, signal.SIGKILL)
        process.wait()
    stderr = process.stderr.read() if process.stderr else ""
    assert process.returncode == 1, stderr
    assert len(stderr.strip().splitlines()) == 1 and "a worker process ended in the middle of the run" in stderr
