"""Joining the board from across the table: the address players can open, its QR code, the short code.

**The address.** A server listening on every address (0.0.0.0, ::) has no address of its own to print, and
0.0.0.0 is no address a phone can open. The machine's LAN address is found without sending anything: a UDP
socket `connect`ed to a private address only asks the kernel which source address its route would use (no
packet leaves; no DNS, no outside server); if no route leads there, the addresses of the interfaces are read
(Linux: SIOCGIFADDR, one per interface; elsewhere: what the machine's own name resolves to). Loopback,
link-local and unspecified addresses are no LAN address; a private one is preferred to any other.

**The QR code** is the link drawn with Unicode half blocks (two rows of modules a line, so a 37-module code
takes 23 lines): on a terminal that wants colour, black on white whatever the terminal's theme; plain text
otherwise, drawing the light modules (a terminal's text is light on dark by default). segno makes it: it
encodes, and draws nothing here.

**The short code** is for a player who cannot scan: 6 characters of Crockford's base 32 (no I, L, O or U;
typed in any case, with or without spaces and dashes, O read as 0, I and L as 1), typed on `/join`, which
sends them to the board's link. 32^6 is about 10^9 codes. It lives in the server's memory only, made anew at
each start (a code read out at the table is no longer worth anything once the server stops), and wrong tries
are limited: PER_ADDRESS a minute from one address and TOTAL a minute from all of them (past that every try
waits, the right code's included). So a guesser has at most TOTAL tries a minute whatever addresses he uses:
over a 12-hour session 30 × 720 = 21,600 tries, one chance in 50,000 of finding it. The players' link itself
(128 bits) is the lasting one.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import struct
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable

# Private addresses a route is asked for (nothing is sent): the default route answers unless the LAN is there.
PROBES = (("10.254.254.254", socket.AF_INET), ("192.168.254.254", socket.AF_INET), ("fd00::fe", socket.AF_INET6))
SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32
CODE_LENGTH = 6
READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})
WINDOW = 60.0  # seconds over which wrong tries are counted
PER_ADDRESS = 5  # wrong tries a WINDOW from one address
TOTAL = 30  # wrong tries a WINDOW from all addresses together


def _usable(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address, if a player's device could open it: not loopback, link-local, unspecified or multicast."""
    try:
        address = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return None
    if address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast:
        return None
    return address


def routed(target: str, family: socket.AddressFamily) -> str | None:
    """The source address of the route to `target`: `connect` on a UDP socket sends no packet."""
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 9))
            return str(probe.getsockname()[0])
    except OSError:  # no route: no network, or none that leads there
        return None


def interface_addresses() -> list[str]:
    """The interfaces' IPv4 addresses (Linux), then what this machine's name resolves to."""
    found: list[str] = []
    if sys.platform.startswith("linux"):
        import fcntl

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as asker:
            for _, name in socket.if_nameindex():
                try:
                    answer = fcntl.ioctl(asker.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
                except OSError:  # an interface without an IPv4 address, or down
                    continue
                found.append(socket.inet_ntoa(answer[20:24]))
    try:
        found += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM)]
    except OSError:
        pass
    return found


def choose(candidates: Iterable[str | None], versions: tuple[int, ...] = (4, 6)) -> str | None:
    """The first usable address of these IP versions, a private IPv4 one before any other, IPv4 before IPv6."""
    usable = [address for address in (_usable(text) for text in candidates if text)
              if address is not None and address.version in versions]
    ranked = sorted(usable, key=lambda address: (address.version, not address.is_private))  # stable: order kept
    return str(ranked[0]) if ranked else None


def lan_address(versions: tuple[int, ...] = (4, 6), probes: Callable[[], list[str | None]] | None = None,
                interfaces: Callable[[], list[str]] = interface_addresses) -> str | None:
    """This machine's address on the table's network (IPv4 before IPv6), or None if it is on none."""
    routes = probes() if probes is not None else [routed(target, family) for target, family in PROBES]
    return choose(routes, versions) or choose(interfaces(), versions)


def url_host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


# --- the QR code --------------------------------------------------------------------------------------

def qr_lines(url: str, colour: bool) -> list[str]:
    """The QR code of `url`, two rows of modules a line (the module docstring says how it is drawn)."""
    import segno

    rows = [list(row) for row in segno.make(url, micro=False).matrix_iter(scale=1, border=4)]
    if len(rows) % 2:
        rows.append([0] * len(rows[0]))  # a light row under the quiet zone
    lines = []
    for top, bottom in zip(rows[::2], rows[1::2]):
        if colour:  # black on white: drawn are the dark modules
            cells = {(1, 1): "█", (1, 0): "▀", (0, 1): "▄", (0, 0): " "}
            lines.append("\x1b[30;107m" + "".join(cells[pair] for pair in zip(top, bottom)) + "\x1b[0m")
        else:  # the terminal's own colours: drawn are the light modules
            cells = {(0, 0): "█", (0, 1): "▀", (1, 0): "▄", (1, 1): " "}
            lines.append("".join(cells[pair] for pair in zip(top, bottom)))
    return lines


# --- the short code -----------------------------------------------------------------------------------

def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def spoken(code: str) -> str:
    """The code as read out: two groups of three."""
    return f"{code[:3]}-{code[3:]}"


def typed(text: str) -> str:
    """What a player typed, as a code: upper case, spaces and dashes dropped, O as 0, I and L as 1."""
    return "".join(text.split()).replace("-", "").upper().translate(READ_AS)


class Tries:
    """The wrong codes typed lately, per address and in all (the module docstring says why both)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.wrong: deque[tuple[float, str]] = deque()  # (when, from where), oldest first, within WINDOW

    def _forget(self, now: float) -> None:
        while self.wrong and self.wrong[0][0] <= now - WINDOW:
            self.wrong.popleft()

    def wait(self, address: str) -> float:
        """Seconds before `address` may try again (0: now)."""
        now = self.clock()
        self._forget(now)
        mine = [when for when, where in self.wrong if where == address]
        if len(self.wrong) >= TOTAL:
            return self.wrong[len(self.wrong) - TOTAL][0] + WINDOW - now
        if len(mine) >= PER_ADDRESS:
            return mine[len(mine) - PER_ADDRESS] + WINDOW - now
        return 0.0

    def failed(self, address: str) -> None:
        self.wrong.append((self.clock(), address))


def check(code: str, given: str) -> bool:
    return secrets.compare_digest(typed(given).encode(), code.encode())
