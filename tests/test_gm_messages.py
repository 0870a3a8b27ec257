"""What the GM reads when something is off: names, ranges, expired declarations, commands, orders, sums.

Each test here failed on the code before its fix (the trust issue's smaller items).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import ROOT, fudge as run
from tests.test_cli import SHEETS, Fudge, duel, fresh_logging, fudge  # noqa: F401  (fixtures)


def test_an_imported_fight_shows_the_name_it_was_imported_as(tmp_path: Path) -> None:
    """`fudge import --as copy`: status, its JSON and its errors say `copy`, not the exported fight's name."""
    store = tmp_path / "fudge.db"
    for args in (("new", "duel"), ("join", str(SHEETS / "snorri.toml")), ("join", str(SHEETS / "brynhild.toml")),
                 ("export", "-o", str(tmp_path / "duel.jsonl")), ("import", str(tmp_path / "duel.jsonl"), "--as", "copy")):
        assert run(*args, store=store).returncode == 0
    assert run("status", "--fight", "copy", store=store).stdout.startswith("copy (fudge)")
    assert json.loads(run("status", "--fight", "copy", "--json", store=store).stdout)["fight"] == "copy"
    run("use", "copy", store=store)
    run("exchange", "Snorri", "Brynhild", store=store)  # the stored status view, written by a command
    assert run("status", store=store).stdout.startswith("copy (fudge)")
    assert "in copy" in run("roll", "Nobody", store=store).stderr
    assert run("status", "--fight", "duel", store=store).stdout.startswith("duel (fudge)")


def test_as_of_and_to_outside_the_log_say_what_the_log_holds(duel: Fudge) -> None:
    """`status --as-of N` and `replay --to N` beyond the log (or before it) are refused, naming its range."""
    events = len(duel.log())
    expected = f"error: the log of duel has {events} events; --as-of takes 1..{events}"
    assert duel.fails("status", "--as-of", str(events + 1)) == expected
    assert duel.fails("status", "--as-of", "0") == expected
    assert duel.fails("replay", "--to", "99999999999999999999") == expected.replace("--as-of", "--to")
    assert duel("status", "--as-of", str(events)).stdout == duel("status").stdout


def test_F_TAC_1_a_declaration_a_new_round_cleared_unused_is_reported(fudge: Fudge) -> None:
    """F-TAC-1: Brynhild has fought this round; Snorri declares, and his exchange with her opens round 2,
    which his round-1 declaration is not for: the command says it expired unused."""
    fudge("new", "duel")
    for sheet in ("snorri", "brynhild", "cutthroat"):
        fudge("join", SHEETS / f"{sheet}.toml")
    fudge("exchange", "Brynhild", "Cutthroat", "--dice", "brynhild=0 0 0 0", "--dice", "cutthroat=0 0 0 0")
    fudge("declare", "Snorri", "--all-out-offense")
    result = fudge("exchange", "Snorri", "Brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0")
    assert "round 2 begins" in result.stdout and "all-out" not in result.stdout
    assert result.stderr.strip() == ("warning: Snorri's declaration for round 1 (all-out offense) expired unused: "
                                     "round 2 began; declare again for this round (F-TAC-1)")
    fudge("declare", "Snorri", "--all-out-offense")  # declared in round 2, used in round 2: no warning
    used = fudge("exchange", "Snorri", "Cutthroat", "--dice", "snorri=0 0 0 0", "--dice", "cutthroat=0 0 0 0")
    assert "all-out offense" in used.stdout and used.stderr == ""


@pytest.mark.parametrize("command,typed", [(("next",), "fudge next"), (("round",), "fudge round"),
                                           (("exchange", "Cyrus", "Finn"), "fudge exchange")])
def test_FT_PACE_commands_fate_leaves_out_are_named_as_the_GM_typed_them(
        fudge: Fudge, command: tuple[str, ...], typed: str) -> None:
    """FT-PACE: `fudge next` under Fate is refused in the GM's words, not the engine's class names."""
    fudge("new", "tavern", "--rules", "fate")
    fudge("join", SHEETS / "cyrus.toml")
    fudge("join", SHEETS / "finn.toml")
    line = fudge.fails(*command)
    assert line.startswith(f"error: `{typed}` is not used under Fate (FT-PACE)"), line
    assert not re.search(r"NextTurn|StartRound|Exchange\b", line)


def test_initiative_shows_the_order_each_ruleset_uses(fudge: Fudge, tmp_path: Path) -> None:
    """AI-INIT-2: rolled totals, highest first, the actor marked; FT-INIT: Fate's order by Alertness;
    F-INIT-1: Fudge's simultaneous rounds have none. Only phase initiative sends the GM to `fudge round`."""
    fudge("new", "tavern", "--rules", "atari-isev")
    fudge("join", SHEETS / "dwarzuga.toml")
    fudge("join", SHEETS / "max.toml")
    assert "`fudge round` rolls it (AI-INIT)" in fudge("initiative").stdout
    fudge("round", "--dice", "dwarzuga=+ + 0 0", "--dice", "max=- - 0 0")
    fudge("next")
    shown = fudge("initiative").stdout.splitlines()
    totals = {c["name"]: c["initiative"]["total"] for c in fudge.status()["combatants"]}
    assert shown[0].startswith("round 1: rolled initiative, highest total first")
    assert shown[1:] == [f"  > {totals['Dwarzuga']:+3d}  Dwarzuga", f"    {totals['Max']:+3d}  Max"]

    fudge("new", "duel")
    fudge("join", SHEETS / "snorri.toml")
    assert fudge("initiative").stdout.startswith("no initiative (F-INIT-1): each engaged pair makes one opposed roll")

    house = tmp_path / "turns.toml"
    house.write_text('extends = "fate"\npace = "turn"\ninitiative = "alertness"\n')
    fudge("new", "turns", "--rules", "fate", "--house", house)
    fudge("join", SHEETS / "cyrus.toml")
    fudge("join", SHEETS / "finn.toml")
    fudge("fate", "round", "--dice", "cyrus=0000", "--dice", "finn=0000")
    assert fudge("initiative").stdout.splitlines() == [
        "round 1: turns by Alertness, then Tactics, then combat skill (FT-INIT)", "  1. Finn", "  2. Cyrus"]


def test_FT_HEAL_1_FT_TRACK_3_a_recovery_roll_shows_the_healers_penalty_in_its_sum(fudge: Fudge) -> None:
    """FT-TRACK-3: a Hurt healer rolls Medicine at -1; the printed sum adds up to the result it shows."""
    fudge("new", "tavern", "--rules", "fate")
    for args in (("cyrus.toml",), ("finn.toml",), ("guard.toml", "--as", "Guard-A"), ("guard.toml", "--as", "Guard-B")):
        fudge("join", SHEETS / args[0], *args[1:])
    fudge("fate", "exchange", "Finn>Guard-A", "Guard-A>Finn", "--skill", "Finn=Throwing", "--mod", "Finn=4",
          "--dice", "finn=0 0 0 0", "--dice", "guard-a=0 0 0 0")
    fudge("fate", "exchange", "Cyrus>Guard-B", "Guard-B>Cyrus", "--mod", "Cyrus=2",
          "--dice", "cyrus=0 0 0 0", "--dice", "guard-b=0 0 0 0")
    assert fudge.who("Guard-B")["fate"]["scene"] == -1
    out = fudge("fate", "recover", "Guard-A", "--by", "Guard-B", "--dice", "guard-b=0 0 0 0").stdout
    assert "Guard-B Medicine Mediocre +0 -1 (wounds, GM modifier) = Poor vs Fair" in out, out


def test_C_DICE_3_a_missing_roll_names_an_Axe_roll(fudge: Fudge, tmp_path: Path) -> None:
    """C-DICE-3: every roll typed; the missing one is asked for with the right article (an Axe, a Sword)."""
    house = tmp_path / "entered.toml"
    house.write_text('extends = "fudge"\ndice = "entered"\n')
    fudge("new", "duel", "--house", house)
    fudge("join", SHEETS / "snorri.toml")
    fudge("join", SHEETS / "brynhild.toml")
    line = fudge.fails("exchange", "Snorri", "Brynhild", "--dice", "snorri=+ 0 0 0")
    assert "Brynhild needs an Axe roll of 4dF" in line, line
    line = fudge.fails("exchange", "Snorri", "Brynhild", "--dice", "brynhild=+ 0 0 0")
    assert "Snorri needs a Sword roll of 4dF" in line, line


@pytest.mark.parametrize("argv,help_of", [(("exchange",), "fudge exchange"), (("exchange", "--bogus"), "fudge exchange"),
                                          (("bogus",), "fudge"), (("rules", "bogus"), "fudge rules"),
                                          (("status", "--as-of", "x"), "fudge status")])
def test_usage_errors_are_one_line(tmp_path: Path, argv: tuple[str, ...], help_of: str) -> None:
    """docs/table.md's promise: a usage error is `error: ...` on one line of stderr, with where help is; exit 2."""
    result = run(*argv, store=tmp_path / "fudge.db")
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: "), result.stderr
    assert result.stderr.rstrip().endswith(f"see `{help_of} --help`"), result.stderr
    assert not (tmp_path / "fudge.db").exists()


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads worker processes from /proc")
def test_ctrl_c_stops_a_parallel_sim_at_once_saying_how_far_it_got(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) on `fudge sim --jobs 2`: one line,
    exit 130, within seconds, no traceback, no worker left behind."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update(PYTHONPATH=str(ROOT), FUDGE_KEY_FILE=str(tmp_path / "key"))
    process = subprocess.Popen(
        [sys.executable, "-m", "fudge_combat.cli.main", "--store", str(tmp_path / "fudge.db"), "sim", str(SHEETS / "snorri.toml"),
         str(SHEETS / "brynhild.toml"), "-n", "5000000", "--jobs", "2", "--seed", "7"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not _children(process.pid) and time.monotonic() < deadline:  # the worker is running (the
            time.sleep(0.1)  # sim itself is the other of the two jobs)
        workers = _children(process.pid)
        assert workers, "the sim's worker did not start"
        time.sleep(0.5)
        os.killpg(process.pid, signal.SIGINT)
        sent = time.monotonic()
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert time.monotonic() - sent < 10
    assert process.returncode == 130 and out == ""
    assert re.fullmatch(r"error: interrupted after \d+ of 5000000 fights: .*--seed 7 plays the same fights\)\n",
                        err), err
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]
