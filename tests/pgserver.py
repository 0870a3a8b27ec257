"""A throwaway PostgreSQL server for the tests: initdb into a temporary folder, `pg_ctl start` on a unix
socket in that folder (no TCP port), stopped and removed at the end of the session even when a test fails.

initdb and postgres refuse to run as root: as root (CI), the folder is given to the `postgres` user (or
`nobody`) and the server binaries run as that user through `runuser`.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


def binaries() -> Path | None:
    """The newest PostgreSQL server's bin folder ($FUDGE_PG_BIN, else /usr/lib/postgresql/*/bin), or None."""
    given = os.environ.get("FUDGE_PG_BIN")
    found = [given] if given else sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    for folder in reversed(found):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path and shutil.which("pg_ctl") else None


def _server_user() -> str | None:
    """Who runs the server: None for the current user, else a non-root user (the server refuses root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root and neither `postgres` nor `nobody` exists to run the server")


class Server:
    """One server; `database()` gives each test a fresh, empty database's URL."""

    def __init__(self, bin_dir: Path, durable: bool = False) -> None:
        self.bin = bin_dir
        self.durable = durable  # fsync on (a benchmark); off for the tests, whose server is thrown away
        self.user = _server_user()
        self.folder = Path(tempfile.mkdtemp(prefix="fudge-pg-"))  # short: a socket path has ~100 bytes
        self.data = self.folder / "data"
        self._count = itertools.count(1)
        self.started = False
        if self.user is not None:
            info = pwd.getpwnam(self.user)
            os.chown(self.folder, info.pw_uid, info.pw_gid)

    def _as_server(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [*(["runuser", "-u", self.user, "--"] if self.user else []), *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stderr or done.stdout}")
        return done

    def start(self) -> None:
        self._as_server(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "fudge",
                        "--no-sync", "-E", "UTF8", "--locale", "C")
        self.started = True
        self._start()

    def _start(self) -> None:
        self._as_server(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w",
                        "-o", f"-k {self.folder} -c listen_addresses='' -c fsync={'on' if self.durable else 'off'} "
                              "-c max_connections=100", "start")

    def halt(self) -> None:
        """The first half of `pg_ctl restart`: the server stops (fast: every session is cut), its data kept.
        `resume` is the second half; a test that halts resumes in a `finally`, as the session shares the server."""
        self._as_server(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        self._start()

    def restart(self) -> None:
        """`pg_ctl restart` (fast shutdown: every session is ended, as when a club's admin restarts it)."""
        self._as_server(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w",
                        "-m", "fast", "restart")

    def stop(self) -> None:
        try:
            if self.started and (self.data / "postmaster.pid").exists():
                self._as_server(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            self.started = False
            shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres", user: str = "fudge") -> str:
        return f"postgresql://{user}@/{database}?host={self.folder}"

    def database(self) -> str:
        """A new empty database, and its URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._count)}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)
