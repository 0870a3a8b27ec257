"""`fudge report`: a fight played from the command line with typed dice (the same report every run), then
reported as HTML and Markdown by a separate process. Names from sheets are hostile HTML and Markdown.

The fight: Grok (a sheet joined under a name full of markup) hits Brynhild in round 1 (typed +3 against -2),
the GM undoes it and plays round 1 again (+2 against -1), Grok spends a fudge point of luck, a branch
is made, and the seed is revealed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.projections.luck import chi_square, p_value_2dof
from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
GROK = '<i>Grok</i> & "Co"'
BRYNHILD = "Brynhild"


def play(store: Path) -> None:
    """The fight above, each command its own process."""
    steps: list[tuple[str, ...]] = [
        ("new", "skirmish"),
        ("join", str(SHEETS / "snorri.toml"), "--as", GROK),
        ("join", str(SHEETS / "brynhild.toml")),
        ("exchange", GROK, BRYNHILD, "-d", f"{GROK}=+ + + 0", "-d", f"{BRYNHILD}=- - 0 0"),
        ("undo",),
        ("exchange", GROK, BRYNHILD, "-d", f"{GROK}=+ + 0 0", "-d", f"{BRYNHILD}=0 0 0 -"),
        ("exchange", GROK, BRYNHILD, "-d", f"{GROK}=- - - 0", "-d", f"{BRYNHILD}=+ 0 0 0"),
        ("spend", GROK, "luck", "-d", "+ 0 0 0"),
        ("branch", "what-if", "--at", "8"),
        ("use", "skirmish"),
        ("reveal-seed",),
    ]
    for args in steps:
        done = fudge(*args, store=store)
        assert done.returncode == 0, (args, done.stderr)


@pytest.fixture(scope="module")
def fight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("report") / "fudge.db"
    play(store)
    return store


def report(store: Path, *args: str) -> Any:
    return fudge("report", *args, store=store)


def test_html_report_tells_the_story_escaped_and_offline(fight: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = report(fight, "skirmish", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "report of skirmish written to" in done.stderr
    page = out.read_text()
    assert "<i>Grok" not in page and "&lt;i&gt;Grok&lt;/i&gt; &amp; &quot;Co&quot;" in page  # the name is text
    for heading in ("The story", "Wounds over time", "Luck", "Dice fairness", "Fudge points spent", "Trust"):
        assert f"<h2>{heading}</h2>" in page
    assert "<h3>Before the first round</h3>" in page and "<h3>Round 2</h3>" in page
    assert re.search(r"<li class=\"undone\">.*?undone by event", page)  # the undone exchange, struck through
    # the words of what commands did (projections.consequences): the undo, and what the fudge point changed
    assert '<span class="cons c-undo">undid &lt;i&gt;Grok&lt;/i&gt; &amp; &quot;Co&quot;&#x27;s exchange with Brynhild' in page
    spent = re.search(r'<section id="points">.*?</section>', page, re.S)
    assert spent is not None and "luck" in spent.group(0)
    assert "hits Brynhild: Very Hurt (was &lt;i&gt;Grok&lt;/i&gt; &amp; &quot;Co&quot; Poor" in spent.group(0)
    assert page.count('<svg class="chart"') == 2 and page.count("<polyline") == 2
    assert "Branches of this fight: <b>what-if</b> (after event 8)" in page
    assert "events verified: hash chain intact, rules agree" in page
    assert "seed revealed" in page
    # offline: nothing fetched, no script, no external stylesheet or image
    assert not re.search(r"<(script|link|img|iframe)\b", page)
    bare = page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # SVG's namespace name, never fetched
    assert "http://" not in bare and "https://" not in bare


def test_luck_and_fairness_are_the_logs(fight: Path, tmp_path: Path) -> None:
    """The typed faces, counted by hand from `play`: every die thrown, undone or not, counts for fairness."""
    out = tmp_path / "report.html"
    assert report(fight, "-o", str(out)).returncode == 0
    page = out.read_text()
    # Grok's faces: + + + 0 (undone) | + + 0 0 | - - - 0 | + 0 0 0 (the luck reroll)
    grok = [1, 1, 1, 0, 1, 1, 0, 0, -1, -1, -1, 0, 1, 0, 0, 0]
    counts = (grok.count(-1), grok.count(0), grok.count(1))
    assert counts == (3, 7, 6)
    row = re.search(r"<tr><td>&lt;i&gt;Grok&lt;/i&gt; &amp; &quot;Co&quot;</td><td>typed</td>(.*?)</tr>", page)
    assert row is not None, page
    cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(1))
    assert cells[:4] == ["16", "3", "7", "6"]
    assert cells[4] == f"{chi_square(counts):.2f}" and cells[5] == f"{p_value_2dof(chi_square(counts)):.3f}"
    # the undone +3: 76/81 below, 4/81 the same: 78/81 = 96%, struck through; the +2 in force: 66/81 + 5/81
    # = 71/81 = 88%
    assert re.search(r'<tr class="undone"><td class="num">5</td>.*?<td class="num">\+3</td>'
                     r'<td class="num">96%</td>', page)
    assert re.search(r'<tr><td class="num">\d+</td><td class="num">1</td><td>&lt;i&gt;Grok.*?<td class="num">\+2</td>'
                     r'<td class="num">88%</td>', page)


def test_markdown_report_for_a_forum(fight: Path) -> None:
    done = report(fight, "skirmish", "--format", "md")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith("## skirmish: after-action report")
    assert "| Combatant | Wounds | Rolls | Luck | Points spent |" in text
    assert '&lt;i&gt;Grok&lt;/i&gt; &amp; "Co"' in text and "<i>" not in text  # markup from the log stays text
    assert "~~" in text and "(undone by event" in text
    assert text.count("**Round 1**") == 1 and text.count("**Before the first round**") == 1  # the undo: round 1
    assert "Receipt `" in text and "revealed at event" in text


def test_a_bad_format_is_one_error_line(fight: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.pdf"
    done = report(fight, "--format", "pdf", "-o", str(out))
    assert done.returncode != 0 and not out.exists()
    assert done.stderr.startswith("error: --format pdf: choose html or md") and "Traceback" not in done.stderr


def test_an_unknown_fight_is_one_error_line(fight: Path) -> None:
    done = report(fight, "nosuch")
    assert done.returncode != 0 and done.stderr.startswith("error: ") and "Traceback" not in done.stderr


def test_each_command_gets_the_words_of_its_consequences(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The story asks projections.consequences for each command's words, given the states before and after it
    and its records, and shows them escaped under the command (here a stand-in of that projection)."""
    import sys
    import types
    from dataclasses import dataclass

    from fudge_combat.cli.web.html import events_html
    from fudge_combat.cli.web.story import steps
    from fudge_combat.service.fights import Fights
    from fudge_combat.store.sqlite import SqliteStore

    @dataclass
    class Consequence:
        kind: str
        text: str

    asked = []

    def consequences(before: Any, after: Any, records: list[Any], undone: Any = ()) -> list[Consequence]:
        asked.append((before.round, after.round, [r.seq for r in records]))
        return [Consequence("round", f"<round {after.round}>")] if after.round != before.round else []

    stand_in = types.ModuleType("fudge_combat.projections.consequences")
    stand_in.consequences = consequences  # type: ignore[attr-defined]
    stand_in.touched = lambda log, records: []  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fudge_combat.projections.consequences", stand_in)
    records = Fights(SqliteStore(fight)).log("skirmish")
    story = steps(records)
    assert len(asked) == len(story) and [seq for _, _, seqs in asked for seq in seqs] == [r.seq for r in records]
    assert asked[3] == (0, 1, [4, 5, 6, 7, 8])  # the first exchange: round 1 begins
    assert story[3].consequences == [("round", "<round 1>")] and asked[4][:2] == (1, 0)  # the undo takes it back
    assert '<span class="cons c-round">&lt;round 1&gt;</span>' in events_html(story)
    last = steps(records, keep=3)  # the live page's last commands: the same words, the same states
    assert [(s.command, s.consequences) for s in last] == [(s.command, s.consequences) for s in story[-3:]]


def test_the_last_commands_read_as_the_whole_story_does(fight: Path) -> None:
    """The live page walks only its last commands (the state before them folded once): their lines, rounds and
    undone marks are those of the whole log's story, wherever the cut falls (undo, fudge point, branch)."""
    from fudge_combat.cli.web.story import steps
    from fudge_combat.service.fights import Fights
    from fudge_combat.store.sqlite import SqliteStore

    records = Fights(SqliteStore(fight)).log("skirmish")
    story = steps(records)
    for keep in range(1, len(story) + 1):
        assert [(s.lines, s.round) for s in steps(records, keep=keep)] == [(s.lines, s.round) for s in story[-keep:]]


def test_a_report_of_an_altered_log_says_so(fight: Path, tmp_path: Path) -> None:
    """A face changed in the store behind fudge's back (A-VERIFY-1): the report is written, its trust footer
    says the log does not verify and where, and the command exits 3 with one error line."""
    import shutil
    import sqlite3

    copy = tmp_path / "copy"
    shutil.copytree(fight.parent, copy)
    store = copy / "fudge.db"
    with sqlite3.connect(store) as db:
        (body,) = db.execute("SELECT body FROM events WHERE seq = 11 AND fight = "
                             "(SELECT id FROM fights WHERE name = 'skirmish')").fetchone()
        assert '"faces":[1,1,0,0]' in body
        db.execute("UPDATE events SET body = ? WHERE seq = 11 AND fight = (SELECT id FROM fights WHERE name = 'skirmish')",
                   (body.replace('"faces":[1,1,0,0]', '"faces":[1,1,1,0]'),))
    out = tmp_path / "report.html"
    done = report(store, "skirmish", "-o", str(out))
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1].startswith("error: skirmish: event 11: ") and "Traceback" not in done.stderr
    page = out.read_text()
    assert '<p class="verdict-bad">DOES NOT VERIFY: event 11: ' in page and "events verified" not in page
