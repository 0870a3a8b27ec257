"""A club's server restarted under its GMs (store.postgres), with a real `pg_ctl restart` (tests/pgserver.py).

A `fudge play` session that meets a restart goes on without a refused line or a word from the connection
pool; the board's waits (`wait_for_change`, called from the web app's worker threads) share one LISTEN
session however many pages wait and however often, and find it again after a restart.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.processes import ROOT

SHEETS = ROOT / "examples" / "sheets"


def count(url: str, sql: str) -> int:
    import psycopg

    with psycopg.connect(url) as db:
        return int(db.execute(sql).fetchone()[0])  # type: ignore[arg-type, index]


def until(check: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_play_session_goes_on_across_a_server_restart_without_noise(pg_server: Any, tmp_path: Path) -> None:
    url = pg_server.database()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update(PYTHONPATH=str(ROOT), FUDGE_GM="alice", FUDGE_KEY_FILE=str(tmp_path / "key"), NO_COLOR="1",
               FUDGE_SECRETS_FILE=str(tmp_path / "secrets.db"), XDG_STATE_HOME=str(tmp_path / "state"))
    play = subprocess.Popen([sys.executable, "-m", "fudge_combat.cli.main", "--store", url, "play", "--strict"], text=True, env=env,
                            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert play.stdin is not None
        play.stdin.write(f"new duel\njoin {SHEETS / 'snorri.toml'}\n")
        play.stdin.flush()
        until(lambda: count(url, "SELECT to_regclass('events') IS NOT NULL::int") and
              count(url, "SELECT count(*) FROM events") >= 2)
        pg_server.restart()  # every connection of the session's pool is closed under it
        play.stdin.write(f"join {SHEETS / 'brynhild.toml'}\nexchange snorri brynhild "
                         "--dice 'snorri=+ 0 0 0' --dice 'brynhild=- 0 0 0'\nstatus\n")
        out, err = play.communicate(timeout=120)
    finally:
        if play.poll() is None:
            play.kill()
    assert play.returncode == 0, (out, err)
    assert err == ""  # no refused line, no "discarding closed connection" from the pool
    assert "error" not in out and "Brynhild" in out
    assert count(url, "SELECT count(*) FROM fights") == 1


def test_every_wait_of_a_store_shares_one_LISTEN_session_and_finds_it_again_after_a_restart(pg_server: Any) -> None:
    """Three pages of a board, each waiting a second at a time (as `fudge serve`'s pages do), for five
    seconds: one LISTEN session on the server all along; an append wakes every waiter; after a restart the
    one session is made again and the next append wakes them too."""
    from fudge_combat.events.rows import Row
    from fudge_combat.store.base import FightInfo
    from fudge_combat.store.postgres import PostgresStore

    url = pg_server.database()
    writer = PostgresStore(url, gm="alice")
    writer.append("duel", 0, [Row(1, "c1", "note", "{}", "h1")], create=FightInfo("duel", "id-duel"))
    board = PostgresStore(url, gm="alice")  # the store of one `fudge serve`
    listening = f"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()"
    seen: dict[int, list[int]] = {page: [] for page in range(3)}
    stop = threading.Event()

    def page(number: int) -> None:
        last = 1
        while not stop.is_set():
            last = board.wait_for_change("duel", last, 1.0)
            seen[number].append(last)

    pages = [threading.Thread(target=page, args=(n,), daemon=True) for n in seen]
    for thread in pages:
        thread.start()
    try:
        sessions = set()
        for _ in range(10):  # five seconds of waits, each page's wait ending every second
            time.sleep(0.5)
            sessions.add(count(url, listening))
        assert sessions == {1}
        writer.append("duel", 1, [Row(2, "c2", "note", "{}", "h2")])
        until(lambda: all(2 in values for values in seen.values()), 5)

        pg_server.restart()
        until(lambda: count(url, listening) == 1)
        writer.append("duel", 2, [Row(3, "c3", "note", "{}", "h3")])
        until(lambda: all(3 in values for values in seen.values()), 5)
        assert count(url, listening) == 1
    finally:
        stop.set()
        for thread in pages:
            thread.join(timeout=5)
        board.close()
        writer.close()
