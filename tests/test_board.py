"""The board (`fudge status`): eight fighters in 80 columns and 20 lines under every preset, in turn order,
with ▶ on the current actor, sealed declarations shown only as sealed, and long names cut with "…".

Each preset's fight is played through the command line (typed dice: the same board every run) and its
board kept as a snapshot; `status --long` is the full cards, `--json` the same data as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from fudge_combat.cli import style, views
from fudge_combat.cli.board import board_json, render_board
from fudge_combat.projections import board
from fudge_combat.cli.render import status_text
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import cli_table

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "examples" / "sheets"
LONG = "Theodora of Eastmarch, Warden of the Southern Gate"

# name, sheet, side: eight fighters, two of them with names longer than the name column
PHASED = [("Brynhild", "brynhild", "raiders"), ("Leroy", "leroy", "watch"),
          ("Snorri Thorgrimsson of the Long Fjord", "snorri", "raiders"), ("Theodora", "theodora", "watch"),
          ("Brynhild the Second", "brynhild", "raiders"), ("Leroy's Cousin", "leroy", "watch"),
          ("Snorri", "snorri", "raiders"), (LONG, "theodora", "the watch of the southern gate")]
# initiative dice per fighter, as many as each preset rolls for him
CRUNCH = ["+ + + - 0", "+ + 0 -", "+ 0 0 -", "0 0 - -", "+ 0 - - 0", "+ - 0 0", "- - 0 0", "0 + 0 0"]
CLASSIC = ["+ + 0", "+ 0", "+ 0", "0 -", "0 - -", "+ +", "- -", "0 +"]


@pytest.fixture
def fudge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "100")  # wider than the board: it stays at 80
    yield from cli_table(tmp_path, {})


def join_all(fudge: Any, fighters: list[tuple[str, str, str]]) -> None:
    for name, sheet, side in fighters:
        fudge("join", str(SHEETS / f"{sheet}.toml"), "--as", name, "--side", side)


def phased(fudge: Any, house: list[str], faces: list[str]) -> str:
    """A phase round: everyone rolls, the first two turns are taken, a blow lands, the third turn begins."""
    fudge("new", "phases", *house)
    join_all(fudge, PHASED)
    fudge("round", *(arg for (name, _, _), dice in zip(PHASED, faces) for arg in ("--dice", f"{name}={dice}")))
    fudge("next")
    fudge("attack", "Brynhild", "Leroy", "--dice", "Brynhild=+ + + 0", "--dice", "Leroy=- - 0 0",
          "--dice", "Brynhild=+ 0 0 0")
    fudge("next")
    fudge("next")
    return "phases"


def fudge_preset(fudge: Any) -> str:
    """Fudge's simultaneous rounds (the 4.7 demo), six more fighters, a sealed and an open declaration."""
    fudge("demo", "fudge")
    fudge("use", "demo")
    join_all(fudge, [*PHASED[2:6], ("Sylthaen", "sylthaen", "watch"), (LONG, "theodora", "the southern gate")])
    fudge("declare", "Brynhild", "--sealed", "--all-out-defense")
    fudge("declare", "Snorri", "--all-out-offense")
    return "demo"


def atari(fudge: Any) -> str:
    """Atari Isev's rolled initiative (the tavern demo) and six more fighters who have not rolled."""
    fudge("demo", "atari-isev")
    fudge("use", "demo-atari-isev")
    join_all(fudge, [(f"Cutthroat {n}", "cutthroat", "bar") for n in range(2, 5)]
             + [("Max's Friend from the Northern Caravan", "max", "Max"), ("Dicken", "dicken", "bar"),
                ("Wilbur", "wilbur", "Max")])
    return "demo-atari-isev"


def fate(fudge: Any) -> str:
    """Fate's exchanges (the tavern brawl demo: a guard taken out) and three more guards."""
    fudge("demo", "fate")
    fudge("use", "demo-fate")
    join_all(fudge, [("Guard-D of the Duke's Own Household Guard", "guard", "guards"),
                     ("Guard-E", "guard", "guards"), ("Guard-F", "guard", "guards")])
    return "demo-fate"


PRESETS = {
    "fudge": fudge_preset,
    "fudge-phases": lambda fudge: phased(fudge, ["--rules", "fudge-phases"], CRUNCH),
    "phases-classic": lambda fudge: phased(
        fudge, ["--house", str(ROOT / "examples" / "house" / "phases-classic.toml")], CLASSIC),
    "atari-isev": atari,
    "fate": fate,
}


def state_of(fudge: Any, name: str) -> Any:
    store = SqliteStore(fudge.db)
    try:
        return Fights(store).state(name)
    finally:
        store.close()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_eight_fighters_fit_80_columns_and_20_lines_under_every_preset(
        fudge: Any, preset: str, snapshot: Any) -> None:
    """The board `fudge status` prints: at most 20 lines of at most 80 columns for eight fighters, long
    names cut with "…", each fighter once, the current actor marked; the stored view and the fight agree."""
    name = PRESETS[preset](fudge)
    state = state_of(fudge, name)
    assert len(state.combatants) == 8
    shown = fudge("status").stdout
    text, receipt = fudge("status", "--receipt").stdout.rstrip("\n").rsplit("\n", 1)
    assert receipt.startswith("receipt ") and shown == text + "\n"  # the receipt only when asked
    lines = text.split("\n")
    assert len(lines) <= 20, text
    assert all(board.cells(line) <= 80 for line in lines), text
    assert "…" in text and LONG not in text and "Guard-D of the Duke's Own Household Guard" not in text
    assert text == render_board(state, 80)
    assert fudge("status", "--as-of", str(state.last_seq)).stdout == shown  # computed, not the stored view
    names = [line[2:18].rstrip() for line in lines[1:] if not line.startswith("    ") and line[:2] in ("  ", "▶ ")]
    assert len(names) == 8
    assert sum(line.startswith("▶ ") for line in lines) == (1 if board.current_actor(state) else 0)
    assert text == snapshot


def test_phase_board_is_in_phase_order_with_the_current_actor_and_turns_taken(fudge: Any) -> None:
    """PH-1: phase ++ first; the turn taken is marked ▶ and named on top; turns passed are counted."""
    phased(fudge, ["--rules", "fudge-phases"], CRUNCH)
    state = state_of(fudge, "phases")
    lines = board.board_lines(state)
    head = style.plain(lines[:1])
    current = state.combatants[state.turn.combatant].name
    assert f"{current}'s turn" in head and "round 1" in head and "phase" in head
    order = board.turn_order(state)
    assert order[:2] == ["brynhild", "brynhild the second"]  # phase +, Good Agility before Fair (PH-3)
    assert order[-1] == "snorri"  # his best phase is 0
    assert board.acted(state)["brynhild"] == "turns 1/4" and board.acted(state)["snorri"] == "turns 0/3"
    assert current == "Leroy"
    leroy = style.plain([next(line for line in lines if style.plain([line]).startswith("▶ Leroy "))])
    assert "Very Hurt -2" in leroy and "VH■" in leroy  # Brynhild's blow


def test_F_TAC_2_a_sealed_declaration_shows_as_sealed_only(fudge: Any) -> None:
    """F-TAC-2: the board says a declaration is sealed, never what it is; an open one is shown."""
    fudge_preset(fudge)
    text = fudge("status").stdout
    brynhild = next(line for line in text.splitlines() if line.startswith("  Brynhild "))
    details = text.splitlines()[text.splitlines().index(brynhild) + 1]
    assert "sealed" in details and "defense" not in details
    snorri = text.splitlines().index(next(line for line in text.splitlines() if line.startswith("  Snorri ")))
    assert "all-out offense" in text.splitlines()[snorri + 1]


def test_AI_WAIT_a_declaration_for_the_coming_round_shows_before_its_roll(tmp_path: Path) -> None:
    """Atari Isev declares before `fudge round` (AI-WAIT, AI-POS): the board shows it then, for its round,
    from the stored view a later process reads (each command its own process, a snapshot key present)."""
    from tests.processes import ROOT, fudge as process

    store = tmp_path / "fudge.db"
    steps = [("new", "t", "--rules", "atari-isev"), ("join", str(ROOT / "examples/sheets/max.toml")),
             ("join", str(ROOT / "examples/sheets/cutthroat.toml")), ("declare", "max", "--posture", "1"),
             ("declare", "cut", "--wait", "1")]
    for args in steps:
        assert process(*args, store=store).returncode == 0, args
    text = process("status", store=store).stdout
    assert "for round 1: posture +1" in text and "for round 1: hurry +1" in text, text


def test_F_WND_1_the_board_says_who_is_out_of_the_fight(fudge: Any) -> None:
    """F-WND-1, FT-TRACK-2: Incapacitated (Fudge) and Taken Out (Fate) are shown as out of the fight."""
    fudge("demo", "fudge-phases")
    text = fudge("status", "--fight", "demo-fudge-phases").stdout.splitlines()
    at = next(i for i, line in enumerate(text) if line.startswith("  Brynhild "))
    assert "Incapacitated" in text[at] and "-2" not in text[at] and "OUT of the fight" in text[at + 1]
    assert "only watch's side is standing" in text
    fate(fudge)
    taken_out = next(row["seq"] for row in json.loads(fudge("log", "--json").stdout)
                     if row.get("box") == "taken_out" and not row["voided"])
    shown = fudge("status", "--as-of", str(taken_out)).stdout
    assert "OUT of the fight (Taken Out)" in shown


def test_status_long_is_the_full_cards_and_json_is_unchanged(fudge: Any) -> None:
    """`--long` prints the cards `status` printed before the board (cli.render.status_text), with the
    receipt under `--receipt`; `--json` is the same data with or without `--long`, and holds no board."""
    name = phased(fudge, ["--rules", "fudge-phases"], CRUNCH)
    state = state_of(fudge, name)
    long = fudge("status", "--long").stdout
    assert long == status_text(state) + "\n"
    assert fudge("status", "--long", "--receipt").stdout.startswith(status_text(state) + "\nreceipt ")
    assert long == fudge("status", "--long", "--as-of", str(state.last_seq)).stdout
    assert "    *  +: " in long and "turn: Leroy in phase +" in long  # the phase cards, the turn line
    data = json.loads(fudge("status", "--json").stdout)
    assert data == json.loads(fudge("status", "--json", "--long").stdout)
    assert "board" not in data and data["turn"] == state.combatants[state.turn.combatant].name


def fate_turns(fudge: Any) -> str:
    """Fate's turn pace (FT-INIT): a round ordered by Alertness, whose first actor passes his turn."""
    fudge("new", "turns", "--rules", "fate", "--house", str(ROOT / "examples" / "house" / "fate-turns.toml"))
    join_all(fudge, [("Cyrus", "cyrus", "heroes"), ("Finn", "finn", "heroes"), ("Guard-A", "guard", "guards")])
    fudge("fate", "round", "--dice", "Cyrus=0 0 0 0", "--dice", "Finn=0 0 0 0", "--dice", "Guard-A=0 0 0 0")
    fudge("fate", "pass")
    return "turns"


@pytest.mark.parametrize("preset", [*sorted(PRESETS), "fate-turns"])
def test_the_json_turn_is_the_boards_turn_under_every_pace(fudge: Any, preset: str) -> None:
    """PH-1, AI-INIT-2, FT-INIT: `status --json` names whose turn it is as the board's header does, under
    phases, rolled initiative and Fate's turns; null under simultaneous rounds (F-INIT-1) and Fate's
    exchanges (FT-PACE), which have no turns, as the header names none."""
    name = (PRESETS.get(preset) or fate_turns)(fudge)
    state = state_of(fudge, name)
    header = fudge("status").stdout.splitlines()[0]
    data = json.loads(fudge("status", "--json").stdout)
    assert data == json.loads(fudge("status", "--json", "--as-of", str(state.last_seq)).stdout)
    actor = board.current_actor(state)
    assert data["turn"] == (actor.name if actor is not None else None)
    if preset in ("fudge", "fate"):
        assert data["turn"] is None and "'s turn" not in header
    elif preset == "atari-isev":  # the demo ends on round 2's last blow: its turns are used, nobody has one
        assert data["turn"] is None and "'s turn" not in header
        assert header.endswith(" · round 2 is over")
    else:
        assert data["turn"] is not None
        assert f" · {board.fit(data['turn'], board.NAME).rstrip()}'s turn" in header
    if preset == "fate-turns":
        assert data["turn"] == "Cyrus" and data["phase"] is None  # Finn passed; the order has no phases


def test_the_stored_view_answers_board_and_long_before_typer(fudge: Any) -> None:
    """The read model keeps the board and the long text; both are answered from it, as Typer prints them."""
    name = phased(fudge, ["--rules", "fudge-phases"], CRUNCH)
    for extra in ((), ("--long",)):
        shown = views.status_from_argv(["--store", str(fudge.db), "status", "-f", name, *extra])
        assert shown is not None and shown + "\n" == fudge("status", *extra).stdout
    assert views.stored_output(SqliteStore(fudge.db), name, False, width=60) is None  # narrower: computed


def test_a_narrow_board_keeps_every_line_within_its_width(fudge: Any) -> None:
    phased(fudge, ["--rules", "fudge-phases"], CRUNCH)
    state = state_of(fudge, "phases")
    for width in (40, 60, 79, 80):
        lines = render_board(state, width).split("\n")
        assert all(board.cells(line) <= width for line in lines), width
    assert "…" in render_board(state, 60)


def test_board_json_is_the_board_as_data(fudge: Any) -> None:
    phased(fudge, ["--rules", "fudge-phases"], CRUNCH)
    state = state_of(fudge, "phases")
    data = json.loads(json.dumps(board_json(state)))
    assert data["width"] == 80
    assert "\n".join("".join(part["text"] for part in line) for line in data["lines"]) == render_board(state)
    kinds = {part["kind"] for line in data["lines"] for part in line}
    assert {"turn", "current", "wound3", "marked", "box", "ok"} <= kinds  # Leroy is Very Hurt


@given(st.text(max_size=40), st.integers(1, 30))
def test_fit_and_clip_never_pass_their_width(text: str, width: int) -> None:
    """A name of any characters (wide ones too) is padded or cut to exactly its column."""
    assert board.cells(board.fit(text, width)) == width or board.cells(board.fit(text, width)) == width - 1
    assert board.cells(style.plain([board.clip([(text, ""), (text, "x")], width)])) <= width


def test_fudge_dice_are_drawn_as_dice_in_colour() -> None:
    line = style.command_line("Snorri Sword Good + 0 0 - = Good vs Brynhild: event 10 0 0 0")
    faces = [text for text, kind in line if kind.startswith("die")]
    assert faces == ["⊞", "▢", "▢", "⊟"]  # "10 0 0 0" is not a roll
    assert style.plain([line]) == "Snorri Sword Good ⊞ ▢ ▢ ⊟ = Good vs Brynhild: event 10 0 0 0"
    assert style.command_line("Brynhild is wounded: Very Hurt")[0][1] == "wound3"
    assert style.command_line("Grok is out of the fight (Incapacitated)")[0][1] == "out"
    assert style.command_line("phase +: Brynhild acts")[0][1] == "turn"
    assert style.command_line("   5 854f65bc  round 1 begins, surprised: Theodora")[0][1] == "round"
    hit = dict((kind, text) for text, kind in style.command_line("A Axe Good +2 = Superb; B Good = Fair → A hits B: Hurt"))
    assert hit["hit"] == "→ A hits B: Hurt"
    missed = style.command_line("A Axe Good -1 = Fair; B Good +1 = Great → B is not hit")
    assert ("→ B is not hit", "miss") in missed
    assert all(kind == "" for _, kind in style.command_line("Leroy trades die 1 to raise die 2: + → ++"))


@pytest.mark.parametrize("env,tty,expected", [
    ({}, True, True), ({}, False, False), ({"NO_COLOR": "1"}, True, False), ({"TERM": "dumb"}, True, False),
    ({"NO_COLOR": ""}, True, True), ({"FORCE_COLOR": "1"}, False, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, True),
])
def test_colour_is_wanted_on_a_terminal_unless_no_color_or_dumb(
        monkeypatch: pytest.MonkeyPatch, env: dict[str, str], tty: bool, expected: bool) -> None:
    for key in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    class Stream:
        def isatty(self) -> bool:
            return tty

    assert style.wanted(Stream()) is expected


def test_echo_segments_escapes_what_a_caller_left_raw(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The styled way out escapes control characters like `echo` (plain here: capsys is not a terminal)."""
    from fudge_combat.cli.context import echo_segments

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    echo_segments([[("Ev\x1b[2Jil", "hit"), (" \r\nSnorri is dead", "")], [("ok", "")]])
    assert capsys.readouterr().out == "Ev\\x1b[2Jil \\r\\nSnorri is dead\nok\n"
    monkeypatch.setenv("FORCE_COLOR", "1")
    echo_segments([[("Ev\x1b[2Jil", "hit")]])
    shown = capsys.readouterr().out
    assert "\\x1b[2J" in shown and "\x1b[2J" not in shown and "\x1b[" in shown  # coloured, still escaped
