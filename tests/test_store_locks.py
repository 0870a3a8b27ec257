"""A store file stays shared while one process holds several connections to it.

Closing any descriptor of a file drops every POSIX lock the process holds on it, the locks SQLite's
connections rely on to tell other processes they are there. `fudge play` opens a second connection (the
thread that watches the players' requests) beside its own; had opening a connection read the file through
a descriptor of its own, the play's locks would have gone, another `fudge` process would have taken its
write-ahead log for abandoned and deleted it, and every command the GM played afterwards would have
reached no other process (no board, no player) until play ended. [A-LOG-1]
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fudge_combat.engine import commands as cmd
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore

READ = """
import sys
from fudge_combat.store.sqlite import SqliteStore
store = SqliteStore(sys.argv[1])
print(store.last_seq("duel"))
store.close()
"""


def seq_seen_elsewhere(path: Path) -> int:
    """The fight's last seq as another process reads it (opening and closing its own connection)."""
    done = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_a_second_connection_in_one_process_keeps_the_first_ones_writes_visible_to_others(tmp_path: Path) -> None:
    path = tmp_path / "fudge.db"
    fights = Fights(SqliteStore(path))
    fights.new("duel", "fudge", {}, make_current=True)
    fights.execute("duel", cmd.Join(sheet={"name": "Snorri", "skills": {"Sword": "Good"}}, source="test"))
    written = fights.store.last_seq("duel")
    second = SqliteStore(path)  # as play's watcher opens its own
    second.close()
    assert seq_seen_elsewhere(path) == written  # another process opens and closes the store meanwhile
    fights.execute("duel", cmd.Join(sheet={"name": "Brynhild", "skills": {"Sword": "Good"}}, source="test"))
    assert fights.store.last_seq("duel") > written
    assert seq_seen_elsewhere(path) == fights.store.last_seq("duel")
    assert (tmp_path / "fudge.db-wal").exists()  # the log the first connection writes is still the file's
    fights.store.close()
