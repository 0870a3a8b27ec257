"""Joining the board in one look (cli.web.lan, service.links): `fudge serve --lan` as its own process prints an
address a player can open (never 0.0.0.0), its QR code and a short code; the fight's link outlives a restart and
`--new-link` revokes it; the short code leads to the board and wrong ones are limited; the Host check still
refuses a foreign name. The address is this machine's LAN address: tests that need one skip where there is none.
"""

from __future__ import annotations

import hashlib
import http.client
import ipaddress
import shutil
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.browser import environment
from tests.processes import fudge

pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install '.[serve]'")
segno = pytest.importorskip("segno", reason="the serve extra is not installed: pip install '.[serve]'")
from fudge_combat.cli.web import lan  # noqa: E402  (after the skip)
from fudge_combat.store.base import Secret  # noqa: E402
from fudge_combat.store.secrets import MemorySecrets, SecretFile, dumps, loads  # noqa: E402

LAN = lan.lan_address()
needs_lan = pytest.mark.skipif(LAN is None, reason="this machine has no LAN address (only loopback)")
OLD_REFUSED = "a new link for fight duel: the old one is refused from now on"


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    store = tmp_path / "fudge.db"
    assert fudge("new", "duel", store=store).returncode == 0
    return store


class Served:
    """A running `fudge serve`: its link, what it printed, and the parts of it the tests read."""

    def __init__(self, process: subprocess.Popen[str], lines: list[str]) -> None:
        self.process, self.lines = process, lines
        first = lines[0]
        self.url = first[first.index("http://"):].split()[0]
        self.host, self.port, self.path = split(self.url)
        joining = lines[-1]
        self.join = joining[joining.index("http://"):].split()[0]
        self.code = joining.split("type the code ")[1].split()[0]
        self.qr = [line for line in lines[1:-1] if line != OLD_REFUSED]


def split(url: str) -> tuple[str, int, str]:
    authority, _, path = url.removeprefix("http://").partition("/")
    host, port = authority.rsplit(":", 1)
    return host.strip("[]"), int(port), "/" + path


@contextmanager
def serving(store: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`fudge serve --port 0 ARGS` as its own process, until it has printed its short code's line."""
    process = subprocess.Popen([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), "serve",
                                "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**environment(store), **(env or {})}, cwd=store.parent)
    try:
        lines: list[str] = []
        assert process.stdout is not None
        while not lines or not lines[-1].startswith("or open "):
            line = process.stdout.readline()
            assert line, (lines, process.stderr.read() if process.stderr and process.poll() is not None else "")
            lines.append(line.rstrip("\n"))
        yield Served(process, lines)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def request(host: str, port: int, method: str, path: str, body: str = "", named: str | None = None,
            ) -> tuple[int, dict[str, str], str]:
    """(status, headers, body) of one request, redirects not followed; `named`: the Host header sent."""
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True)
        where = f"[{host}]" if ":" in host else host
        connection.putheader("Host", named if named is not None else f"{where}:{port}")
        if body:
            connection.putheader("Content-Type", "application/x-www-form-urlencoded")
            connection.putheader("Content-Length", str(len(body.encode())))
        connection.endheaders(body.encode() if body else None)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


def page(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), ""


# --- the address --------------------------------------------------------------------------------------

@needs_lan
def test_lan_prints_this_machines_lan_address_and_the_board_opens_there(duel: Path) -> None:
    with serving(duel, "--lan") as served:
        address = ipaddress.ip_address(served.host)
        assert not (address.is_unspecified or address.is_loopback or address.is_link_local), served.url
        assert served.host == LAN
        status, body = page(served.url)
        assert status == 200 and "duel" in body
        assert served.join == f"http://{lan.url_host(served.host)}:{served.port}/join"
    errors = served.process.stderr.read() if served.process.stderr else ""
    assert errors.startswith("warning: serving to the network on ") and "Traceback" not in errors


@needs_lan
@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_listening_on_every_address_prints_one_a_player_can_open(duel: Path, host: str) -> None:
    """0.0.0.0 and :: are no address a phone can open: the LAN address is printed, and answers (the Host
    check takes it: the request names the address printed)."""
    if host == "::" and not listens_on_ipv6():
        pytest.skip("this machine cannot listen on IPv6")
    with serving(duel, "--host", host, "--no-qr") as served:
        assert "0.0.0.0" not in "\n".join(served.lines) and "[::]" not in "\n".join(served.lines)
        assert not ipaddress.ip_address(served.host).is_unspecified and served.host == LAN
        status, body = page(served.url)
        assert status == 200 and "duel" in body


def listens_on_ipv6() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::", 0))
        return True
    except OSError:
        return False


def test_lan_on_a_machine_without_a_network_is_refused_in_one_line(duel: Path) -> None:
    """A network namespace of its own (`unshare -n`) has only loopback: --lan says so, and starts nothing."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("no network namespace can be made here (unshare -n)")
    done = subprocess.run([unshare, "-n", sys.executable, "-m", "fudge_combat.cli.main", "--store", str(duel),
                           "serve", "--lan", "--port", "0"], capture_output=True, text=True, timeout=60,
                          env=environment(duel), cwd=duel.parent)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("error: this machine has no address on a network (only loopback): join the table's "
                           "network (Wi-Fi or cable), or give --host ADDRESS\n")


@pytest.mark.parametrize("args, said", [
    (("--lan", "--host", "0.0.0.0"), "error: --lan and --host both say where to listen: give one of them\n"),
    (("--new-link",), "error: --new-link replaces the link served to the table's network: add --lan "
                      "(or --host ADDRESS)\n"),
])
def test_options_that_do_not_go_together_are_refused_in_one_line(duel: Path, args: tuple[str, ...], said: str) -> None:
    done = fudge("serve", "--port", "0", *args, store=duel, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", said)


def test_the_lan_address_is_chosen_without_asking_anyone() -> None:
    """The route's source address first (a UDP connect sends nothing), then the interfaces'; loopback,
    link-local and unspecified addresses are none; a private IPv4 address before any other, IPv6 last."""
    assert lan.choose(["127.0.0.1", "169.254.3.4", "0.0.0.0", "fe80::1", None]) is None
    assert lan.choose(["93.184.216.34", "192.168.1.20"]) == "192.168.1.20"
    assert lan.choose(["fd00::5", "10.0.0.7"]) == "10.0.0.7"
    assert lan.choose(["fd00::5", "10.0.0.7"], versions=(6,)) == "fd00::5"
    assert lan.choose(["192.168.1.20", "10.0.0.7"]) == "192.168.1.20"  # the route's own, before the next
    no_route = lambda: [None, None]  # noqa: E731
    assert lan.lan_address(probes=no_route, interfaces=lambda: ["127.0.0.1", "192.168.7.3"]) == "192.168.7.3"
    assert lan.lan_address(probes=lambda: ["10.1.2.3"], interfaces=lambda: ["192.168.7.3"]) == "10.1.2.3"
    assert lan.lan_address(probes=lambda: [None], interfaces=lambda: ["127.0.0.1", "::1"]) is None


# --- the QR code --------------------------------------------------------------------------------------

def modules(lines: list[str], colour: bool) -> list[list[int]]:
    """The QR code's modules (1: dark) read back from the half blocks printed, two rows a line."""
    if colour:
        assert all(line.startswith("\x1b[30;107m") and line.endswith("\x1b[0m") for line in lines), lines[:2]
        lines = [line.removeprefix("\x1b[30;107m").removesuffix("\x1b[0m") for line in lines]
        cells = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}
    else:
        cells = {"█": (0, 0), "▀": (0, 1), "▄": (1, 0), " ": (1, 1)}
    rows = []
    for line in lines:
        pairs = [cells[char] for char in line]
        rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    return rows


def encoded(url: str) -> list[list[int]]:
    rows = [list(row) for row in segno.make(url, micro=False).matrix_iter(scale=1, border=4)]
    return rows + [[0] * len(rows[0])] * (len(rows) % 2)


@needs_lan
@pytest.mark.parametrize("colour", [False, True])
def test_the_qr_code_printed_is_the_links(duel: Path, colour: bool) -> None:
    """Plain (NO_COLOR: the light modules drawn) and coloured (FORCE_COLOR: black on white), the blocks
    printed are the QR code of the link printed above them, quiet zone included."""
    env = {"FORCE_COLOR": "1", "NO_COLOR": "", "COLUMNS": "200"} if colour else None  # no line wrapped
    with serving(duel, "--lan", env=env) as served:
        assert len(served.qr) > 10
        assert modules(served.qr, colour) == encoded(served.url)


@needs_lan
def test_the_qr_code_printed_decodes_to_the_link(duel: Path, tmp_path: Path) -> None:
    """An independent reader (zbar) reads the printed blocks, drawn as an image, as the link itself."""
    zbarimg = shutil.which("zbarimg")
    if zbarimg is None:
        pytest.skip("zbarimg is absent (apt-get install zbar-tools)")
    with serving(duel, "--lan") as served:
        rows = modules(served.qr, colour=False)
    scale = 4
    image = tmp_path / "qr.pbm"
    image.write_text("P1\n%d %d\n" % (len(rows[0]) * scale, len(rows) * scale) + "".join(
        (" ".join(str(bit) for bit in row for _ in range(scale)) + "\n") * scale for row in rows))
    done = subprocess.run([zbarimg, "--quiet", "--raw", str(image)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == served.url, (done.stdout, done.stderr)


@needs_lan
def test_no_qr_prints_the_link_and_the_code_alone(duel: Path) -> None:
    with serving(duel, "--lan", "--no-qr") as served:
        assert served.qr == [] and len(served.lines) == 2
        assert page(served.url)[0] == 200


# --- the link -----------------------------------------------------------------------------------------

@needs_lan
def test_the_link_outlives_a_restart_and_new_link_revokes_it(duel: Path) -> None:
    """The fight's link is made at the first serve and kept among the GM's secrets (not in the store): the
    same at the next serve; `--new-link` gives another, says in one line that the old one is refused, and
    the old one is 404 from then on (at that serve and the next), the new one kept in its turn."""
    with serving(duel, "--lan", "--no-qr") as first:
        assert page(first.url)[0] == 200
    with serving(duel, "--lan", "--no-qr") as again:
        assert again.path == first.path and OLD_REFUSED not in again.lines
        assert page(again.url)[0] == 200
    token = first.path.strip("/")
    stored = b"".join(path.read_bytes() for path in duel.parent.glob("fudge.db*"))
    assert token.encode() not in stored  # the store holds no link: whoever reads it cannot open the board
    with serving(duel, "--lan", "--no-qr", "--new-link") as renewed:
        assert renewed.lines[1] == OLD_REFUSED and renewed.path != first.path
        assert page(renewed.url)[0] == 200
        status, _, body = request(renewed.host, renewed.port, "GET", first.path)
        assert status == 404 and "duel" not in body
    with serving(duel, "--lan", "--no-qr") as later:
        assert later.path == renewed.path
        assert request(later.host, later.port, "GET", first.path)[0] == 404


@needs_lan
def test_a_link_that_is_not_one_fudge_made_is_refused_in_one_line(duel: Path) -> None:
    """The secrets file edited by hand (a path with a route's braces in it): refused, `--new-link` named."""
    with serving(duel, "--lan", "--no-qr"):
        pass
    with sqlite3.connect(duel.parent / "secrets.db") as db:
        db.execute("UPDATE secrets SET value = '{x}/../../etc' WHERE key = 'link:board'")
    db.close()
    done = fudge("serve", "--lan", "--port", "0", store=duel, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("error: the board's link kept for fight duel among your secrets is not one fudge made: "
                           "`fudge serve --new-link` makes a new one\n")
    with serving(duel, "--lan", "--no-qr", "--new-link") as renewed:
        assert page(renewed.url)[0] == 200


@pytest.mark.parametrize("box", ["memory", "file"])
def test_the_link_is_the_one_secret_replaced_and_it_travels_with_an_export(tmp_path: Path, box: str) -> None:
    secrets: Any = MemorySecrets() if box == "memory" else SecretFile(tmp_path / "secrets.db")
    seed = "seed:" + hashlib.sha256(b"\x01").hexdigest()
    secrets.put("A", {"link:board": "a" * 22, seed: "01"})
    secrets.put("A", {"link:board": "c" * 22})  # kept as it is: only `replace` changes it
    assert secrets.get("A", "link:board") == "a" * 22
    secrets.replace("A", "link:board", "b" * 22)
    assert secrets.get("A", "link:board") == "b" * 22 and secrets.get("A", seed) == "01"
    assert [(s.key, s.value) for s in loads(dumps(secrets.export()))] == [("link:board", "b" * 22), (seed, "01")]
    with pytest.raises(Exception, match="is not a board's link"):
        loads(dumps([Secret("A", "link:board", "../x")]))


# --- the short code -----------------------------------------------------------------------------------

@needs_lan
def test_the_short_code_leads_to_the_fight_and_wrong_codes_are_limited(duel: Path) -> None:
    """/join is a form; the code as a player may type it (lower case, spaces, O for 0) is sent to the board
    (303 to the link); a wrong one is 403; past PER_ADDRESS wrong ones a minute every try waits (429, the
    right code's too)."""
    with serving(duel, "--lan", "--no-qr") as served:
        host, port = served.host, served.port
        assert len(served.code) == 7 and served.code[3] == "-"
        status, _, form = request(host, port, "GET", "/join")
        assert status == 200 and '<form method="post"' in form and "duel" not in form
        sloppy = " ".join(served.code.replace("-", "").lower().replace("0", "o"))
        status, headers, _ = request(host, port, "POST", "/join", "code=" + urllib.parse.quote(sloppy))
        assert status == 303 and headers["location"] == served.path
        assert page(f"http://{lan.url_host(host)}:{port}{headers['location']}")[0] == 200
        wrong = "code=" + ("ZZZZZZ" if served.code != "ZZZ-ZZZ" else "YYYYYY")
        for _ in range(lan.PER_ADDRESS):
            status, _, body = request(host, port, "POST", "/join", wrong)
            assert status == 403 and "not this board's code" in body and served.path not in body
        status, headers, body = request(host, port, "POST", "/join", wrong)
        assert status == 429 and 0 < int(headers["retry-after"]) <= 61 and "too many wrong codes" in body
        status, headers, _ = request(host, port, "POST", "/join", "code=" + served.code)
        assert status == 429 and "location" not in headers
        assert request(host, port, "POST", "/join", "code=" + "A" * 2000)[0] == 429  # still waiting
    assert "Traceback" not in (served.process.stderr.read() if served.process.stderr else "")


def test_the_short_code_is_new_at_each_start_and_only_served_to_the_network(duel: Path) -> None:
    """On loopback there is no link to send anyone to: no /join. To the network the code is the server's
    own: a restart makes another (so one read out at an earlier session opens nothing)."""
    from tests.browser import served as on_loopback

    with on_loopback(duel) as (url, _, _):
        host, port, _ = split(url)
        assert request(host, port, "GET", "/join")[0] == 404
    if LAN is None:
        return  # the loopback half alone: no address to serve the network on
    codes = set()
    for _ in range(2):
        with serving(duel, "--lan", "--no-qr") as served:
            codes.add(served.code)
            assert request(served.host, served.port, "POST", "/join", "code=" + served.code)[0] == 303
    assert len(codes) == 2


def test_wrong_tries_are_limited_per_address_and_in_all() -> None:
    """PER_ADDRESS wrong tries a WINDOW from one address, TOTAL from all: a guesser with many addresses
    gets no more than TOTAL a minute; the count forgets tries older than the window."""
    now = [0.0]
    tries = lan.Tries(clock=lambda: now[0])
    for _ in range(lan.PER_ADDRESS):
        assert tries.wait("10.0.0.9") == 0
        tries.failed("10.0.0.9")
    assert tries.wait("10.0.0.9") == lan.WINDOW and tries.wait("10.0.0.10") == 0
    for number in range(lan.TOTAL - lan.PER_ADDRESS):
        now[0] += 0.1
        assert tries.wait(f"10.0.1.{number}") == 0
        tries.failed(f"10.0.1.{number}")
    assert tries.wait("10.0.2.1") > 0  # a new address, but the table's budget is spent
    now[0] = lan.WINDOW + 0.05
    assert tries.wait("10.0.0.9") == 0 and tries.wait("10.0.2.1") == 0  # the first five have aged out
    assert lan.typed(" k7q-m2o ") == "K7QM20" and lan.typed("il") == "11"
    codes = {lan.new_code() for _ in range(200)}
    assert len(codes) > 190 and all(len(code) == lan.CODE_LENGTH and set(code) <= set(lan.ALPHABET) for code in codes)


# --- the Host check -----------------------------------------------------------------------------------

@needs_lan
def test_the_host_check_still_refuses_a_foreign_name(duel: Path) -> None:
    """Served on the LAN address, the board answers to that address at its port, and to no other name:
    a rebinding page's name, loopback's names, another port get 400 on the board, /join included."""
    with serving(duel, "--lan", "--no-qr") as served:
        host, port = served.host, served.port
        assert request(host, port, "GET", served.path)[0] == 200
        for named in (f"rebind.attacker.example:{port}", f"localhost:{port}", f"127.0.0.1:{port}",
                      f"{lan.url_host(host)}:{port + 1}", "0.0.0.0:%d" % port):
            for path in (served.path, "/join"):
                status, _, body = request(host, port, "GET", path, named=named)
                assert status == 400 and body.startswith("misdirected request"), (named, path, status)
