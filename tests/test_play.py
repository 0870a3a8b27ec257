"""`fudge play`: a session in one process, scripted through stdin under every preset.

Each session is a separate `fudge play` process on a real store, every die typed so that it tells
the same story every run; its output is a snapshot, and what each `a TARGET` became is asserted
beside it (an updated snapshot cannot hide a wrong expansion). Bad lines are one `error:` line
each, and the session goes on.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.processes import ROOT, fudge

SCRIPTS = {
    "fudge": """\
# Fudge 4.7: Snorri and Brynhild, simultaneous rounds
new duel --rules fudge --house examples/house/snorri-brynhild.toml
join examples/sheets/snorri.toml
join examples/sheets/brynhild.toml
# one foe stands against Brynhild: `a` makes it Snorri's exchange with her
a bryn --dice "snorri=+ 0 0 0" --dice "brynhild=- 0 0 0" --dice "snorri=- - 0 0"
declare snorri --all-out-offense

a snorri brynhild -d "snorri=+ + 0 0" -d "brynhild=0 0 0 0" -d "snorri=0 0 0 0"
exchnage snorri brynhild
a nobody
u
r
""",
    "fudge-phases": """\
# Crunch Time phases: three fighters, one round
new watch --rules fudge-phases
join examples/sheets/leroy.toml --side watch
join examples/sheets/theodora.toml --side watch
join examples/sheets/brynhild.toml --side raiders
a leroy
round -s th -d "leroy=+ + 0 -" -d "theodora=+ 0 0 -" -d "brynhild=+ + + - 0"
barter l -t 1 -r 2
barter b --trade 1 --raise 2
n
a leroy -d "brynhild=+ 0 + 0" -d "leroy=0 0 - 0"
n
a brynhild -d "leroy=+ + 0 0" -d "brynhild=0 - 0 0"
n
a theo -d "brynhild=0 0 - 0" -d "theodora=0 + 0 0"
n
n
a bryn -d "leroy=+ 0 0 0" -d "brynhild=0 0 0 0"
n
a b -d "theodora=+ + 0 0" -d "brynhild=0 0 - -"
n
""",
    "phases-classic": """\
# 002's phase initiative with classic bartering
new keep --rules fudge --house examples/house/phases-classic.toml
join examples/sheets/leroy.toml --side watch
join examples/sheets/theodora.toml --side watch
join examples/sheets/brynhild.toml --side raiders
round -d "leroy=+ -" -d "theodora=0 0" -d "brynhild=+ + -"
barter brynhild --trade 1 --trade 3 --raise 2
n
a leroy -d "brynhild=+ 0 + 0" -d "leroy=0 0 - 0"
a brynhild
a leroy
n
a bryn -d "leroy=+ + 0 0" -d "brynhild=0 - 0 0"
n
a bryn -d "theodora=+ 0 0 0" -d "brynhild=0 0 0 0"
n
""",
    "atari-isev": """\
# Atari Isev: Max's tavern knife fight
new tavern --rules atari-isev
join examples/sheets/max.toml --side Max
join examples/sheets/cutthroat.toml --side bar
round -d "max=+ + 0 0" -d "cutthroat=0 0 0 0"
n
a cut --weapon unarmed -d "max=0 0 0 0" -d "cutthroat=- - 0 0" -d "max=0 0 0 0"
n
a max -d "cutthroat=+ + 0 0" -d "max=0 0 0 0" -d "cutthroat=+ 0 0 0"
# round 2, `n` at the round's end rolling it: both total 0 and act in the same slot (AI-INIT-2)
n -d "max=0 0 0 +" -d "cutthroat=0 0 0 0"
n
a cut --weapon unarmed -d "max=0 + 0 0" -d "cutthroat=- 0 0 0" -d "max=0 0 0 0"
n
a max -d "cutthroat=+ + 0 0" -d "max=0 0 0 0" -d "cutthroat=- 0 0 0"
""",
    "fate": """\
# Fate: exchanges, then a fight in turns
new brawl --rules fate
join examples/sheets/cyrus.toml
join examples/sheets/guard.toml --as Guard-A
join examples/sheets/guard.toml --as Guard-B
a guard-a -d "cyrus=0 0 0 0" -d "guard-a=+ 0 0 0" -d "guard-b=0 0 0 0"
a cyrus guard-a -d "cyrus=+ 0 0 0" -d "guard-a=- 0 0 0" -d "guard-b=- 0 0 0"
a guard
new duel --rules fate --house examples/house/fate-turns.toml
join examples/sheets/cyrus.toml
join examples/sheets/finn.toml --side heroes
join examples/sheets/guard.toml --as Guard-A
a guard-a
n -d "cyrus=+ 0 0 0" -d "finn=0 0 0 0" -d "guard-a=- 0 0 0"
a guard-a -d "finn=+ 0 0 0" -d "guard-a=0 0 0 -"
a cyrus
n
a guard-a -d "cyrus=+ + 0 0" -d "guard-a=0 0 0 0"
a cyrus -d "guard-a=0 0 0 0" -d "cyrus=0 0 0 0"
n -d "cyrus=0 0 0 0" -d "finn=0 0 0 0" -d "guard-a=+ 0 0 0"
""",
}

# What each `a` line became under the preset's rules (the session prints it before running it).
EXPANDED = {
    "fudge": ["(exchange Snorri Brynhild --dice 'snorri=+ 0 0 0'", "(exchange Snorri Brynhild -d 'snorri=+ + 0 0'"],
    "fudge-phases": ["(attack Brynhild Leroy ", "(attack Leroy Brynhild ", "(attack Brynhild Theodora ",
                     "(attack Leroy Brynhild -d 'leroy=+ 0 0 0'", "(attack Theodora Brynhild "],
    "phases-classic": ["(attack Brynhild Leroy ", "(attack Leroy Brynhild ", "(attack Theodora Brynhild "],
    "atari-isev": ["(attack Max Cutthroat --weapon unarmed -d 'max=0 0 0 0'", "(attack Cutthroat Max -d 'cutthroat=+ + 0 0'",
                   "(round -d 'max=0 0 0 +'", "(attack Max Cutthroat --weapon unarmed -d 'max=0 + 0 0'", "(attack Cutthroat Max -d 'cutthroat=+ + 0 0' -d 'max=0 0 0 0' -d 'cutthroat=- 0 0 0'"],
    "fate": ["(fate exchange 'Cyrus>Guard-A' 'Guard-A>Cyrus' 'Guard-B>Cyrus' -d 'cyrus=0 0 0 0'",
             "(fate exchange 'Cyrus>Guard-A' 'Guard-A>Cyrus' 'Guard-B>Cyrus' -d 'cyrus=+ 0 0 0'",
             "(fate round -d 'cyrus=+ 0 0 0'", "(fate attack Finn Guard-A ", "(fate attack Cyrus Guard-A ",
             "(fate attack Guard-A Cyrus ", "(fate round -d 'cyrus=0 0 0 0'"],
}

# The lines of each script that fail, as the one line each prints.
ERRORS = {
    "fudge": ["error: no command 'exchnage': did you mean exchange? (? lists the commands and shorthands)",
              "error: no combatant 'nobody' in duel; combatants: Snorri, Brynhild"],
    "fudge-phases": ["error: nobody has the turn: `n` gives the next actor the turn (`round` first, if none is rolled)"],
    "phases-classic": ["error: it is Brynhild's turn, and a fighter does not strike himself: name whom Brynhild attacks",
                       "error: Brynhild already acted in phase ++; `next` moves on"],
    "atari-isev": [],
    "fate": ["error: 'guard' could be Guard-A or Guard-B: type more of the name",
             "error: nobody has the turn: `fate round` orders a new round by Alertness (FT-INIT)",
             "error: it is Cyrus's turn, and a fighter does not strike himself: name whom Cyrus attacks",
             "error: it is Cyrus's turn: Fate's turns move on when he acts, `a TARGET`, or gives it up, "
             "`fate pass` or `fate hold` (FT-INIT)"],
}


def play(tmp_path: Path, script: str, *args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """`fudge play ARGS < script`, run from the project's root (the examples' paths are relative)."""
    return fudge("play", *args, store=tmp_path / "fudge.db", input=script, cwd=ROOT, **options)


def masked(text: str) -> str:
    """Command ids are random: `undo: command 7ff03a90 voided` reads `command <id>`; so are the hashes of a
    receipt (each event is stamped with the time it was written): `receipt 12:<hash>`."""
    text = re.sub(r"\bcommand [0-9a-f]{8}\b", "command <id>", text)
    return re.sub(r"\breceipt (\d+):[0-9a-f]{32}\b", r"receipt \1:<hash>", text)


@pytest.mark.parametrize("preset", list(SCRIPTS))
def test_a_scripted_session_under_each_preset(tmp_path: Path, preset: str, snapshot: SnapshotAssertion) -> None:
    done = play(tmp_path, SCRIPTS[preset])
    assert done.returncode == 0, done.stderr
    assert "(generated)" not in done.stdout  # every die typed: the same story every run
    assert "\x1b" not in done.stdout + done.stderr  # NO_COLOR, and not a terminal
    for expansion in EXPANDED[preset]:
        assert expansion in done.stdout, expansion
    assert done.stderr.splitlines() == ERRORS[preset]
    commands = [line for line in SCRIPTS[preset].splitlines() if line.strip() and not line.startswith("#")]
    echoed = [line for line in done.stdout.splitlines() if re.match(r"^[\w-]*( [\w-]+)?> ", line)]
    assert [line.split("> ", 1)[1] for line in echoed] == commands  # each command echoed after its prompt
    assert masked(done.stdout) == snapshot(name="stdout")


def test_the_board_is_redrawn_after_every_command_that_ran(tmp_path: Path) -> None:
    """A command that wrote or only read: the board under its output. `status` printed the fight
    itself; a failed line, or `?`, changed nothing: the board above still holds."""
    done = play(tmp_path, SCRIPTS["fudge"])
    boards = re.findall(r"^duel \(.*\) · ", done.stdout, re.M)  # a board's first line (no receipt under it)
    assert len(boards) == 8, done.stdout  # new, two joins, two exchanges, a declaration, undo, redo
    assert "receipt " not in done.stdout  # `verify` and `status` print it, not every board

    done = play(tmp_path, "fights\nlog\n?\nattack\nstatus\ninitiative\n")
    lines = done.stdout.splitlines()
    headers = [index for index, line in enumerate(lines) if re.match(r"^duel \(.*\) · ", line)]
    prompts = {line.split("> ", 1)[1]: index for index, line in enumerate(lines) if line.startswith("duel> ")}
    drawn_after = {command: any(prompts[command] < h < prompts.get(following, len(lines)) for h in headers)
                   for command, following in (("fights", "log"), ("log", "?"), ("?", "attack"),
                                              ("attack", "status"), ("initiative", None))}
    assert drawn_after == {"fights": True, "log": True, "?": False, "attack": False, "initiative": True}
    status_headers = [h for h in headers if prompts["status"] < h < prompts["initiative"]]
    assert len(status_headers) == 1  # `status` prints the fight once, not a board beside it


def test_the_prompt_names_whose_turn_it_is(tmp_path: Path) -> None:
    done = play(tmp_path, SCRIPTS["fudge-phases"])
    assert "watch Brynhild> a leroy" in done.stdout
    assert "watch Leroy> a brynhild" in done.stdout


def test_bad_lines_are_one_error_line_each_and_the_session_goes_on(tmp_path: Path) -> None:
    script = "\n".join([
        "new duel",
        "join examples/sheets/snorri.toml",
        'join "examples/sheets/brynhild.toml',  # an open quote
        "attack",  # a missing argument (click's usage error)
        "attack snorri --mod x",  # a value of the wrong type
        "frobnicate",  # no such command
        "play duel",  # a session in a session
        "a snorri",  # nobody's turn in simultaneous rounds, nobody against him
        "roll nobody Sword",  # refused by the rules
        "y",  # an answer, with no player's request waiting
        "fights",
    ]) + "\n"
    done = play(tmp_path, script)
    assert done.returncode == 0
    errors = done.stderr.splitlines()
    assert len(errors) == 8 and all(line.startswith("error: ") for line in errors), errors
    assert "close the quote" in errors[0]
    assert "missing argument" in errors[1] and "see `attack --help`" in errors[1]
    assert "invalid value for '--mod'" in errors[2]
    assert errors[3].startswith("error: no command 'frobnicate'")
    assert "already playing" in errors[4]
    assert "nobody stands against Snorri" in errors[5]
    assert "no combatant 'nobody'" in errors[6]
    assert errors[7].startswith("error: no player's request is waiting for 'y'")
    assert "Snorri joins duel" in done.stdout
    assert "* duel: 2 events" in done.stdout  # started, one join: nothing else was written
    assert "Traceback" not in done.stdout + done.stderr


def test_strict_stops_at_the_first_failing_line_with_its_status(tmp_path: Path) -> None:
    script = "new duel\nattack\nfights\n"
    done = play(tmp_path, script, "--strict")
    assert done.returncode == 2  # click's usage error
    assert "fights" not in done.stdout.split("> attack", 1)[1]
    assert "duel: " not in done.stdout
    assert play(tmp_path, "fights\nroll nobody Sword\n", "--strict").returncode == 1  # a rule refusal


def test_q_leaves_and_the_lines_after_it_are_not_run(tmp_path: Path) -> None:
    done = play(tmp_path, "new duel\nq\nnew other\n")
    assert done.returncode == 0
    assert "fight duel started" in done.stdout and "other" not in done.stdout


def test_play_fight_makes_it_current_and_an_unknown_one_is_one_error(tmp_path: Path) -> None:
    db = tmp_path / "fudge.db"
    fudge("new", "one", store=db)
    fudge("new", "two", store=db)
    done = play(tmp_path, "fights\n", "one")
    assert "* one: " in done.stdout and "  two: " in done.stdout
    missing = play(tmp_path, "fights\n", "three")
    assert missing.returncode == 1
    assert missing.stderr.splitlines() == [f"error: no fight named 'three' in {db}; `fudge fights` lists them"]


def test_the_store_given_before_play_is_the_store_of_every_line(tmp_path: Path) -> None:
    """Each line runs `fudge`'s callback again: without the session's --store it would fall back to $FUDGE_STORE."""
    elsewhere = tmp_path / "elsewhere.db"
    done = play(tmp_path, "new duel\njoin examples/sheets/snorri.toml\n", env={"FUDGE_STORE": str(elsewhere)})
    assert done.returncode == 0, done.stderr
    assert not elsewhere.exists()
    assert "* duel: 2 events" in fudge("fights", store=tmp_path / "fudge.db").stdout


def test_help_lists_the_commands_and_shorthands_and_a_command_help_is_typers(tmp_path: Path) -> None:
    done = play(tmp_path, "?\n? attack\n")
    assert done.returncode == 0
    assert "At the table: " in done.stdout and "a TARGET" in done.stdout and "u, r" in done.stdout
    assert "Usage: fudge attack [OPTIONS]" in done.stdout


def test_a_line_may_begin_with_fudge(tmp_path: Path) -> None:
    done = play(tmp_path, "fudge new duel\n")
    assert "fight duel started" in done.stdout


def test_a_store_that_cannot_be_opened_is_one_error_before_any_session(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    done = fudge("play", store=folder, input="fights\n")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"error: the store {folder} is a folder: name a store file (--store FILE)"]
    assert done.stdout == ""


def test_odds_of_the_next_blow_at_the_table(tmp_path: Path) -> None:
    """`odds TARGET` in play is `fudge odds --fight TARGET`: the actor's next blow as the fight stands;
    `odds A.toml B.toml` stays the odds between two sheets."""
    script = """\
new watch --rules fudge-phases
join examples/sheets/leroy.toml --side watch
join examples/sheets/brynhild.toml --side raiders
round -d "leroy=+ + 0 -" -d "brynhild=+ + + - 0"
n
odds le
odds examples/sheets/snorri.toml examples/sheets/brynhild.toml
"""
    done = play(tmp_path, script, "--strict")
    assert done.returncode == 0, done.stderr
    assert "  (odds --fight Brynhild Leroy)" in done.stdout  # the striker named, as `a le` would strike
    in_fight = fudge("odds", "--fight", "Leroy", store=tmp_path / "fudge.db", cwd=ROOT)
    assert in_fight.returncode == 0, in_fight.stderr
    said = in_fight.stdout.strip().splitlines()[0]
    assert said.startswith("Brynhild hits Leroy ") and said in done.stdout  # the same line, one-shot or at the table
    sheets = fudge("odds", "examples/sheets/snorri.toml", "examples/sheets/brynhild.toml",
                   store=tmp_path / "fudge.db", cwd=ROOT)
    assert sheets.returncode == 0 and sheets.stdout in done.stdout  # two sheets: not the fight


def test_hints_inside_play_name_the_commands_as_play_takes_them(tmp_path: Path) -> None:
    """A hint names a command as it is typed where it is read: `join SHEET` in play, `fudge join SHEET` at the
    shell; a round's end in play is `n` (the next step of the loop), and `odds` names `odds`, not `a`."""
    done = play(tmp_path, "new duel --rules fudge-phases\n"
                          "join examples/sheets/leroy.toml --side watch\njoin examples/sheets/snorri.toml --side watch\n"
                          "join examples/sheets/brynhild.toml --side heroes\nnew duel2 --rules fudge\n")
    assert done.returncode == 0, done.stderr
    assert "no combatants yet: `join SHEET` adds one" in done.stdout
    assert "`fudge " not in done.stdout + done.stderr
    shell = fudge("status", store=tmp_path / "fudge.db", cwd=ROOT)
    assert "`fudge join SHEET` adds one" in shell.stdout  # the same board at the shell keeps `fudge`


def test_odds_with_several_foes_names_odds_in_its_hint(tmp_path: Path) -> None:
    done = play(tmp_path, "new duel --rules fudge\njoin examples/sheets/leroy.toml --side watch\n"
                          "join examples/sheets/snorri.toml --side watch\njoin examples/sheets/brynhild.toml --side heroes\n"
                          "odds bry\n")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["error: simultaneous rounds have no current actor and 2 foes of Brynhild "
                                        "stand: name who fights, `odds FIGHTER Brynhild`"]
