"""A phases round played as a table plays it: the GM's `fudge play` on a terminal (a pty) and two players on
their own devices (two Chromium browsers, one of a phone's size), each on the link `fudge invite` gave them.

One test, one setup (each browser costs a second or two to start): both players declare sealed from their
phones, the GM sees each request in play as it comes and accepts it, Leroy attacks with his own dice typed,
both phones redraw, and the link the GM revokes in play is refused. Screenshots of both pages land in the
test's folder (and, with FUDGE_SCREENSHOTS=1, in docs/images/ for docs/players.md).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import available, chromium, served, status_of, until
from tests.processes import ROOT, fudge
from tests.test_browser import viewport
from tests.test_players import invite, secrets_of

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install '.[serve]'")

SHEETS = ROOT / "examples" / "sheets"
PHASE_DICE = ("-d", "leroy=+ + 0 -", "-d", "theodora=+ 0 0 -", "-d", "brynhild=+ + + - 0")
IMAGES = ROOT / "docs" / "images"


def gm(store: Path) -> Any:
    """`fudge play watch` on a pty of 40 x 120, with the GM's folder beside the store (its key and secrets)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update({"PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(store.parent / "snapshot.key"),
                "FUDGE_SECRETS_FILE": str(store.parent / "secrets.db"), "XDG_STATE_HOME": str(store.parent / "state"),
                "NO_COLOR": "1", "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"})
    return pexpect.spawn(sys.executable, ["-m", "fudge_combat.cli.main", "--store", str(store), "play", "watch"],
                         env=env, cwd=str(ROOT), encoding="utf-8", timeout=20, dimensions=(40, 120))


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    reason = available()
    if reason:
        pytest.skip(reason)
    phone = chromium(tmp_path / "phone", width=390, height=844)
    viewport(phone, 390, 844, mobile=True)  # a headless window is never narrower than 500 px: a phone's, emulated
    try:
        desktop = chromium(tmp_path / "desktop", width=1000, height=900)
        try:
            yield phone, desktop
        finally:
            desktop.quit()
    finally:
        phone.quit()


def tap(driver: Any, css: str) -> None:
    driver.find_element("css selector", css).click()


def choose(driver: Any, select: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", select)).select_by_value(value)


def said(driver: Any) -> str:
    return str(driver.find_element("id", "said").text)


def seq(driver: Any) -> int:
    return int(driver.find_element("tag name", "body").get_attribute("data-seq"))


def shot(driver: Any, tmp_path: Path, name: str) -> None:
    png = driver.get_screenshot_as_png()
    (tmp_path / name).write_bytes(png)
    if os.environ.get("FUDGE_SCREENSHOTS"):
        IMAGES.mkdir(parents=True, exist_ok=True)
        (IMAGES / name).write_bytes(png)


def test_two_players_on_their_phones_play_a_phases_round_with_the_gm_in_play(
        tmp_path: Path, browsers: tuple[Any, Any]) -> None:
    """PH-1, A-SEAL-1: sealed declarations are sealed on the players' phones (the page's own SHA-256; stance and
    salt kept in the browser) and stay there until a blow needs one: the GM's play then waits, and Leroy's
    phone opens his by itself; typed dice (C-DICE-3) from Leroy's phone; each request shown in the GM's play at
    once and accepted there."""
    store = tmp_path / "fudge.db"
    for args in [("new", "watch", "--rules", "fudge-phases"), ("join", str(SHEETS / "leroy.toml"), "--side", "watch"),
                 ("join", str(SHEETS / "theodora.toml"), "--side", "watch"),
                 ("join", str(SHEETS / "brynhild.toml"), "--side", "raiders"), ("round", *PHASE_DICE)]:
        done = fudge(*args, store=store)
        assert done.returncode == 0, (args, done.stderr)
    leroy_link, theodora_link = invite(store, "Leroy"), invite(store, "Theodora")
    phone, desktop = browsers
    with served(store) as (base, _, _server):
        play = gm(store)
        try:
            play.expect_exact("watch>")
            phone.get(f"{base}p/{leroy_link}/")
            desktop.get(f"{base}p/{theodora_link}/")
            assert until(lambda: "Leroy's player" in phone.page_source and "Theodora's player" in desktop.page_source,
                         "both players' pages")
            width = phone.execute_script("return document.documentElement.scrollWidth")
            assert width <= 390, width  # no horizontal scroll on the phone

            # A-SEAL-1: each player seals a stance; the GM sees a request, never the stance
            choose(phone, "stance", "all-out-offense")
            tap(phone, "#f-declare button")
            play.expect_exact("Leroy's player declares (sealed): accept? y/n")
            assert until(lambda: "waiting for the GM" in said(phone), "Leroy's phone says it asked")
            play.sendline("y")
            play.expect_exact("Leroy seals a declaration")
            choose(desktop, "stance", "all-out-defense")
            tap(desktop, "#f-declare button")
            play.expect_exact("Theodora's player declares (sealed): accept? y/n")
            play.sendline("y")
            play.expect_exact("Theodora seals a declaration")
            assert "all-out" not in play.before  # nothing of either stance reached the GM's terminal
            sealed_at = seq(phone)
            assert until(lambda: seq(phone) >= sealed_at and "sealed" in phone.find_element("id", "live").text
                         and "sealed" in desktop.find_element("id", "live").text, "both boards show two seals")
            assert not [key for key in secrets_of(store) if key.startswith("seal:")]  # not on the GM's machine
            assert until(lambda: "your sealed declaration: all-out offense (kept on this device alone"
                         in phone.find_element("id", "mine").text, "Leroy's own seal on his phone alone")
            assert until(lambda: "your sealed declaration: all-out defense" in desktop.find_element("id", "mine").text,
                         "Theodora's own seal on her page alone")
            for driver, other in ((phone, "all-out defense"), (desktop, "all-out offense")):
                for part in ("mine", "live", "asked"):  # the stances are the forms' choices, never a fighter's
                    assert other not in driver.find_element("id", part).text

            # PH-1: Brynhild passes; Leroy strikes with his own dice, typed on his phone
            play.sendline("n")
            play.expect_exact("Brynhild's turn")
            play.sendline("n")
            play.expect_exact("Leroy's turn")
            assert until(lambda: "your turn" in phone.find_element("id", "yourturn").text, "Leroy's phone says his turn")
            before = (seq(phone), seq(desktop))
            choose(phone, "target", "Brynhild")
            phone.find_element("id", "dice").send_keys("+ + + +")
            tap(phone, "#f-attack button[type=submit], #f-attack button:not([type])")
            play.expect_exact("Leroy's player attacks Brynhild with dice + + + +: accept? y/n")
            play.sendline("y")
            play.expect_exact("Leroy's declaration is sealed on the player's own device: waiting for their page")
            play.expect_exact("Leroy's sealed declaration opens: all-out offense")  # opened by his phone for the blow
            play.expect_exact("watch Leroy>")
            assert until(lambda: seq(phone) > before[0] and seq(desktop) > before[1], "both phones redrawn")
            assert until(lambda: "attacks Brynhild with dice + + + +: accepted" in phone.find_element("id", "asked").text,
                         "Leroy's request accepted on his phone")
            assert "sealed declaration asked for by a blow: opened" in phone.find_element("id", "asked").text
            opened = [key for key in secrets_of(store) if key.startswith("seal:")]
            assert len(opened) == 1  # Leroy's, opened for his blow; Theodora's is still on her page alone
            assert "Theodora" in desktop.find_element("id", "live").text
            shot(phone, tmp_path, "players-phone-own.png")
            shot(desktop, tmp_path, "players-desktop-own.png")

            # C-DICE-3, PH-2: Leroy types the initiative dice he rolled; the GM holds them, and the next
            # round's start rolls them
            phone.find_element("id", "initiative").send_keys("+ 0 0 -")
            tap(phone, "#f-initiative button")
            play.expect_exact("Leroy's player rolls initiative dice + 0 0 - for the next round: accept? y/n")
            play.sendline("y")
            play.expect_exact("Leroy's initiative dice held for the next round")
            assert until(lambda: "held for the next round" in phone.find_element("id", "asked").text,
                         "Leroy's phone says his dice are held")
            play.sendline("round --force")
            play.expect_exact("-d 'Leroy=+ 0 0 -')")
            assert until(lambda: "for the next round: accepted" in phone.find_element("id", "asked").text,
                         "Leroy's phone says his dice were rolled")

            # a revoked link is refused at once: its open page says so, and it opens no more
            play.sendline("invite --revoke Theodora")
            play.expect_exact("Theodora's link is refused from now on")
            assert until(lambda: "ask the GM for yours" in said(desktop), "Theodora's page told of the revocation")
            assert status_of(f"{base}p/{theodora_link}/") == 403
            assert status_of(f"{base}p/{leroy_link}/") == 200
            play.sendline("q")
            play.expect(pexpect.EOF)
        finally:
            if play.isalive():
                play.terminate(force=True)
    log = fudge("log", store=store).stdout
    assert re.search(r"Leroy's sealed declaration opens: all-out offense", log)
    assert "Theodora's sealed declaration opens" not in log  # hers stays sealed: no blow of hers yet
    verified = fudge("verify", store=store)
    assert verified.returncode == 0, verified.stdout + verified.stderr
