"""The players' board as `fudge serve` sends it, read byte by byte over HTTP (the page in a browser:
tests/test_browser.py): wounds the GM shows in words leave the server as words only, whatever endpoint
(the page, board.json, the event stream); the GM's choice is kept in the GM's folder, not in the log; the
page is under 100 KB, fetches nothing, carries a strict Content-Security-Policy, and shows hostile names
as text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import stat
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.processes import ROOT, copied, fudge

pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install '.[serve]'")

from tests.browser import served  # noqa: E402  (after the skip)

SHEETS = ROOT / "examples" / "sheets"
GROK = '<i>Grok</i> & "Co"'


def play_the_bridge(store: Path) -> None:
    """A phases fight of four (sheets of kind pc: Leroy, Grok from Snorri's; of kind npc: Cutthroat,
    Brynhild), dice typed: Leroy hurts Brynhild, Grok takes Cutthroat out, Brynhild badly hurts Leroy, and
    it is Leroy's turn again."""
    for args in [("new", "The Bridge", "--rules", "fudge-phases"),
                 ("join", str(SHEETS / "leroy.toml"), "--side", "heroes"),
                 ("join", str(SHEETS / "snorri.toml"), "--side", "heroes", "--as", GROK),
                 ("join", str(SHEETS / "cutthroat.toml"), "--side", "bandits"),
                 ("join", str(SHEETS / "brynhild.toml"), "--side", "bandits"),
                 ("round", "-d", "Leroy=+ + 0 0", "-d", f"{GROK}=+ 0 0 0", "-d", "Cutthroat=0 0 0 -",
                  "-d", "Brynhild=0 0 - - -"),
                 ("next",), ("attack", "Brynhild", "-d", "Leroy=+ + 0 0", "-d", "Brynhild=0 0 0 -"),
                 ("next",), ("attack", "Cutthroat", "-d", f"{GROK}=+ + + 0", "-d", "Cutthroat=- 0 0 0"),
                 ("next",), ("attack", "Leroy", "-d", "Brynhild=+ + + 0", "-d", "Leroy=- - 0 0"),
                 ("next",)]:
        done = fudge(*args, store=store)
        assert done.returncode == 0, (args, done.stderr)


@pytest.fixture(scope="module")
def bridge(the_bridge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's copy of the fight played once by `fudge` processes (tests/conftest.py)."""
    return copied(the_bridge, tmp_path_factory.mktemp("bridge"))


def get(url: str) -> tuple[bytes, dict[str, str]]:
    with urllib.request.urlopen(url, timeout=20) as response:
        return response.read(), {name.lower(): value for name, value in response.headers.items()}


def first_message(url: str) -> bytes:
    """The event stream's first `data:` line, as sent."""
    with urllib.request.urlopen(url + "events", timeout=20) as stream:
        for line in stream:
            if line.startswith(b"data: "):
                return bytes(line)
    raise AssertionError("the stream sent no message")


def everything_sent(store: Path, *args: str) -> tuple[list[bytes], str]:
    """Every byte a player's browser gets from each endpoint (the page, board.json, the stream's first
    message), and what `fudge serve` told the GM."""
    with served(store, *args) as (url, _, process):
        sent = [get(url)[0], get(url + "board.json")[0], first_message(url)]
        told = process.stdout.readline() if process.stdout else ""
    return sent, told


def cards_of(page: str) -> dict[str, str]:
    """Each fighter's card in the page's HTML, by the name it shows (escaped as sent)."""
    found = re.findall(r'<article class="card[^"]*"[^>]*>(.*?)</article>', page, re.S)
    return {re.search(r"<b>(.*?)</b>", card, re.S).group(1): card for card in found}  # type: ignore[union-attr]


def test_wounds_shown_in_words_leave_the_server_as_words_only(bridge: Path) -> None:
    """By default the NPCs' sheets (Brynhild: Hurt -1; Cutthroat: Near Death) are words, the PCs' exact
    (Leroy: Very Hurt -2). In every byte of every endpoint: Brynhild and Cutthroat have no boxes, level,
    penalty or mechanics line (a blow's line carries the damage and the wound penalty); Leroy has his.
    Then `--wounds exact` sends their tracks: the same reading finds them, so it can find a leak."""
    sent, told = everything_sent(bridge)
    assert told == "players see wounds exact for Leroy, <i>Grok</i> & \"Co\"; in words for Cutthroat, Brynhild " \
                   "(--wounds npc-words)\n", told
    pages = [sent[0].decode(), json.loads(sent[1])["html"], json.loads(sent[2].removeprefix(b"data: "))["html"]]
    for text in [*pages, *(body.decode() for body in sent)]:  # as drawn, and as sent (JSON's escapes and all)
        for leak in ("Brynhild is Hurt", "Brynhild is wounded", "Cutthroat is out of the fight (Near Death)",
                     r"\u2192Brynhild", r"\u2192Cutthroat", "→Brynhild", "→Cutthroat", "-1 wound: Hurt", "damage 4",
                     "damage 10", "Near Death</span>", ">Hurt</span>"):
            assert leak not in text, leak
    for text in pages:
        cards = cards_of(text)
        assert set(cards) == {"Leroy", "&lt;i&gt;Grok&lt;/i&gt; &amp; &quot;Co&quot;", "Cutthroat", "Brynhild"}
        for hidden, word in (("Brynhild", "hurt"), ("Cutthroat", "down")):
            assert f'<span class="lvl wound' in cards[hidden] and f">{word}</span>" in cards[hidden], cards[hidden]
            assert "bx" not in cards[hidden] and "pen" not in cards[hidden] and "track" not in cards[hidden]
        assert "Very Hurt</span>" in cards["Leroy"] and "−2</span>" in cards["Leroy"]
        # every box marked in the bytes is Leroy's: Brynhild's Hurt box and Cutthroat's Near Death one were not sent
        assert text.count('class="bx on"') == 1, text.count('class="bx on"')
        assert "Leroy is Very Hurt." in text and "Brynhild is hurt." in text and "Cutthroat is down." in text
    assert pages[1] == pages[2] and pages[1] in pages[0]

    sent, told = everything_sent(bridge, "--wounds", "exact")
    assert "players see wounds exact for Leroy, <i>Grok</i> & \"Co\", Cutthroat, Brynhild" in told, told
    for text in (sent[0].decode(), json.loads(sent[1])["html"], json.loads(sent[2].removeprefix(b"data: "))["html"]):
        assert text.count('class="bx on"') == 3 and "Brynhild is Hurt." in text and "damage 4" in text


def test_the_choice_per_fighter_is_kept_in_the_gms_folder_not_in_the_log(the_bridge: Path, tmp_path: Path) -> None:
    """`--words-for` and `--exact-for` take names as typed at the table; the choice is kept in board.json in
    the GM's folder (readable by the GM alone) and used by the next `fudge serve` given none; the log is
    untouched."""
    store = copied(the_bridge, tmp_path)  # the fight played once by `fudge` processes: this test's own copy
    before = fudge("log", store=store).stdout
    sent, told = everything_sent(store, "--wounds", "words", "--exact-for", "bry")
    assert told.startswith("players see wounds exact for Brynhild; in words for Leroy, "), told
    assert sent[0].decode().count('class="bx on"') == 1  # Brynhild's Hurt box, Leroy's is not sent
    settings = tmp_path / "board.json"  # beside the snapshot key (tests/processes.py: FUDGE_KEY_FILE)
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    kept = json.loads(settings.read_text())
    (entry,) = kept["fights"].values()
    assert entry == {"wounds": "words", "words_for": [], "exact_for": ["brynhild"]}
    _, told = everything_sent(store)  # nothing given: the kept choice
    assert told.startswith("players see wounds exact for Brynhild; in words for Leroy, "), told
    assert fudge("log", store=store).stdout == before  # nothing appended
    assert b"exact_for" not in store.read_bytes()


@pytest.mark.parametrize(("args", "said"), [
    (("--words-for", "nobody"), "error: --words-for 'nobody': no fighter of fight The Bridge is named so "
                                "(its fighters: Leroy, <i>Grok</i> & \"Co\", Cutthroat, Brynhild); `fudge join` them first\n"),
    (("--words-for", "leroy", "--exact-for", "LER"), "error: Leroy is given to both --words-for and --exact-for: "
                                                     "give one of them\n"),
    (("--wounds", "some"), "error: --wounds 'some' is not a choice: exact, words or npc-words\n"),
])
def test_a_wrong_choice_is_one_line_and_keeps_nothing(bridge: Path, args: tuple[str, ...], said: str) -> None:
    settings = bridge.parent / "board.json"
    kept = settings.read_bytes() if settings.exists() else None
    done = fudge("serve", "--port", "0", *args, store=bridge)
    assert (done.returncode, done.stdout) == (1, "") and done.stderr == said, done.stderr
    assert (settings.read_bytes() if settings.exists() else None) == kept


def test_a_settings_file_fudge_did_not_write_is_refused_and_a_running_board_shows_words(tmp_path: Path) -> None:
    from fudge_combat.cli.web.wounds import ALL_WORDS, view_of

    store = tmp_path / "fudge.db"
    assert fudge("new", "duel", store=store).returncode == 0
    (tmp_path / "board.json").write_text('{"format": "fudge-board-view", "version": 1, "fights": {"x": {"wounds": 3}}}')
    done = fudge("serve", "--port", "0", store=store)
    assert done.returncode == 1 and done.stderr.startswith(f"error: the board's settings {tmp_path / 'board.json'} "
                                                           "are not a file fudge wrote: delete it"), done.stderr
    assert view_of("x", tmp_path / "board.json") == ALL_WORDS


class Parsed(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: set[str] = set()
        self.blocks: dict[str, list[str]] = {"script": [], "style": []}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes |= {name for name, _ in attrs}
        self._in = tag if tag in self.blocks else None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.blocks[self._in].append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in = None


def digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, bytes, dict[str, str]]]:
    """A page whose fight, fighter and side names are markup (sheets are untrusted), served: (url, page, headers)."""
    store = tmp_path_factory.mktemp("hostile") / "fudge.db"
    for args in [("new", "</title><script>alert(1)</script>"),
                 ("join", str(SHEETS / "snorri.toml"), "--as", "<img src/onerror/alert(2)>",
                  "--side", '"><style>*{display:none}</style>'),
                 ("join", str(SHEETS / "brynhild.toml"), "--side", "</article><script src=//evil.test/x.js></script>"),
                 ("exchange", "<img", "Brynhild")]:
        done = fudge(*args, store=store)
        assert done.returncode == 0, (args, done.stderr)
    with served(store) as (url, _, _):
        page, headers = get(url)
        yield url, page, headers


def test_hostile_names_are_text_and_the_page_runs_its_own_script_alone(hostile: tuple[str, bytes, dict[str, str]]) -> None:
    _, page, headers = hostile
    parsed = Parsed()
    parsed.feed(page.decode())
    assert not {"img", "iframe", "object", "embed", "link", "base", "form"} & set(parsed.tags), parsed.tags
    assert parsed.tags.count("script") == 1 and parsed.tags.count("style") == 1
    assert not {name for name in parsed.attributes if name.startswith("on")} and "style" not in parsed.attributes
    assert "src" not in parsed.attributes and "href" not in parsed.attributes  # nothing fetched from anywhere
    text = page.decode()
    assert "&lt;img src/onerror/alert(2)&gt;" in text and "&lt;/article&gt;&lt;script src=//evil.test/x.js" in text
    assert "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in text
    policy = headers["content-security-policy"]
    rules = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert rules["default-src"] == "'none'" and rules["connect-src"] == "'self'" and rules["base-uri"] == "'none'"
    assert rules["script-src"] == digest("".join(parsed.blocks["script"]))  # this script, and no other
    assert rules["style-src"] == digest("".join(parsed.blocks["style"]))
    assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"


def test_the_page_weighs_under_100_kb(bridge: Path) -> None:
    """The whole page, four fighters and the last commands, in one response (nothing else is fetched but
    its event stream)."""
    with served(bridge, "--wounds", "exact") as (url, _, _):
        page, _ = get(url)
    assert 5_000 < len(page) < 100_000, len(page)


def test_each_side_colour_keeps_white_text_readable() -> None:
    """WCAG 2: white on each side's colour is at least 4.5:1 (the side's name is written on it)."""
    from fudge_combat.cli.web.cards import PALETTE

    def luminance(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    ratios = {colour: 1.05 / (luminance(colour) + 0.05) for colour in PALETTE}
    assert all(ratio >= 4.5 for ratio in ratios.values()), ratios
    assert len(set(PALETTE)) == len(PALETTE) == 8


def test_a_condition_the_gm_marks_is_on_the_fighters_card(the_bridge: Path, tmp_path: Path) -> None:
    """`fudge mark` shows on the players' board: the condition, its note and the round it lasts to, on the
    marked fighter's card alone; `fudge unmark` takes it off."""
    store = copied(the_bridge, tmp_path)  # the fight played once by `fudge` processes: this test's own copy
    assert fudge("mark", "Leroy", "prone", "--rounds", "2", "--note", "tripped", store=store).returncode == 0
    with served(store) as (url, _, _process):
        cards = cards_of(get(url)[0].decode())
    assert "prone until round 3: tripped" in cards["Leroy"]
    assert not any("prone" in card for name, card in cards.items() if name != "Leroy")
    assert fudge("unmark", "Leroy", "prone", store=store).returncode == 0
    with served(store) as (url, _, _process):
        assert "prone" not in cards_of(get(url)[0].decode())["Leroy"]
