"""`fudge report` says what it promises, on a fight of every preset played from the command line (each
command its own process), with typed dice, and a few generated rolls that cannot change the outcome:

- the dice-fairness table counts every Fudge die thrown, per roller and generated/typed apart: the counts
  are taken here straight from the exported log, by walking every event that carries faces (initiative
  dice, PH-2, CT-TABLE, F-INIT-2, AI-INIT-2; luck, sweep and reroll dice included), not through the report's
  code; the Markdown and the HTML show the same rows, columns and verdicts;
- an event voided by an undo or by a point's re-resolution (C-FP-2, FT-PTS) is struck out in both formats;
- who is out of the fight is read where the battle or scene ended: a knockout cleared by `end` (F-STUN-1)
  and a Taken Out cleared by `end-scene` (FT-TRACK-3) still read as out.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"


def sheet(name: str) -> str:
    return str(SHEETS / f"{name}.toml")


# Each preset's fight: (preset, commands, who must read as out of the fight in the report's outcome).
FIGHTS: dict[str, tuple[list[tuple[str, ...]], set[str]]] = {
    "fudge": ([
        ("join", sheet("snorri")), ("join", sheet("brynhild")),
        ("exchange", "Snorri", "Brynhild", "-d", "Snorri=+ + + 0", "-d", "Brynhild=- - 0 0"),
        ("undo",),
        ("exchange", "Snorri", "Brynhild", "-d", "Snorri=+ + 0 0", "-d", "Brynhild=0 0 0 -"),
        ("spend", "Snorri", "luck", "-d", "+ 0 0 0"),  # C-FP-2: the exchange re-resolved, its old events voided
        ("roll", "Snorri", "Sword"), ("roll", "Brynhild", "Axe"),  # generated dice (that wound nobody)
        # F-STUN-1: a stunning blow of Incapacitated knocks Brynhild out; `end` clears the knockout after the battle
        ("exchange", "Snorri", "Brynhild", "--stun", "Snorri", "-d", "Snorri=+ + + +", "-d", "Brynhild=- - - -"),
        ("end",),
    ], {"Brynhild"}),
    "fudge-phases": ([
        ("join", sheet("snorri")), ("join", sheet("brynhild")),
        ("round", "-d", "Snorri=+ 0 0 -", "-d", "Brynhild=0 0 0 0 +"),  # PH-2, CT-TABLE: 4 and 5 dice
        ("next",),
        ("attack", "Brynhild", "Snorri", "-d", "Brynhild=+ 0 0 0", "-d", "Snorri=0 0 - 0"),
        ("next",),
        ("attack", "Snorri", "Brynhild", "-d", "Snorri=+ + 0 -", "-d", "Brynhild=0 - 0 0"),
        ("round", "--force"),  # generated phase dice; the turns left of round 1 given up
        ("round", "--force", "-d", "Snorri=- - 0 0", "-d", "Brynhild=+ + + 0 0"),  # round 2 rolled again
    ], set()),
    "atari-isev": ([
        ("join", sheet("max")), ("join", sheet("cutthroat")), ("join", sheet("dwarzuga")),
        ("declare", "dwarzuga", "--sweep"),
        ("round", "--dice", "dwarzuga=+ + + +", "--dice", "max=+ 0 0 0", "--dice", "cutthroat=0 0 0 0"),  # AI-INIT-2
        ("next",),
        # AI-SWEEP: one roll per blow, Cutthroat dodges, and the luck roll of the wound (AI-WND)
        ("attack", "dwarzuga", "max", "--also", "cutthroat", "--avoid", "none", "--avoid", "dodge",
         "--dice", "dwarzuga=+ + + 0", "--dice", "dwarzuga=0 0 0 0", "--dice", "dwarzuga=+ + + 0",
         "--dice", "cutthroat=- - - -", "--dice", "dwarzuga=0 0 0 0"),
        ("round",),  # generated initiative
    ], {"Max", "Cutthroat"}),  # both blows Near Death (RD +5 and +6 with a damage roll of +0): out of the fight
    "fate": ([
        ("join", sheet("cyrus")), ("join", sheet("finn")),
        ("join", sheet("guard"), "--as", "Guard-A"), ("join", sheet("guard"), "--as", "Guard-B"),
        ("fate", "exchange", "Finn>Guard-B", "Guard-B>Finn", "--skill", "Finn=Throwing",
         "--dice", "finn=+ 0 0 0", "--dice", "guard-b=0 0 0 0"),
        ("fate", "aspect", "Finn", "Underhanded", "--box", "1", "--dice", "finn=+ + 0 0"),  # FT-PTS: a reroll
        ("fate", "exchange", "Cyrus>Guard-A", "Guard-A>Cyrus", "--mod", "Cyrus=6",
         "--dice", "cyrus=+ + 0 0", "--dice", "guard-a=- 0 0 0"),  # MoS 7+: Guard-A is Taken Out (FT-OUT)
        ("roll", "Cyrus", "Alertness"), ("roll", "Guard-B", "Alertness"),  # generated dice
        ("end-scene",),  # FT-TRACK-3: Taken Out clears with the scene, and Guard-A was out of it
    ], {"Guard-A"}),
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each preset's fight in a store of its own."""
    out = {}
    for preset, (commands, _) in FIGHTS.items():
        store = tmp_path_factory.mktemp(preset) / "fudge.db"
        for args in [("new", "fight", "--rules", preset), *commands]:
            done = fudge(*args, store=store)
            assert done.returncode == 0, (preset, args, done.stderr)
        out[preset] = store
    return out


# --- the log, read here without the report's code ---------------------------------------------------------------

def exported(store: Path) -> list[dict[str, Any]]:
    done = fudge("export", store=store)
    assert done.returncode == 0, done.stderr
    return [json.loads(line)["body"] for line in done.stdout.splitlines() if line.strip()]


def counted(bodies: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(roller, typed or generated) -> (-, blank, +) of every Fudge die in an event that carries faces, undone or
    not: a d6 (`sides`) and a typed 3d6 or d% (`substitute`) are not Fudge dice. A stored body leaves out a field
    equal to its default (events.envelope): an initiative roll's `source` is "generated" when absent."""
    tally: dict[tuple[str, str], Counter[int]] = {}
    for body in bodies:
        event = body["event"]
        if not event.get("faces") or event.get("sides") is not None or event.get("substitute") is not None:
            continue
        roller = event.get("roller") or event["combatant"]
        source = "typed" if event.get("source", "generated") == "entered" else "generated"
        for key in ((roller, source), ("whole table", source)):
            tally.setdefault(key, Counter()).update(event["faces"])
    return {key: (faces[-1], faces[0], faces[1]) for key, faces in tally.items()}


def voided_seqs(bodies: list[dict[str, Any]]) -> set[int]:
    """The events voided by a point's re-resolution (events_voided) or by an undo (command_undone; no redo here)."""
    out: set[int] = set()
    for body in bodies:
        event = body["event"]
        if event["type"] == "events_voided":
            out.update(event["seqs"])
        elif event["type"] == "command_undone":
            out.update(b["seq"] for b in bodies if b["command"] == event["target"])
    return out


# --- the report, read as a reader would -------------------------------------------------------------------------

class Tables(HTMLParser):
    """The text of every table's cells, row by row; and the seq of every event line in the story whose text is
    inside a <del>."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None
        self.struck: set[int] = set()
        self.seq: int | None = None
        self.in_seq = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "span" and found.get("class") == "seq":
            self.in_seq = True
        elif tag == "del" and self.seq is not None:
            self.struck.add(self.seq)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "span" and self.in_seq:
            self.in_seq = False

    def table(self, head: tuple[str, ...]) -> list[list[str]]:
        """The rows of the table whose header row starts with `head`."""
        return next(rows for rows in self.tables if rows and tuple(rows[0][:len(head)]) == head)

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)
        if self.in_seq:
            self.seq = int(data)


def html_of(store: Path, tmp_path: Path) -> Tables:
    out = tmp_path / "report.html"
    done = fudge("report", "-o", str(out), store=store)
    assert done.returncode == 0, done.stderr
    parsed = Tables()
    parsed.feed(out.read_text())
    return parsed


def md_of(store: Path) -> str:
    done = fudge("report", "--format", "md", store=store)
    assert done.returncode == 0, done.stderr
    return done.stdout


FAIRNESS = ("Roller", "Dice", "Faces")


def md_table(text: str, head: tuple[str, ...] = FAIRNESS) -> list[list[str]]:
    """The rows of the Markdown table whose header starts with `head`, as a forum would render it (GFM tables)."""
    parsed = Tables()
    parsed.feed(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text))
    return parsed.table(head)


def fairness_counts(rows: list[list[str]]) -> dict[tuple[str, str], tuple[int, int, int]]:
    header = rows[0]
    assert header[:6] == ["Roller", "Dice", "Faces", "−", "blank", "+"], header
    out = {}
    for row in rows[1:]:
        counts = (int(row[3]), int(row[4]), int(row[5]))
        assert int(row[2]) == sum(counts), row
        out[(row[0], row[1])] = counts
    return out


@pytest.mark.parametrize("preset", list(FIGHTS))
def test_the_fairness_table_counts_every_die_of_the_log(played: dict[str, Path], tmp_path: Path,
                                                        preset: str) -> None:
    """Every Fudge die in the log, per roller and typed/generated apart, in the HTML and the Markdown alike."""
    store = played[preset]
    expected = counted(exported(store))
    assert any(source == "generated" for _, source in expected) and any(source == "typed" for _, source in expected)
    html = html_of(store, tmp_path).table(FAIRNESS)
    md = md_table(md_of(store))
    assert fairness_counts(html) == expected == fairness_counts(md)
    assert html == md  # the same columns, cells and verdicts: one table in two formats
    assert md[0][-1] == "Verdict" and all(row[-1] for row in md[1:])


def test_initiative_dice_are_counted(played: dict[str, Path]) -> None:
    """PH-2 / CT-TABLE and AI-INIT-2: the typed initiative dice of the phases and Atari Isev fights are in the
    counts, by hand: phases' Brynhild threw 0 0 0 0 + (initiative) + 0 0 0 and 0 - 0 0 (blows) and + + + 0 0
    (initiative): blanks 4 + 3 + 3 + 2 = 12; Atari Isev's Max threw + 0 0 0 for initiative only: 3 blanks."""
    phases = fairness_counts(md_table(md_of(played["fudge-phases"])))
    assert phases[("Brynhild", "typed")] == (1, 12, 5)
    atari = fairness_counts(md_table(md_of(played["atari-isev"])))
    assert atari[("Max", "typed")] == (0, 3, 1)
    # + + + + for initiative; then + + + 0, 0 0 0 0, + + + 0 and 0 0 0 0 for the sweep's blows and luck
    assert atari[("Dwarzuga", "typed")] == (0, 10, 10)


def test_a_fight_of_initiative_only_has_a_fairness_table(tmp_path: Path) -> None:
    """A round rolled and nothing else: the table is not empty."""
    store = tmp_path / "fudge.db"
    for args in (("new", "x", "--rules", "fudge-phases"), ("join", sheet("snorri")), ("join", sheet("brynhild")),
                 ("round", "-d", "Snorri=+ 0 0 -", "-d", "Brynhild=0 0 0 0 +")):
        assert fudge(*args, store=store).returncode == 0
    rows = fairness_counts(md_table(md_of(store)))
    assert rows == {("Snorri", "typed"): (1, 2, 1), ("Brynhild", "typed"): (0, 4, 1),
                    ("whole table", "typed"): (1, 6, 2)}
    assert "no Fudge dice rolled" not in md_of(store)


@pytest.mark.parametrize("preset", ["fudge", "fate"])
def test_voided_events_are_struck_out_in_both_formats(played: dict[str, Path], tmp_path: Path, preset: str) -> None:
    """The events an undo or a point's re-resolution voided: <del> in HTML, ~~ in Markdown, the same ones."""
    store = played[preset]
    expected = voided_seqs(exported(store))
    assert expected
    assert html_of(store, tmp_path).struck == expected
    struck_md = {int(seq) for seq in re.findall(r"^- (\d+): ~~", md_of(store), re.M)}
    assert struck_md == expected


def outcome_line(text: str) -> str:
    return text.splitlines()[2]


@pytest.mark.parametrize("preset", list(FIGHTS))
def test_who_stands_is_the_rules_outcome_when_the_fight_ended(played: dict[str, Path], tmp_path: Path,
                                                              preset: str) -> None:
    """F-STUN-1: Brynhild knocked out, then the battle ended (the knockout clears): out of the fight. FT-TRACK-3:
    Guard-A Taken Out, then the scene ended (the box clears): out of the fight, not standing."""
    _, fallen = FIGHTS[preset]
    line = outcome_line(md_of(played[preset]))
    out = re.search(r"out of the fight: ([^;]*)", line)
    standing = re.search(r"standing: ([^;]*)", line)
    assert (set(out.group(1).split(", ")) if out else set()) == fallen, line
    assert standing is not None and not fallen & set(standing.group(1).split(", ")), line
    page = (tmp_path / "page.html")
    assert fudge("report", "-o", str(page), store=played[preset]).returncode == 0
    assert line.split(" · ", 1)[1] in page.read_text()  # the same words in the HTML
