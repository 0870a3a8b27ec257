"""What players see, in a real browser (Debian's chromium, tests/browser.py): the live board of `fudge serve`
changing when another process writes a command, the guest's secret path, and a report's charts drawn.

One browser for the module; each server is `fudge serve --port 0` as its own process, stopped at the end.
Screenshots go to the test's folder, and to docs/ with FUDGE_SCREENSHOTS=1 (the pictures of docs/players.md).
"""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import available, chromium, not_blank, served, status_of, until
from tests.processes import ROOT, fudge
from tests.test_report import BRYNHILD, GROK, SHEETS

DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One browser for a test module (starting one costs a second or two)."""
    reason = available()
    if reason:
        pytest.skip(reason)
    driver = chromium(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver: Any, tmp_path: Path, name: str) -> bytes:
    png = driver.get_screenshot_as_png()
    (tmp_path / name).write_bytes(png)
    if os.environ.get("FUDGE_SCREENSHOTS"):
        DOCS.mkdir(exist_ok=True)
        (DOCS / name).write_bytes(png)
    return png


@pytest.fixture(scope="module")
def fight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fight in round 1: Grok (a name full of markup) has hit Brynhild. The tests run in order: the guest
    reads it, the board test plays round 2, the report reports both rounds."""
    store = tmp_path_factory.mktemp("served") / "fudge.db"
    for args in [("new", "skirmish"), ("join", str(SHEETS / "snorri.toml"), "--as", GROK),
                 ("join", str(SHEETS / "brynhild.toml")),
                 ("exchange", GROK, BRYNHILD, "-d", f"{GROK}=+ + 0 0", "-d", f"{BRYNHILD}=0 0 0 -")]:
        done = fudge(*args, store=store)
        assert done.returncode == 0, (args, done.stderr)
    return store


def board_text(driver: Any) -> str:
    return str(driver.find_element("id", "board").text)


def test_the_table_network_gets_a_secret_path_and_nothing_else(browser: Any, fight: Path) -> None:
    with served(fight, "--host", "0.0.0.0") as (url, _, process):
        assert url.count("/") == 4 and len(url.rstrip("/").rsplit("/", 1)[1]) >= 20, url  # http://H:P/TOKEN/
        local = url.replace("0.0.0.0", "127.0.0.1")
        root = local.rsplit("/", 2)[0] + "/"
        assert status_of(local) == 200
        for guess in (root, root + "events", root + "board.json", local + "nope", root + "x" + local.rsplit("/", 2)[1]):
            assert status_of(guess) == 404, guess
        request = urllib.request.Request(local, data=b"x", method="POST")  # no route writes
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 405
        browser.get(local)
        assert "Very Hurt" in until(lambda: board_text(browser), "the board under the secret path")
    warning = process.stderr.read() if process.stderr else ""
    assert warning.startswith("warning: serving to the network on 0.0.0.0"), warning


def test_the_board_follows_commands_written_by_another_process(browser: Any, fight: Path, tmp_path: Path) -> None:
    with served(fight) as (url, _, _):
        browser.set_window_size(1000, 900)
        browser.get(url)
        # the stream's first message redraws the board: read it once it came
        until(lambda: "live" in browser.find_element("id", "conn").text, "the event stream to connect")
        text = board_text(browser)
        assert "skirmish" in text and "round 1" in text
        assert "<i>Grok</i> &" in text and "Very Hurt" in text  # the board's name column cuts a long name
        assert GROK in browser.find_element("id", "events").text
        assert not browser.find_elements("css selector", "#board i, #events i")  # the name's markup is text
        seq = browser.find_element("tag name", "body").get_attribute("data-seq")
        # the GM plays round 2 from his own terminal: the page changes, nobody reloads it
        done = fudge("exchange", GROK, BRYNHILD, "-d", f"{GROK}=+ + + 0", "-d", f"{BRYNHILD}=- 0 0 0", store=fight)
        assert done.returncode == 0, done.stderr
        until(lambda: "round 2" in board_text(browser), "round 2 on the board")
        assert browser.find_element("tag name", "body").get_attribute("data-seq") != seq
        assert "round 2 begins" in browser.find_element("id", "events").text
        said = [element.text for element in browser.find_elements("css selector", "#events .cons")]
        assert said[0].startswith("only ") and "side is standing: `fudge end` ends the battle" in said[0], said
        events = browser.find_element("id", "events").text  # what the command did, in words: the event line
        assert "Brynhild is out of the fight (Near Death)" in events  # says it, so no consequence repeats it
        assert not [line for line in said if line == "Brynhild is out of the fight (Near Death)"], said
        assert not_blank(shot(browser, tmp_path, "board.png"))
        browser.set_window_size(390, 844)  # a phone: the board wraps, nothing wider than the screen
        width = browser.execute_script("return document.documentElement.scrollWidth")
        inner = browser.execute_script("return window.innerWidth")
        assert width <= inner, (width, inner)
        shot(browser, tmp_path, "board-phone.png")
        background = "return getComputedStyle(document.body).backgroundColor"
        light = browser.execute_script(background)
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        try:
            dark = browser.execute_script(background)
            assert dark != light and sum(map(int, re.findall(r"\d+", dark))) < 150, (light, dark)  # a dark page
            shot(browser, tmp_path, "board-dark.png")
        finally:
            browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        browser.get(url + "?large")
        until(lambda: "large" in (browser.find_element("tag name", "body").get_attribute("class") or ""), "large type")


def test_a_report_draws_its_charts(browser: Any, fight: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = fudge("report", "-o", str(out), store=fight)
    assert done.returncode == 0, done.stderr
    browser.set_window_size(1000, 1400)
    browser.get(out.as_uri())
    assert "skirmish: after-action report" in browser.find_element("tag name", "h1").text
    assert "Round 1" in browser.find_element("id", "story").text
    charts = browser.find_elements("css selector", "svg.chart")
    assert len(charts) == 2
    drawn = browser.execute_script(
        "return [...document.querySelectorAll('svg.chart polyline')].map(p => p.getBBox().width)")
    assert all(width > 100 for width in drawn), drawn  # the lines have a size: the browser laid them out
    assert "verified" in browser.find_element("class name", "trust").text
    assert not_blank(shot(browser, tmp_path, "report.png"))
