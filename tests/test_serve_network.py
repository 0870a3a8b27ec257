"""`fudge serve` facing the network (cli.web.net): slow clients are closed, connections and streams are
bounded, and a request must name the address served. Each test runs `fudge serve --port 0` as its own
process on loopback, and attacks it from this process with a bounded number of sockets for a bounded time.
"""

from __future__ import annotations

import http.client
import selectors
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any
from pathlib import Path

import pytest

from tests.browser import served
from tests.processes import fudge

pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install '.[serve]'")
from fudge_combat.cli.web import app, net  # noqa: E402  (after the skip: the serve extra imports starlette)

SLOW = 1000  # slow clients of the attack


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("served") / "fudge.db"
    assert fudge("new", "duel", store=store).returncode == 0
    return store


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    """The sockets a test opens, closed at its end whatever happens; room for them under the file limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < SLOW + 200:
        if hard != resource.RLIM_INFINITY and hard < SLOW + 200:
            pytest.skip(f"this process may open {hard} files, the attack needs {SLOW + 200}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (SLOW + 200, hard))
    opened: list[socket.socket] = []
    try:
        yield opened
    finally:
        for sock in opened:
            sock.close()


def address(url: str) -> tuple[str, int]:
    host, port = url.split("/")[2].rsplit(":", 1)
    return host, int(port)


def closed_by_the_server(sock: socket.socket) -> bool:
    """Whether the server closed the socket (end of file, or reset because its request was left unread)."""
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True


def wait_closed(socks: list[socket.socket], seconds: float) -> tuple[int, float]:
    """(how many of `socks` the server closed within `seconds`, when the last one was)."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    closed, last = 0, 0.0
    started = time.monotonic()
    deadline = started + seconds
    while closed < len(socks) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.2):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            if closed_by_the_server(sock):
                selector.unregister(sock)
                closed += 1
                last = time.monotonic() - started
            # else: bytes sent by the server before it closes (the 503 of a refused connection): read on
    selector.close()
    return closed, last


def descriptors(pid: int) -> int | None:
    """The server process's open file descriptors (Linux), or None where /proc does not say."""
    try:
        return len(list(Path(f"/proc/{pid}/fd").iterdir()))
    except OSError:
        return None


def get(url: str, timeout: float = 10) -> tuple[int, bytes, float]:
    """(status, body, seconds taken) of a GET as a browser sends it."""
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return int(response.status), response.read(), time.monotonic() - started


def test_a_thousand_slow_clients_do_not_stop_the_board(duel: Path, sockets: list[socket.socket]) -> None:
    """The slow-client attack: SLOW connections that send half a request's headers (`GET / HTTP/1.1\\r\\nHo`)
    or nothing at all. A player who comes next is served at once; the server holds at most its bound of
    connections while the attack lasts, closes every slow one within the headers' deadline, and is back to
    its own files after. A keep-alive client that sends its second request a byte a second is closed too."""
    with served(duel) as (url, _, process):
        host, port = address(url)
        assert get(url)[0] == 200
        before = descriptors(process.pid)
        started = time.monotonic()
        for number in range(SLOW):
            sock = socket.create_connection((host, port), timeout=5)
            sockets.append(sock)
            if number % 2 == 0:
                sock.sendall(b"GET / HTTP/1.1\r\nHo")
        opened = time.monotonic() - started
        status, body, took = get(url)  # the player who arrives next
        assert status == 200 and b"duel" in body
        assert took < 3.0, f"a player waited {took:.1f} s behind {SLOW} slow clients"
        held = descriptors(process.pid)
        if held is not None:  # the connections are bounded: the rest were closed, not queued
            assert held <= net.CONNECTIONS + 40, held
        trickle = socket.create_connection((host, port), timeout=5)
        sockets.append(trickle)
        trickle.sendall(f"GET /board.json HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        assert trickle.recv(65536).startswith(b"HTTP/1.1 200 ")
        answered = time.monotonic()
        for byte in b"GET / HTTP/1.1\r\n":  # a byte a second: the headers would take longer than the deadline
            try:
                trickle.sendall(bytes([byte]))
            except OSError:  # reset: the server closed it
                break
            time.sleep(1.0)
        closed, _ = wait_closed(sockets, net.HEADERS + 5.0)
        assert closed == len(sockets), f"{len(sockets) - closed} of {len(sockets)} slow connections still open"
        assert time.monotonic() - answered < net.HEADERS + 5.0 and opened < 30
        after = descriptors(process.pid)
        if before is not None and after is not None:
            assert after <= before + 2, (before, after)  # every slow client's socket given back
        assert get(url)[0] == 200  # and the board still answers once the attacker has gone
        assert process.poll() is None


def test_open_streams_are_bounded_and_the_page_is_still_served(duel: Path, sockets: list[socket.socket]) -> None:
    """STREAMS players' pages hold their event streams; the next stream is refused (503, "try again"), the page
    itself is still served, and a stream closed makes room for a new one."""
    with served(duel) as (url, _, _):
        host, port = address(url)

        def stream() -> tuple[socket.socket, bytes]:
            sock = socket.create_connection((host, port), timeout=10)
            sockets.append(sock)
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
            data = b""
            while b"\r\n\r\n" not in data or (data.startswith(b"HTTP/1.1 200") and b"data: " not in data):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            return sock, data

        held = [stream() for _ in range(app.STREAMS)]
        assert all(data.startswith(b"HTTP/1.1 200 ") and b"data: {" in data for _, data in held)
        _, refused = stream()
        assert refused.startswith(b"HTTP/1.1 503 ") and b"retry-after: 5" in refused.lower(), refused[:200]
        assert get(url)[0] == 200 and get(url + "board.json")[0] == 200
        held[0][0].close()
        deadline = time.monotonic() + 10
        while True:  # the server sees the page closed at its stream's next check
            _, again = stream()
            if again.startswith(b"HTTP/1.1 200 ") or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert again.startswith(b"HTTP/1.1 200 ") and b"data: {" in again, again[:200]


def ask(host: str, port: int, path: str, *hosts: str) -> tuple[int, str]:
    """A GET of `path` carrying these Host headers as given (a DNS rebinding's page sends its own name)."""
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        for value in hosts:
            connection.putheader("Host", value)
        connection.endheaders()
        response = connection.getresponse()
        body = (response.read(300) if path.endswith("events") else response.read()).decode(errors="replace")
        return response.status, body
    finally:
        connection.close()


def test_a_request_must_name_the_address_served(duel: Path) -> None:
    """On loopback the board answers to localhost, 127.0.0.1 and [::1] at its port, and to nothing else: a
    rebinding page's own name (at the right port, at none), another port, two Hosts or none get 400,
    "misdirected request", on every path, and nothing of the board; none of it reaches the GM's terminal."""
    with served(duel) as (url, _, process):
        host, port = address(url)
        for named in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}", f"[::1]:{port}"):
            status, body = ask(host, port, "/", named)
            assert status == 200 and "duel" in body, named
        assert ask(host, port, "/events", f"localhost:{port}")[0] == 200
        refused = [(f"rebind.attacker.example:{port}",), ("rebind.attacker.example",), (f"127.0.0.1:{port + 1}",),
                   ("127.0.0.1",), ("localhost",), (f"localhost.attacker.example:{port}",), (f"127.0.0.1.nip.io:{port}",),
                   (f"[::2]:{port}",), (f"10.0.0.5:{port}",), ("",), (f"localhost:{port}x",), (f"127.0.0.1:{port}:{port}",)]
        for hosts in refused:
            for path in ("/", "/board.json", "/events"):
                status, body = ask(host, port, path, *hosts)
                assert status == 400 and body.startswith("misdirected request"), (hosts, path, status, body)
        for hosts in [(f"127.0.0.1:{port}", "rebind.attacker.example"), ()]:  # HTTP/1.1 itself: exactly one Host
            status, body = ask(host, port, "/", *hosts)
            assert status == 400 and "duel" not in body, (hosts, status, body)
    errors = process.stderr.read() if process.stderr else ""
    assert errors == "", errors  # a stranger's requests are not written to the GM's terminal


def test_which_hosts_name_a_board_served_to_the_network() -> None:
    """One address: that address (or the name given for it) at the port served. Every address (0.0.0.0):
    any address written as such, or this machine's name; never a name of another site."""
    one = net.host_rule("192.168.1.10", "192.168.1.10", 8000, local=False)
    assert one("192.168.1.10:8000") and not one("192.168.1.10:8001") and not one("192.168.1.10")
    assert not one("localhost:8000") and not one("127.0.0.1:8000") and not one("rebind.example:8000")
    named = net.host_rule("gm-laptop.local", "192.168.1.10", 8000, local=False)
    assert named("gm-laptop.local:8000") and named("192.168.1.10:8000") and not named("evil.local:8000")
    every = net.host_rule("0.0.0.0", "0.0.0.0", 8000, local=False)
    machine = socket.gethostname().lower()
    assert every("192.168.1.10:8000") and every("[fe80::1]:8000") and every("0.0.0.0:8000")
    assert every(f"{machine}:8000") and every(f"{machine.split('.')[0]}.local:8000")
    assert not every("rebind.attacker.example:8000") and not every("192.168.1.10:80")
    local = net.host_rule("127.0.0.1", "127.0.0.1", 80, local=True)
    assert local("localhost") and local("127.0.0.1:80") and local("[::1]") and not local("[::1]:8080")
    for broken in ("", ":80", "[::1", "[::1]x", "localhost:", "localhost:８０", "localhost:123456"):
        assert net.authority(broken) is None or not local(broken), broken


@pytest.mark.parametrize("host", ["", "   "])
def test_an_empty_host_is_refused_in_one_line(tmp_path: Path, host: str) -> None:
    """`--host ""` would listen on every address without a word: refused, nothing made."""
    store = tmp_path / "fudge.db"
    done = fudge("serve", "--host", host, "--port", "0", store=store)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("error: --host is empty: give the address to listen on") and done.stderr.count("\n") == 1
    assert not store.exists()


def test_a_full_server_closes_the_slowest_client_or_refuses_the_newcomer() -> None:
    """The bound itself, on a server in this process with room for 3 connections: a fourth takes the slot of
    the one that waited longest for its headers; when all 3 are busy answering, the next gets 503 and is
    closed, and the ones being answered are not touched."""
    import asyncio
    import threading

    import uvicorn

    release = threading.Event()

    async def held(scope: Any, receive: Any, send: Any) -> None:  # answers once `release` is set
        while not release.is_set():
            await asyncio.sleep(0.05)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(16)
    port = listening.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(held, http=net.guarded(3, headers=30.0), log_level="error", lifespan="off"))
    running = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listening])), daemon=True)
    running.start()
    opened: list[socket.socket] = []
    try:
        def connect(request: bytes = b"") -> socket.socket:
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            opened.append(sock)
            sock.sendall(request)
            time.sleep(0.3)  # the server has taken it in
            return sock

        request = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        slowest = connect(b"GET / HTTP/1.1\r\nHo")
        busy = [connect(request), connect(request)]
        newcomer = connect(request)  # the fourth: the slowest gives way
        assert wait_closed([slowest], 5.0)[0] == 1
        refused = connect()  # all three busy: refused at once
        refused.settimeout(5)
        said = b""
        while chunk := refused.recv(4096):  # to the end: the server closes it
            said += chunk
        head, _, body = said.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 ") and body == b"too many connections: try again soon\n", said
        assert f"content-length: {len(body)}".encode() in head.lower(), head
        release.set()
        for sock in [*busy, newcomer]:
            sock.settimeout(5)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")
    finally:
        release.set()
        server.should_exit = True
        running.join(timeout=10)
        for sock in opened:
            sock.close()


def test_the_file_limit_is_raised_to_what_the_server_holds(tmp_path: Path) -> None:
    """A process started with 256 files (a Mac's default) raises its soft limit to the connections it holds,
    a batch being accepted and the headroom; the bound then fits in it. A higher limit is left as it is."""
    import subprocess
    import sys

    from tests.processes import ROOT

    script = ("import resource\n"
              "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
              "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
              "from fudge_combat.cli.web import net\n"
              "files = net.descriptors()\n"
              "print(files, resource.getrlimit(resource.RLIMIT_NOFILE)[0], net.connection_limit(files))\n"
              "resource.setrlimit(resource.RLIMIT_NOFILE, (5000, hard))\n"
              "print(net.descriptors(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    raised, low = done.stdout.splitlines()
    wanted = net.CONNECTIONS + net.BACKLOG + net.HEADROOM
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this machine's hard limit ({hard}) is under what the server asks for ({wanted})")
    assert raised.split() == [str(wanted), str(wanted), str(net.CONNECTIONS)]
    assert low.split() == ["5000", "5000"]
