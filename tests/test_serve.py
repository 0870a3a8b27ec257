"""`fudge serve` refusing to start: one error line, no store made, no traceback (the page itself is tested in a
browser: tests/test_browser.py; the network's attacks in tests/test_serve_network.py). Which hosts count as
this machine alone. And a club's server restarting under an open board."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.cli import exits
from fudge_combat.cli.serve import loopback
from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
RECONNECTING = "the store is reconnecting"


def test_loopback_hosts() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost", "LOCALHOST"):
        assert loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.10", "gm-laptop.local", "10.0.0.1"):
        assert not loopback(host), host


def test_no_current_fight_and_no_store_made(tmp_path: Path) -> None:
    store = tmp_path / "fudge.db"
    done = fudge("serve", "--port", "0", store=store)
    assert done.returncode == 1 and done.stderr.startswith("error: no current fight") and "Traceback" not in done.stderr
    assert not store.exists()


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("serve") / "fudge.db"
    assert fudge("new", "duel", store=store).returncode == 0
    return store


def test_an_unknown_fight(duel: Path) -> None:
    done = fudge("serve", "--fight", "nosuch", "--port", "0", store=duel)
    assert done.returncode == 1 and done.stderr.startswith("error: no fight named 'nosuch'")


def test_a_port_in_use(duel: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = fudge("serve", "--port", str(port), store=duel)
    assert done.returncode == 1, done.stdout
    assert done.stderr == f"error: cannot listen on 127.0.0.1:{port}: Address already in use; try another --port or --host\n"



def test_ctrl_c_with_a_player_watching_stops_cleanly(duel: Path) -> None:
    """A player's open event stream does not hold the server up, and stopping it prints no traceback."""
    import signal
    import urllib.request

    from tests.browser import served

    with served(duel) as (url, _, process):
        with urllib.request.urlopen(url + "events", timeout=20) as stream:  # a player's page, connected
            assert stream.readline().startswith(b"data: ")
            process.send_signal(signal.SIGINT)
            process.wait(timeout=20)
        assert process.returncode in (0, exits.INTERRUPTED)  # uvicorn re-raises the signal once stopped: 130
        errors = process.stderr.read() if process.stderr else ""
        assert "Traceback" not in errors and "ERROR" not in errors, errors


def data_messages(stream: Any) -> Iterator[dict[str, Any]]:
    """The `data:` messages of an event stream, in order (comment lines, the heartbeats, skipped)."""
    import json

    for line in stream:
        if line.startswith(b"data: "):
            yield json.loads(line[len(b"data: "):])


def test_a_club_server_restart_reads_as_reconnecting_and_the_board_comes_back(pg_server: Any, tmp_path: Path) -> None:
    """`pg_ctl restart` under an open board (its two halves, so the page is read while the server is down):
    the stream and the page say "the store is reconnecting" above the last board, in words for a read (never
    the store's "nothing was written"); the GM's terminal has one line when it starts and one when it ends;
    once the server is back the board follows the fight again by itself, a new command included."""
    import os
    import subprocess
    import sys
    import urllib.request

    pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install '.[serve]'")
    url, folder = pg_server.database(), tmp_path / "alice"
    folder.mkdir()
    env = {"FUDGE_GM": "alice", "FUDGE_SECRETS_FILE": str(folder / "secrets.db")}
    for args in [("new", "duel"), ("join", str(SHEETS / "snorri.toml")), ("join", str(SHEETS / "brynhild.toml"))]:
        done = fudge(*args, store=url, cwd=folder, env=env)
        assert done.returncode == 0, (args, done.stderr)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update(env, PYTHONPATH=str(ROOT), FUDGE_KEY_FILE=str(folder / "snapshot.key"),
                       XDG_STATE_HOME=str(folder / "state"), NO_COLOR="1")
    process = subprocess.Popen([sys.executable, "-m", "fudge_combat.cli.main", "--store", url, "serve", "--port", "0"], cwd=folder,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert "http://" in line, line
        board = line[line.index("http://"):].split()[0]
        with urllib.request.urlopen(board + "events", timeout=30) as stream:
            messages = data_messages(stream)
            first = next(messages)
            assert "Snorri" in first["html"] and RECONNECTING not in first["html"]
            pg_server.halt()
            try:
                down = next(messages)  # sent within a poll of the server going away
                with urllib.request.urlopen(board, timeout=10) as page:
                    shown = page.read().decode()
                with urllib.request.urlopen(board + "board.json", timeout=10) as page:
                    as_json = page.read().decode()
            finally:
                pg_server.resume()
            for said in (down["html"], shown.split("<script>")[0], as_json):  # the page's text, not its script
                assert RECONNECTING in said and "Snorri" in said  # the last board, below the notice
                assert "nothing was written" not in said and "error" not in said.lower()
            assert down["seq"] == first["seq"]
            back = next(messages)  # the server answers again: the board, without the notice
            assert RECONNECTING not in back["html"] and back["html"] == first["html"]
            done = fudge("exchange", "Snorri", "Brynhild", store=url, cwd=folder, env=env)
            assert done.returncode == 0, done.stderr
            moved = next(messages)
            assert moved["seq"] > first["seq"] and moved["html"] != first["html"] and RECONNECTING not in moved["html"]
    finally:
        process.terminate()
        process.wait(timeout=20)
    said = process.stderr.read().splitlines() if process.stderr else []
    assert len(said) == 2, said
    assert said[0].startswith("warning: the store cannot be read: ") and said[0].endswith(
        "the players' page says the store is reconnecting, and follows the fight again when it answers"), said
    assert said[1] == "the store answers again: the board follows the fight"
