"""`fudge serve` refusing to start: one error line, no store made, no traceback (the page itself is tested in a
browser: tests/test_browser.py). And which hosts count as this machine alone."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from cli import exits
from cli.serve import loopback
from tests.processes import fudge


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
