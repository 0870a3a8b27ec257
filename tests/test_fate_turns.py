"""FT-INIT, FT-PACE: Fate's turn pace as the GM plays it, each command its own `fudge` process on a real store.

Three fighters (Cyrus and Finn, heroes; Guard-A) take turns by rolled Alertness. What must hold:
- the JSON board (`status --json`'s `turn`) names whom the text board's header names, after every command;
- a fighter gives his turn up: `fate pass` uses it with no action (the next in the order has it), `fate hold`
  lets the next one act first (the reading of FT-INIT in engine.rulesets.fate.rules: 004 8.3 says only that characters act
  in the order of initiative, each taking an action); undo takes either back;
- the odds of a blow out of turn are weighed, marked "[out of turn]", as under phases;
- every refusal names only commands the fight's rules play (no `fudge next` where turns go by Alertness);
- `n` in `fudge play` never gives a turn up unasked: it names `fate pass` and `fate hold`.
"""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
TURNS = ROOT / "examples" / "house" / "fate-turns.toml"
# All roll 0 for Alertness: Finn (Alertness Good), Cyrus, Guard-A (FT-INIT, shown in test_fate_cli).
ROUND = ("fate", "round", "--dice", "cyrus=0 0 0 0", "--dice", "finn=0 0 0 0", "--dice", "guard-a=0 0 0 0")


class Table:
    """One GM's store: `run` a command that must pass, `refused` one that must fail in one line."""

    def __init__(self, tmp: Path) -> None:
        self.db = tmp / "fudge.db"

    def run(self, *args: Any) -> str:
        done = fudge(*map(str, args), store=self.db)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def refused(self, *args: Any) -> str:
        """The one error line of a command that must fail cleanly (not 70), having written nothing."""
        before = self.rows()
        done = fudge(*map(str, args), store=self.db)
        assert done.returncode not in (0, 70), (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr, done.stderr
        assert self.rows() == before
        return lines[0]

    def rows(self) -> int:
        with closing(sqlite3.connect(self.db)) as db:
            return db.execute("SELECT count(*) FROM events").fetchone()[0]

    def status(self) -> dict[str, Any]:
        return json.loads(self.run("status", "--json"))

    def turns(self) -> tuple[str | None, str | None]:
        """(the JSON board's turn, the text board's): the header's "NAME's turn", None without one."""
        header = self.run("status").splitlines()[0]
        shown = re.search(r" · ([^·]+)'s turn", header)
        return self.status()["turn"], shown.group(1) if shown else None

    def turn(self) -> str | None:
        data, text = self.turns()
        assert data == text, (data, text)
        return data


def three(tmp: Path, house: Path = TURNS, *sheets: str) -> Table:
    """A fight named crypt with Cyrus, Finn and Guard-A (or `sheets`), set up in one `fudge play` session."""
    table = Table(tmp)
    joins = sheets or (f"{SHEETS / 'cyrus.toml'}", f"{SHEETS / 'finn.toml'}", f"{SHEETS / 'guard.toml'} --as Guard-A")
    script = "\n".join([f"new crypt --rules fate --house {house}", *(f"join {sheet}" for sheet in joins), ""])
    done = fudge("play", store=table.db, input=script)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return table


def test_FT_INIT_the_json_board_names_the_turn_the_text_board_names_after_every_command(tmp_path: Path) -> None:
    """FT-INIT: before the first round nobody has the turn, on either board; then each command moves it (an
    attack, a pass, a hold, an undo, the round's end, a new round, the end of the scene) and both boards name
    the same fighter, or both nobody. The fight replayed from its log is the one played, and verifies."""
    table = three(tmp_path)
    assert table.turn() is None
    steps = [
        (ROUND, "Finn"),
        (("fate", "attack", "Guard-A", "--dice", "finn=0 0 0 0", "--dice", "guard-a=0 0 0 0"), "Cyrus"),
        (("fate", "hold"), "Guard-A"),  # Cyrus waits for Guard-A
        (("fate", "pass"), "Cyrus"),  # Guard-A gives his turn up: Cyrus's comes back
        (("undo",), "Guard-A"),
        (("redo",), "Cyrus"),
        (("fate", "pass", "Cyrus"), None),  # the round's turns are all taken
        (ROUND, "Finn"),
        (("end-scene",), None),  # FT-TRACK-3: the scene's order ends with it
    ]
    for command, whose in steps:
        table.run(*command)
        assert table.turn() == whose, command
    # A-REPLAY-1, A-VERIFY-1: the fight folded again from its log says the same; the rules re-decide every
    # pass and hold the log records
    last = table.status()["last_seq"]
    assert json.loads(table.run("status", "--json", "--as-of", last)) == table.status()
    assert "hash chain intact, rules agree" in table.run("verify")


def test_FT_INIT_a_pass_gives_the_turn_to_the_next_and_undo_gives_it_back(tmp_path: Path) -> None:
    """FT-INIT: `fate pass` is the actor's turn used with no action: no roll, no box, the next in the order
    has the turn and the passer is shown as having had his; `undo` restores the turn and the order."""
    table = three(tmp_path)
    table.run(*ROUND)
    before = table.status()
    out = table.run("fate", "pass")
    assert "Finn passes his turn in round 1: it is used with no action (FT-INIT)" in out
    assert "→ Cyrus's turn (Alertness order)" in out
    after = table.status()
    assert table.turn() == "Cyrus"
    assert [c["fate"] for c in after["combatants"]] == [c["fate"] for c in before["combatants"]]
    log = json.loads(table.run("log", "--json"))
    assert log[-1]["type"] == "fate_turn_passed" and log[-1]["combatant"] == "Finn" and log[-1]["behind"] is None
    board = table.run("status")
    assert re.search(r"Finn .*\n .*acted · order 1", board) and re.search(r"Cyrus .*\n .*to act · order 2", board)
    undone = table.run("undo")
    assert "undid Finn's passed turn" in undone and "→ Finn's turn (Alertness order)" in undone
    assert table.turn() == "Finn"
    assert table.status() | {"last_seq": 0} == before | {"last_seq": 0}


def test_FT_INIT_a_hold_lets_the_next_act_first_until_nobody_is_left_to_wait_for(tmp_path: Path) -> None:
    """FT-INIT (the reading in engine.rulesets.fate.rules): `fate hold` puts the actor after the next fighter who still has a
    turn, one place at a time; the last to act has nobody to wait for and is told to act or pass, naming
    both commands. The turn is the holder's only: another's name is refused."""
    table = three(tmp_path)
    table.run(*ROUND)
    assert "it is Finn's turn (FT-INIT), not Cyrus's" in table.refused("fate", "hold", "Cyrus")
    out = table.run("fate", "hold", "Finn")
    assert "Finn holds his turn in round 1: he acts after Cyrus (FT-INIT)" in out
    assert "→ order: Cyrus, Finn, Guard-A" in out and table.turn() == "Cyrus"
    table.run("fate", "attack", "Guard-A", "--dice", "cyrus=0 0 0 0", "--dice", "guard-a=0 0 0 0")
    assert table.turn() == "Finn"
    table.run("fate", "hold")
    assert table.turn() == "Guard-A"
    table.run("fate", "attack", "Finn", "--dice", "guard-a=0 0 0 0", "--dice", "finn=0 0 0 0")
    assert table.turn() == "Finn"  # the holder acts last
    line = table.refused("fate", "hold")
    assert line == ("error: nobody acts after Finn in round 1: he acts (`fudge fate attack TARGET`) or passes "
                    "(`fudge fate pass`)")
    table.run("fate", "attack", "Guard-A", "--dice", "finn=0 0 0 0", "--dice", "guard-a=0 0 0 0")
    assert table.turn() is None


def test_FT_INIT_odds_out_of_turn_are_weighed_and_marked_as_under_phases(tmp_path: Path) -> None:
    """FT-INIT with the odds before the dice: Cyrus's blow while Finn has the turn is weighed as if made now,
    and marked "[out of turn]", as a phase fight marks it; Finn's, in turn, is not marked."""
    table = three(tmp_path)
    table.run(*ROUND)
    late = table.run("odds", "--fight", "Cyrus", "Guard-A").strip()
    now = table.run("odds", "--fight", "Guard-A").strip()
    assert late.startswith("Cyrus beats Guard-A ") and late.endswith(" [out of turn]")
    assert now.startswith("Finn beats Guard-A ") and "[" not in now
    data = json.loads(table.run("odds", "--fight", "Cyrus", "Guard-A", "--json"))
    assert data["in_turn"] is False and data["line"] == late

    phases = Table(tmp_path)  # the same store, another fight
    phases.run("new", "hall", "--rules", "fudge-phases")
    phases.run("join", SHEETS / "snorri.toml")
    phases.run("join", SHEETS / "brynhild.toml")
    phases.run("round")
    phases.run("next")
    actor = phases.turn()
    other = "Brynhild" if actor == "Snorri" else "Snorri"
    assert phases.run("odds", "--fight", other, actor).strip().endswith(" [out of turn]")


# The commands that play a Fate fight (FT-PACE, FT-INIT), by pace and initiative: a refusal may send the GM to
# these and to no other. Under phase initiative Fate keeps the phase commands (PH-1, PH-4 `hold`).
PLAYED = {
    "scene": {"fudge fate scene", "fudge end-scene"},
    "exchange": {"fudge fate exchange", "fudge end-scene"},
    "alertness": {"fudge fate round", "fudge fate attack", "fudge fate pass", "fudge fate hold", "fudge end-scene"},
    "phases-classic": {"fudge round", "fudge next", "fudge fate attack", "fudge hold", "fudge end-scene"},
}
HOUSES = {
    "scene": 'extends = "fate"\npace = "scene"\n',
    "exchange": 'extends = "fate"\npace = "exchange"\n',
    "alertness": 'extends = "fate"\npace = "turn"\ninitiative = "alertness"\n',
    "phases-classic": 'extends = "fate"\npace = "turn"\ninitiative = "phases-classic"\n',
}
FATE_WORDS = {"scene", "exchange", "round", "attack", "pass", "hold", "aspect", "point", "recover"}


def named(line: str) -> set[str]:
    """The commands a line names: each `fudge WORD` (and Fate's `fudge fate WORD`) in backquotes."""
    out = set()
    for quoted in re.findall(r"`fudge ([^`]+)`", line):
        words = quoted.split()
        out.add("fudge " + " ".join(words[:2] if words[0] == "fate" and words[1:2] and words[1] in FATE_WORDS
                                    else words[:1]))
    return out


@pytest.mark.parametrize("rules", sorted(HOUSES))
def test_FT_PACE_every_refusal_names_only_commands_the_fights_rules_play(tmp_path: Path, rules: str) -> None:
    """FT-PACE, FT-INIT: the commands of the other paces and of Fudge are refused, each in one line, and the
    line sends the GM only to commands his fight plays; Fate's turns by Alertness never hear of `fudge next`."""
    house = tmp_path / "house.toml"
    house.write_text(HOUSES[rules])
    three(tmp_path, house, f"{SHEETS / 'cyrus.toml'}", f"{SHEETS / 'guard.toml'} --as Guard-A")
    tried = [("next",), ("round",), ("exchange", "Cyrus", "Guard-A"), ("fate", "exchange", "Cyrus>Guard-A", "Guard-A"),
             ("fate", "scene", "Cyrus>Guard-A", "Guard-A>Cyrus"), ("fate", "round"), ("fate", "attack", "Guard-A"),
             ("fate", "pass"), ("fate", "hold")]
    lines: list[tuple[str, str]] = []
    for command in tried:
        done = fudge(*command, store=tmp_path / "fudge.db")
        typed = "fudge " + " ".join(command[:2] if command[0] == "fate" else command[:1])
        if done.returncode == 0:
            assert typed in PLAYED[rules], (rules, command)
            continue
        assert done.returncode != 70 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        lines.append((typed, done.stderr.strip()))
        assert named(lines[-1][1]) - {typed} <= PLAYED[rules], (rules, lines[-1])
    assert len(lines) >= 5, lines
    if rules == "alertness":  # the issue: "`fudge next` gives the next turn (phase initiative)"
        assert not any("fudge next" in line.replace(f"`{typed}`", "") or "phase" in line for typed, line in lines)


def test_FT_INIT_n_in_play_names_the_commands_that_give_a_turn_up(tmp_path: Path) -> None:
    """`n` under Fate's turns: a new round once all have had theirs; while someone has the turn, refused (in
    phases `next` follows the actor's blow, here the blow moves the turn on itself, so `n` from habit would
    give the next fighter's turn up), naming `fate pass`, which then passes it."""
    table = three(tmp_path)
    script = "\n".join(["n -d 'cyrus=0 0 0 0' -d 'finn=0 0 0 0' -d 'guard-a=0 0 0 0'", "n", "fate pass", ""])
    done = fudge("play", store=table.db, input=script, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["error: it is Finn's turn: Fate's turns move on when he acts, `a TARGET`, "
                                        "or gives it up, `fate pass` or `fate hold` (FT-INIT)"]
    assert "(fate round -d 'cyrus=0 0 0 0'" in done.stdout and "Finn passes his turn" in done.stdout
    assert table.turn() == "Cyrus"
