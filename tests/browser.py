"""A real browser for the tests of what players see: Debian's chromium, driven by selenium.

The system's chromium and chromedriver (apt: chromium, chromium-driver; .ci/run installs them), never
a downloaded browser: selenium is told where both are, so it fetches nothing. Headless, no sandbox
(CI runs as root), nothing of the network that a browser does on its own (updates, sync, QUIC), a
fresh profile per browser.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.processes import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars")
WAIT = 20.0  # seconds: generous, for two shared cores; a test fails only if nothing happened by then


def environment(store: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update({"PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(store.parent / "snapshot.key"),
                "XDG_STATE_HOME": str(store.parent / "state"), "NO_COLOR": "1"})
    return env


@contextmanager
def served(store: Path, *args: str) -> Iterator[tuple[str, str, subprocess.Popen[str]]]:
    """`fudge serve --port 0 ARGS` running: (its address, its stderr so far, the process)."""
    process = subprocess.Popen([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), "serve", "--port", "0", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(store),
                               cwd=store.parent)
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert "http://" in line, (line, process.stderr.read() if process.poll() is not None and process.stderr else "")
        url = line[line.index("http://"):].split()[0]
        yield url, "", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def available() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        return f"chromium or chromedriver absent ({CHROMIUM}, {CHROMEDRIVER}): apt-get install chromium chromium-driver"
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed: pip install '.[test]'"
    return None


def chromium(profile: Path, width: int = 1000, height: int = 900, dark: bool = False) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    if dark:
        options.add_argument("--force-dark-mode")
        options.add_argument("--blink-settings=preferredColorScheme=0")
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def until(check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Poll `check` until it returns something true; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = check()
        except Exception:  # the page is being replaced: look again
            found = None
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG, decoded by hand (no imaging library)."""
    import struct
    import zlib

    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, data, width, height, kind = 8, b"", 0, 0, 0
    while pos < len(png):
        length, chunk = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if chunk == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and kind in (2, 6), (depth, kind)
        elif chunk == b"IDAT":
            data += body
        pos += 12 + length
    raw = zlib.decompress(data)
    bpp = 3 if kind == 2 else 4
    stride = width * bpp
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind_of_filter = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = previous[x]
            c = previous[x - bpp] if x >= bpp else 0
            if kind_of_filter == 1:
                line[x] = (line[x] + a) & 255
            elif kind_of_filter == 2:
                line[x] = (line[x] + b) & 255
            elif kind_of_filter == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind_of_filter == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(row) for row in rows]


def colours(png: bytes) -> set[bytes]:
    """The distinct RGB colours of a screenshot."""
    width, _, rows = pixels(png)
    bpp = len(rows[0]) // width
    return {row[x:x + 3] for row in rows for x in range(0, len(row), bpp)}


def not_blank(png: bytes) -> bool:
    """A screenshot that drew something: text and lines make many colours (anti-aliasing); a blank page one."""
    return len(colours(png)) > 20
