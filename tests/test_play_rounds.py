"""`fudge play`'s loop through whole rounds: the round's end, `n` into the next one, and the guard on
starting a round while someone can still act. Every session is a `fudge play --strict` process on a
real store, every die typed: a refused line would end it with its status."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.processes import ROOT, fudge

MISS = '-d "{a}=- - - -" -d "{d}=+ + + +"'  # the attacker rolls -4, the defender +4: no wound, no damage roll
PHASE_DICE = '-d "leroy=+ + 0 -" -d "theodora=+ 0 0 -" -d "brynhild=+ + + - 0"'


def phase_round() -> str:
    """Twelve turns of a crunch phase round (four each); each actor passes but the last, Theodora, who strikes."""
    return "n\n" * 11 + "n\na brynhild " + MISS.format(a="theodora", d="brynhild") + "\n"


SCRIPTS = {
    # F-PACE-2, F-MULTI-2: Brynhild alone against Snorri and Leroy fights both at once, each round
    "fudge": ("new duel --rules fudge --house examples/house/snorri-brynhild.toml\n"
              "join examples/sheets/snorri.toml --side heroes\njoin examples/sheets/leroy.toml --side heroes\n"
              "join examples/sheets/brynhild.toml --side raiders\n"
              'a bry -d "brynhild=- - - -" -d "snorri=- - - -" -d "leroy=- - - -"\n'
              'a sn bry -d "brynhild=- - - -" -d "snorri=- - - -" -d "leroy=- - - -"\n'),
    # PH-1: `n` after the round's last turn rolls the next round's phases
    "fudge-phases": ("new watch --rules fudge-phases\njoin examples/sheets/leroy.toml --side watch\n"
                     "join examples/sheets/theodora.toml --side watch\njoin examples/sheets/brynhild.toml --side raiders\n"
                     f"round {PHASE_DICE}\n" + phase_round() + f"n {PHASE_DICE}\n" + phase_round()
                     + f"n {PHASE_DICE}\n"),
    # AI-INIT-2: rolled totals; `n` at the round's end rolls them again
    "atari-isev": ("new tavern --rules atari-isev\njoin examples/sheets/max.toml --side Max\n"
                   "join examples/sheets/cutthroat.toml --side bar\njoin examples/sheets/cutthroat.toml --as Cutthroat-2 --side bar\n"
                   + 'round -d "max=+ + 0 0" -d "cutthroat=0 0 0 0" -d "cutthroat-2=- 0 0 0"\n'
                   + ("n\na cutthroat " + MISS.format(a="max", d="cutthroat") + "\n"
                      "n\na max " + MISS.format(a="cutthroat", d="max") + "\n"
                      "n\na max " + MISS.format(a="cutthroat-2", d="max") + "\n"
                      'n -d "max=+ + 0 0" -d "cutthroat=0 0 0 0" -d "cutthroat-2=- 0 0 0"\n') * 2),
    # FT-PACE: each exchange takes everyone who engages, Guard-B too
    "fate": ("new brawl --rules fate\njoin examples/sheets/cyrus.toml\n"
             "join examples/sheets/guard.toml --as Guard-A\njoin examples/sheets/guard.toml --as Guard-B\n"
             + 'a guard-a -d "cyrus=0 0 0 0" -d "guard-a=- - - -" -d "guard-b=- - - -"\n' * 2),
}


def play(tmp_path: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return fudge("play", "--strict", *args, store=tmp_path / "fudge.db", input=script, cwd=ROOT)


@pytest.mark.parametrize("preset", sorted(SCRIPTS))
def test_three_fighters_play_two_whole_rounds_without_a_refused_line(tmp_path: Path, preset: str) -> None:
    """PH-1, F-INIT-2, AI-INIT-2, F-PACE-2, F-MULTI-2, FT-PACE: two rounds (Fate: two exchanges) of three
    fighters, typed as the GM plays them: no line is refused, and no die is generated."""
    script = SCRIPTS[preset]
    done = play(tmp_path, script)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout
    assert "(generated)" not in out
    if preset == "fudge":
        assert out.count("(melee Brynhild Snorri Leroy") == 2 and "round 2 begins" in out
    if preset == "fate":
        assert out.count("'Guard-B>Cyrus'") == 2 and "Guard-B rolls" in out
    if preset in ("fudge-phases", "atari-isev"):
        assert out.count("  (round -d") == 2 and "round 3 begins" in out
        ended = [line for line in out.splitlines() if " is over" in line]
        assert ended and all("'s turn" not in line for line in ended)
        after = out.split("round 1 is over", 1)[1]
        board = after.split("> ", 1)[0]  # to the next prompt
        assert "▶" not in board  # the mark is dropped with the round's turns
        prompt = next(line for line in after.split("\n") if "> " in line)
        assert prompt.split("> ")[0] in ("watch", "tavern")  # the prompt names nobody


def test_round_mid_round_is_refused_and_force_starts_it(tmp_path: Path) -> None:
    """PH-1: `round` while fighters can still act refuses in one line naming them and `--force`;
    `round --force` starts the next round; `round` straight after names that nobody has acted; undo
    across the round's end brings the first round back."""
    setup = ("new watch --rules fudge-phases\njoin examples/sheets/leroy.toml --side watch\n"
             "join examples/sheets/theodora.toml --side watch\njoin examples/sheets/brynhild.toml --side raiders\n"
             f"round {PHASE_DICE}\nn\n")
    assert play(tmp_path, setup).returncode == 0
    store = tmp_path / "fudge.db"
    refused = fudge("round", store=store, cwd=ROOT)
    assert refused.returncode not in (0, 70)
    assert refused.stderr.count("\n") == 1
    assert "Brynhild, Leroy and Theodora have not acted in round 1" in refused.stderr
    assert "`fudge round --force` starts round 2" in refused.stderr
    assert "round 1" in fudge("status", store=store, cwd=ROOT).stdout.splitlines()[0]
    forced = fudge("round", "--force", "-d", "leroy=0 0 0 0", "-d", "theodora=0 0 0 0", "-d", "brynhild=0 0 0 0 0", store=store, cwd=ROOT)
    assert forced.returncode == 0, forced.stderr
    assert "round 2 begins" in forced.stdout
    again = fudge("round", store=store, cwd=ROOT)
    assert again.returncode not in (0, 70) and "nobody has acted in round 2 yet" in again.stderr
    undone = fudge("undo", store=store, cwd=ROOT)
    assert undone.returncode == 0, undone.stderr
    head = fudge("status", store=store, cwd=ROOT).stdout.splitlines()[0]
    assert "round 1" in head and "'s turn" in head  # the first round is back, its turn given


def test_in_play_a_pair_fought_names_who_has_not_and_a_new_round_is_not_opened_for_them(tmp_path: Path) -> None:
    """F-PACE-2: two against two, each engaged pair once a round: after Snorri and Brynhild fight the
    prompt names Leroy and Theodora; a blow that would open round 2 before them is refused; theirs runs."""
    script = ("new duel --rules fudge --house examples/house/snorri-brynhild.toml\n"
              "join examples/sheets/snorri.toml --side heroes\njoin examples/sheets/leroy.toml --side heroes\n"
              "join examples/sheets/brynhild.toml --side raiders\njoin examples/sheets/theodora.toml --side raiders\n"
              'a sn bry -d "snorri=- - - -" -d "brynhild=- - - -"\n'
              'a le bry -d "leroy=- - - -" -d "brynhild=- - - -"\n'
              'a le theo -d "leroy=- - - -" -d "theodora=- - - -"\n')
    done = fudge("play", store=tmp_path / "fudge.db", input=script, cwd=ROOT)
    assert "duel, Leroy and Theodora to fight> a le bry" in done.stdout
    assert done.stderr.splitlines() == [
        "error: Brynhild fought in round 1 and Theodora has not: this would open round 2 (F-PACE-2); "
        "fight them first, or `round --force` opens it"]
    assert "(exchange Leroy Theodora" in done.stdout and "round 2 begins" not in done.stdout


ENDS = {  # what each fight has fought when the GM ends it, and the command that ends it
    "fudge": ("end", "the battle is over after 3 rounds"),
    "fudge-phases": ("end", "the battle is over after 3 rounds"),
    "atari-isev": ("end", "the battle is over after 3 rounds"),
    "fate": ("end-scene", "the scene is over after 3 exchanges"),  # FT-TRACK-3: Fate's fight ends with its scene
}


@pytest.mark.parametrize("preset", sorted(SCRIPTS))
def test_three_fighters_play_from_the_first_line_to_the_end_without_a_refused_line(tmp_path: Path, preset: str) -> None:
    """The whole fight under each preset, as the GM types it in play, to its end: no refused line (the session is
    --strict: one would end it with its status), a point spent (but under phases), then the summary (who stands, who is out, the
    rounds, the points, a line per fighter) and a last board with nobody's turn (F-HEAL-1, FT-PTS, C-FP-2)."""
    ending, header = ENDS[preset]
    spend = {"fudge": 'a sn bry -d "snorri=+ + + +" -d "brynhild=- - - -" -d "leroy=+ + + +"\nspend sn luck -d "snorri=+ + + 0"\n',
             "fudge-phases": "",  # these sheets hold no fudge point under phases

             "atari-isev": "n\na cutthroat " + MISS.format(a="max", d="cutthroat") + "\nspend max skill --shift +1\n",
             "fate": 'a guard-a -d "cyrus=+ + + +" -d "guard-a=- - - -" -d "guard-b=- - - -"\nfate point cyrus\n'}[preset]
    done = play(tmp_path, SCRIPTS[preset] + spend + ending + "\n")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    summary = done.stdout.split(f"> {ending}\n", 1)[1]
    assert header in summary
    lines = summary.splitlines()
    head = next(index for index, line in enumerate(lines) if line.startswith(header))
    fighters = lines[head + 1:head + 4]
    assert all(line.startswith("  ") and (" stands, " in line or " out: " in line) for line in fighters), fighters
    points = "fate" if preset == "fate" else "fudge"
    spent = 0 if preset == "fudge-phases" else 1
    assert sum(f"  1 {points} point spent" in line for line in fighters) == spent, fighters
    assert sum(f"  0 {points} points spent" in line for line in fighters) == 3 - spent, fighters
    board = "\n".join(lines[head + 4:])
    assert "▶" not in board and "'s turn" not in board
    if preset != "fate":
        assert "battle over" in board.splitlines()[0]
    if preset == "fudge":
        assert "Brynhild" in lines[head] and "is out" in lines[head]
        assert any(line.lstrip().startswith("Brynhild") and " out: " in line for line in fighters)


def test_fudge_next_at_a_rounds_end_and_before_the_first_starts_the_round_as_play_n_does(tmp_path: Path) -> None:
    """AI-INIT-2, PH-1: the one-shot `fudge next` before the first round rolls it (typed dice), gives the turns,
    and after the round's last turn starts the next round, initiative rolled; in play `n` before the first
    round starts it too."""
    store = tmp_path / "fudge.db"
    setup = ("new tavern --rules atari-isev\njoin examples/sheets/max.toml --side Max\n"
             "join examples/sheets/cutthroat.toml --side bar\njoin examples/sheets/cutthroat.toml --as Cutthroat-2 --side bar\n")
    assert play(tmp_path, setup).returncode == 0
    dice = ("-d", "max=+ + 0 0", "-d", "cutthroat=0 0 0 0", "-d", "cutthroat-2=- 0 0 0")
    first = fudge("next", *dice, store=store, cwd=ROOT)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    assert "round 1 begins" in first.stdout and "(generated)" not in first.stdout
    turns = ("n\na cutthroat " + MISS.format(a="max", d="cutthroat") + "\n"
             "n\na max " + MISS.format(a="cutthroat", d="max") + "\n"
             "n\na max " + MISS.format(a="cutthroat-2", d="max") + "\n")
    assert play(tmp_path, turns).returncode == 0
    assert "round 1 is over" in fudge("status", store=store, cwd=ROOT).stdout.splitlines()[0]
    second = fudge("next", *dice, store=store, cwd=ROOT)
    assert second.returncode == 0 and second.stderr == "", second.stderr
    assert "round 2 begins" in second.stdout
    given = fudge("next", store=store, cwd=ROOT)  # within the round: the next turn, as before
    assert given.returncode == 0 and "initiative +1: Max acts" in given.stdout, given.stdout

    phases = tmp_path / "phases"
    phases.mkdir()
    started = play(phases, "new watch --rules fudge-phases\njoin examples/sheets/leroy.toml --side watch\n"
                           'join examples/sheets/brynhild.toml --side raiders\nn -d "leroy=+ + 0 -" -d "brynhild=+ + + - 0"\n')
    assert started.returncode == 0 and started.stderr == "", started.stderr
    assert "  (round -d" in started.stdout and "round 1 begins" in started.stdout


@pytest.mark.parametrize("preset", ["fudge", "fate"])
def test_end_json_carries_the_summary_the_text_prints(tmp_path: Path, preset: str) -> None:
    """`fudge end --json` (Fate: `fudge end-scene --json`) holds the summary as data beside the events: the
    same fighters, states and points as the lines `fudge end` prints on a copy of the same store (F-HEAL-1, FT-PTS)."""
    ending, header = ENDS[preset]
    spend = {"fudge": 'a sn bry -d "snorri=+ + + +" -d "brynhild=- - - -" -d "leroy=+ + + +"\nspend sn luck -d "snorri=+ + + 0"\n',
             "fate": 'a guard-a -d "cyrus=+ + + +" -d "guard-a=- - - -" -d "guard-b=- - - -"\nfate point cyrus\n'}[preset]
    done = play(tmp_path, SCRIPTS[preset] + spend)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    store, copy = tmp_path / "fudge.db", tmp_path / "copy.db"
    copy.write_bytes(store.read_bytes())
    command = ("end-scene",) if preset == "fate" else ("end",)
    text = fudge(*command, store=copy, cwd=ROOT)
    as_json = fudge(*command, "--json", store=store, cwd=ROOT)
    assert text.returncode == 0 and as_json.returncode == 0, (text.stderr, as_json.stderr)
    summary = json.loads(as_json.stdout)["summary"]
    lines = text.stdout.splitlines()
    head = next(index for index, line in enumerate(lines) if line.startswith(header))
    unit = "exchanges" if preset == "fate" else "rounds"
    assert summary["over"] == ("scene" if preset == "fate" else "battle") and summary["fought"] == {unit: 3}
    assert [who["name"] for who in summary["fighters"]] == [line.split()[0] for line in lines[head + 1:head + 4]]
    for who, line in zip(summary["fighters"], lines[head + 1:head + 4]):
        assert f"  {who['state']}" in line and f"  {who['points_spent']} {summary['points']} point" in line, (who, line)
        assert who["stands"] == (" stands, " in line)
    assert sum(who["points_spent"] for who in summary["fighters"]) == 1
    assert any(ev["type"] in ("battle_ended", "fate_scene_ended") for ev in json.loads(as_json.stdout)["events"])
