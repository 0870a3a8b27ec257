"""Run `fudge` the way a GM does: each command its own process, on a real store file, with the
user's snapshot key present (so every read after the first goes through a snapshot).

The process runs on this interpreter, so it imports the `fudge_combat` the tests import: this folder's
code (the tests package stops at once when the installed one is not)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fudge(*args: str, store: Path | str, key: Path | None = None, input: str | None = None,
          env: dict[str, str] | None = None, cwd: Path | None = None,
          timeout: float = 120, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """`fudge --store STORE ARGS...` as a separate process; `key` is the snapshot key file (default:
    `key.bin` beside the store, made by the first command that writes). A store may be a `postgresql://` URL:
    then `cwd` is the GM's folder (their key, secrets and state). `limit`: the bytes of address space the
    process may map (RLIMIT_AS), for a test that what it reads cannot make it allocate without bound."""
    if isinstance(store, str):
        assert cwd is not None, "a store on a server: give the GM's folder as cwd"
    folder = store.parent if isinstance(store, Path) else cwd
    assert folder is not None
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update({
        "FUDGE_KEY_FILE": str(key if key is not None else folder / "snapshot.key"),
        "XDG_STATE_HOME": str(folder / "state"),
        "NO_COLOR": "1",
        "COLUMNS": "100",
    })
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), *args],
                          capture_output=True, text=True, input=input, env=environment,
                          cwd=cwd or folder, timeout=timeout,
                          preexec_fn=None if limit is None else lambda: _limit_memory(limit))


def _limit_memory(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def copied(store: Path, folder: Path) -> Path:
    """A copy of the folder a store was played in (the store, its snapshot key, the GM's secrets and state), made
    in `folder`: a store of its own, as if the same commands had been played there. A fight that many tests
    begin from is played once, by `fudge` processes, and each test runs its own commands on its own copy."""
    shutil.copytree(store.parent, folder, dirs_exist_ok=True)
    return folder / store.name
