"""What players see, in a real browser (Debian's chromium, tests/browser.py): the live board of `fudge serve`
changing when another process writes a command, the guest's secret path, and a report's charts drawn.

One browser for the module; each server is `fudge serve --port 0` as its own process, stopped at the end.
Screenshots go to the test's folder, and with FUDGE_SCREENSHOTS=1 to docs/images/ (the players' board on a desktop,
a phone, a TV and in dark mode) or docs/ (the report): the pictures of docs/players.md.
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
from tests.processes import ROOT, copied, fudge
from tests.test_report import BRYNHILD, GROK, SHEETS

DOCS = ROOT / "docs"
IMAGES = DOCS / "images"


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


def shot(driver: Any, tmp_path: Path, name: str, docs: Path | None = DOCS) -> bytes:
    """A screenshot in the test's folder, and in `docs` (None: nowhere else) with FUDGE_SCREENSHOTS=1."""
    png = driver.get_screenshot_as_png()
    (tmp_path / name).write_bytes(png)
    if os.environ.get("FUDGE_SCREENSHOTS") and docs is not None:
        docs.mkdir(exist_ok=True)
        (docs / name).write_bytes(png)
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
    """The live part of the page as a player reads it: the head, the cards, the latest commands."""
    return str(driver.find_element("id", "live").text)


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
        assert "badly hurt" in until(lambda: board_text(browser), "the board under the secret path")  # Brynhild: an NPC
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
        assert GROK in text and "badly hurt" in text  # Brynhild (an NPC's sheet): Very Hurt, said in words
        assert GROK in browser.find_element("id", "events").text
        assert not browser.find_elements("css selector", "#live i")  # the name's markup is text
        seq = browser.find_element("tag name", "body").get_attribute("data-seq")
        # the GM plays round 2 from his own terminal: the page changes, nobody reloads it
        done = fudge("exchange", GROK, BRYNHILD, "-d", f"{GROK}=+ + + 0", "-d", f"{BRYNHILD}=- 0 0 0", store=fight)
        assert done.returncode == 0, done.stderr
        until(lambda: "round 2" in board_text(browser), "round 2 on the board")
        assert browser.find_element("tag name", "body").get_attribute("data-seq") != seq
        events = browser.find_element("id", "events").text  # what the command did, in plain sentences
        assert events.startswith(f"Round 2 begins. {GROK} hits Brynhild. Brynhild is down."), events
        assert browser.find_element("css selector", "#live .note").text == f"only {GROK}'s side is standing"
        assert not_blank(shot(browser, tmp_path, "board.png", docs=None))
        browser.set_window_size(390, 844)  # a phone: the board wraps, nothing wider than the screen
        width = browser.execute_script("return document.documentElement.scrollWidth")
        inner = browser.execute_script("return window.innerWidth")
        assert width <= inner, (width, inner)
        shot(browser, tmp_path, "board-phone.png", docs=None)
        background = "return getComputedStyle(document.body).backgroundColor"
        light = browser.execute_script(background)
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        try:
            dark = browser.execute_script(background)
            assert dark != light and sum(map(int, re.findall(r"\d+", dark))) < 150, (light, dark)  # a dark page
            shot(browser, tmp_path, "board-dark.png", docs=None)
        finally:
            browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        browser.get(url + "?large")  # the address `fudge serve --large` documented: TV mode
        until(lambda: "tv" in (browser.find_element("tag name", "body").get_attribute("class") or ""), "TV mode")


@pytest.fixture(scope="module")
def bridge(the_bridge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four fighters in a phases fight, Leroy's turn (tests/test_board_page.py: Brynhild and Cutthroat are NPCs,
    shown in words; Leroy and Grok exact): the module's copy of the fight played once (tests/conftest.py)."""
    return copied(the_bridge, tmp_path_factory.mktemp("bridge"))


def viewport(driver: Any, width: int, height: int, scale: float = 1, mobile: bool = False) -> None:
    """The page's size as a device's (Chromium's device emulation: the window's own size includes no frame)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                                  "deviceScaleFactor": scale, "mobile": mobile})


def scheme(driver: Any, value: str) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": value}] if value else []})


def px(driver: Any, selector: str, prop: str) -> float:
    return float(driver.execute_script(
        f"return parseFloat(getComputedStyle(document.querySelector({selector!r})).{prop})"))


def rgb(driver: Any, script: str) -> int:
    """The sum of an rgb() colour's channels: under 150 is a dark colour, over 600 a light one."""
    return sum(map(int, re.findall(r"\d+", str(driver.execute_script(script)))[:3]))


def test_the_players_board_on_a_desktop_a_phone_a_tv_and_in_the_dark(browser: Any, bridge: Path, tmp_path: Path) -> None:
    """Cards for four fighters, whose turn the largest line, the NPCs' wounds in words, the mechanics behind
    "details"; on a 390x844 phone all four cards in view and nothing wider than the screen; TV mode's large
    type; dark mode from the device and from the switch. The four pictures of docs/players.md."""
    with served(bridge) as (url, _, _):
        try:
            viewport(browser, 1280, 800)
            browser.get(url)
            until(lambda: "live" in browser.find_element("id", "conn").text, "the event stream to connect")
            cards = browser.find_elements("css selector", "#board .card")
            assert [card.find_element("css selector", ".name b").text for card in cards] == \
                ["Leroy", GROK, "Brynhild", "Cutthroat"]  # turn order; the name's markup shown as text
            turn = browser.find_element("id", "turn")
            assert turn.text == "▶ Leroy's turn"
            now = browser.find_elements("css selector", "#board .card.now")
            assert len(now) == 1 and now[0] == cards[0]
            assert px(browser, "#turn", "fontSize") >= 1.4 * px(browser, "#board .card .name", "fontSize")
            leroy, grok, brynhild, cutthroat = cards
            assert leroy.find_element("css selector", ".lvl").text == "Very Hurt"
            assert len(leroy.find_elements("css selector", ".bx")) == 7
            assert len(leroy.find_elements("css selector", ".bx.on")) == 1
            assert brynhild.find_element("css selector", ".lvl").text == "hurt"
            assert cutthroat.find_element("css selector", ".lvl").text == "down"
            assert not brynhild.find_elements("css selector", ".bx") and not cutthroat.find_elements("css selector", ".bx")
            sides = {card.find_element("css selector", ".side").value_of_css_property("background-color") for card in cards}
            assert len(sides) == 2  # one colour a side: heroes, bandits
            events = browser.find_element("id", "events")
            assert "Brynhild hits Leroy. Leroy is Very Hurt." in events.text
            assert "RD +" not in browser.find_element("id", "live").text and "rolls initiative" not in events.text
            assert not_blank(shot(browser, tmp_path, "board-desktop.png", IMAGES))
            browser.find_element("id", "t-details").click()  # the mechanics, for who wants them
            assert "Leroy rolls initiative" in events.text and "phases + 0 --" in leroy.text
            browser.find_element("id", "t-details").click()
            assert "Leroy rolls initiative" not in events.text

            viewport(browser, 390, 844, scale=2, mobile=True)  # a phone
            browser.get(url)
            until(lambda: "live" in browser.find_element("id", "conn").text, "the stream, on the phone")
            assert browser.execute_script("return innerWidth") == 390
            scroll = browser.execute_script("return document.scrollingElement.scrollWidth")
            assert scroll <= 390, scroll
            edges = browser.execute_script("return [...document.querySelectorAll('#board .card')]"
                                           ".map(c => { const r = c.getBoundingClientRect(); return [r.right, r.bottom]; })")
            assert len(edges) == 4 and all(right <= 390 and bottom <= 844 for right, bottom in edges), edges
            assert not_blank(shot(browser, tmp_path, "board-phone.png", IMAGES))

            scheme(browser, "dark")  # the device says dark: the page follows
            background = "return getComputedStyle(document.body).backgroundColor"
            assert rgb(browser, background) < 150
            # the switch follows at the media query's `change` event, a task after the style: waited for
            until(lambda: browser.find_element("id", "t-dark").is_selected(), "the dark switch following the device")
            assert not_blank(shot(browser, tmp_path, "board-dark.png", IMAGES))
            browser.find_element("id", "t-dark").click()  # the switch: light on a dark device, kept on reload
            assert rgb(browser, background) > 600
            browser.refresh()
            until(lambda: rgb(browser, background) > 600, "the light choice kept")
            browser.find_element("id", "t-dark").click()
            assert rgb(browser, background) < 150
            scheme(browser, "light")
            assert rgb(browser, background) > 600  # back to following the device
            browser.execute_script("localStorage.clear()")

            viewport(browser, 1920, 1080)  # a TV across the table
            browser.get(url + "?tv=1")
            until(lambda: "live" in browser.find_element("id", "conn").text, "the stream, on the TV")
            assert "tv" in (browser.find_element("tag name", "body").get_attribute("class") or "")
            assert px(browser, "body", "fontSize") >= 34 and px(browser, "#turn", "fontSize") >= 60
            assert browser.execute_script("return document.scrollingElement.scrollWidth") <= 1920
            assert not_blank(shot(browser, tmp_path, "board-tv.png", IMAGES))
        finally:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            scheme(browser, "")


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
