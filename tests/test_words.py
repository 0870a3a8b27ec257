"""The words of the place: a count with its noun and a name's possessive, as the GM reads them (in the
describe lines, the board and the refusals; engine.kernel.words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fudge_combat.engine.kernel.words import counted, possessive
from tests.processes import ROOT, fudge


def test_a_count_takes_its_noun_in_the_singular_only_for_one() -> None:
    assert [counted(n, "fudge point") for n in (0, 1, 2)] == ["0 fudge points", "1 fudge point", "2 fudge points"]
    assert counted(1, "day") == "1 day" and counted(5, "day") == "5 days"
    assert counted(2, "box", "boxes") == "2 boxes"


def test_a_name_ending_in_s_takes_the_apostrophe_alone() -> None:
    assert [possessive(name) for name in ("Snorri", "heroes", "HEROES", "watch")] == \
        ["Snorri's", "heroes'", "HEROES'", "watch's"]


def test_the_board_says_heroes_side_and_a_refusal_counts_points(tmp_path: Path) -> None:
    db = tmp_path / "fudge.db"
    fudge("new", "d", "--rules", "fudge", store=db)
    fudge("join", "examples/sheets/leroy.toml", "--side", "watch", store=db, cwd=ROOT)
    fudge("join", "examples/sheets/snorri.toml", "--side", "heroes", store=db, cwd=ROOT)
    fudge("wound", "leroy", "Incapacitated", store=db)
    board = fudge("status", store=db).stdout.splitlines()
    assert "only heroes' side is standing" in board and "heroes's" not in "\n".join(board)
    refused = fudge("spend", "leroy", "scratch", store=db)
    assert refused.returncode != 0
    assert refused.stderr.splitlines() == ["error: Leroy has 0 fudge points; this costs 1 (C-FP-3)"]
    typo = fudge("spend", "leroy", "scrach", store=db)
    assert typo.returncode == 1 and typo.stderr.splitlines() == [
        "error: unknown use 'scrach': did you mean scratch? (one of: panache, skill, luck, scratch, ticking, spare)"]


def test_report_to_a_terminal_refuses_html_in_one_line_and_piped_output_still_works(tmp_path: Path) -> None:
    """`fudge report` without -o on a terminal: one line naming -o FILE, nothing written; through a pipe
    (as a script redirects it) the HTML comes out as before, and Markdown goes to a terminal too."""
    import os
    import sys

    pexpect = pytest.importorskip("pexpect")
    db = tmp_path / "fudge.db"
    fudge("new", "d", "--rules", "fudge", store=db)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update({"PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(tmp_path / "key.bin"), "NO_COLOR": "1", "TERM": "xterm",
                "FUDGE_SECRETS_FILE": str(tmp_path / "secrets.db")})

    def on_a_terminal(*args: str) -> tuple[str, int]:
        child = pexpect.spawn(sys.executable, ["-m", "fudge_combat.cli.main", "--store", str(db), "report", *args],
                              env=env, cwd=str(ROOT), encoding="utf-8", timeout=60, dimensions=(40, 200))
        out = child.read()
        child.close()
        return out, child.exitstatus

    out, status = on_a_terminal()
    assert out.strip().splitlines() == ["error: the report is HTML: write it to a file with -o FILE (or --format md)"]
    assert status == 1  # an input error (cli.exits), as every refused command
    md, status = on_a_terminal("--format", "md")
    assert status == 0 and "## d: after-action report" in md and "<html" not in md.lower()
    piped = fudge("report", store=db)
    assert piped.returncode == 0 and piped.stdout.lstrip().lower().startswith("<!doctype html")


def test_a_side_spelled_almost_as_one_joined_is_refused_with_the_near_side(tmp_path: Path) -> None:
    db = tmp_path / "fudge.db"
    fudge("new", "d", "--rules", "fudge", store=db)
    fudge("join", "examples/sheets/leroy.toml", "--side", "watch", store=db, cwd=ROOT)
    typo = fudge("join", "examples/sheets/theodora.toml", "--side", "wacth", store=db, cwd=ROOT)
    assert typo.returncode == 1
    assert typo.stderr.splitlines() == ["error: no side 'wacth' has joined: did you mean --side watch? "
                                        "(`--new-side` makes side wacth on purpose)"]
    assert "Theodora" not in fudge("status", store=db).stdout  # nothing written
    assert fudge("join", "examples/sheets/theodora.toml", "--side", "WATCH", store=db, cwd=ROOT).returncode == 0
    meant = fudge("join", "examples/sheets/snorri.toml", "--side", "watchers", "--new-side", store=db, cwd=ROOT)
    assert meant.returncode == 0 and "(side watchers)" in meant.stdout


def test_an_aspect_is_named_by_its_first_letters_and_a_slip_gets_did_you_mean(tmp_path: Path) -> None:
    """FT-PTS: `fate aspect cy bra` checks Cyrus's Brawler (the log holds the whole name); a near miss is
    refused in one line with "did you mean" and writes nothing; the shell completes his aspects, not skills."""
    from fudge_combat.store.sqlite import SqliteStore

    db = tmp_path / "fudge.db"
    for args in (("new", "brawl", "--rules", "fate"), ("join", "examples/sheets/cyrus.toml"),
                 ("join", "examples/sheets/guard.toml", "--as", "Guard-A"),
                 ("fate", "exchange", "Cyrus>Guard-A", "Guard-A>Cyrus", "-d", "cyrus=- - - -", "-d", "guard-a=0 0 0 0")):
        assert fudge(*args, store=db, cwd=ROOT).returncode == 0, args
    events = SqliteStore(db).last_seq("brawl")
    slip = fudge("fate", "aspect", "cy", "brawlr", store=db)
    assert slip.returncode == 1 and slip.stderr.splitlines() == [
        "error: Cyrus has no aspect 'brawlr': did you mean Brawler? (aspects: Brawler)"]
    assert SqliteStore(db).last_seq("brawl") == events
    checked = fudge("fate", "aspect", "cy", "bra", "-d", "cyrus=+ + + +", store=db)
    assert checked.returncode == 0, checked.stderr
    assert "Cyrus checks Brawler box 1" in checked.stdout
    stored = [row for row in SqliteStore(db).read("brawl") if row.type == "aspect_checked"]
    assert len(stored) == 1 and '"aspect":"Brawler"' in stored[0].body.replace(" ", "")


def test_play_and_the_shell_complete_a_fighters_aspects_not_his_skills(tmp_path: Path) -> None:
    """FT-PTS: after `fate aspect Cyrus ` the aspects of his sheet are offered, in play and in the shell."""
    import os
    import subprocess
    import sys

    from fudge_combat.cli.play_prompt import words_for
    from fudge_combat.service.fights import Fights
    from fudge_combat.store.sqlite import SqliteStore

    db = tmp_path / "fudge.db"
    for args in (("new", "brawl", "--rules", "fate"), ("join", "examples/sheets/cyrus.toml"),
                 ("join", "examples/sheets/guard.toml", "--as", "Guard-A")):
        assert fudge(*args, store=db, cwd=ROOT).returncode == 0, args
    words = ["fudge", "--store", str(db), "fate", "aspect", "Cyrus", ""]
    env = {**os.environ, "_FUDGE_COMPLETE": "complete_bash", "COMP_WORDS": " ".join(words), "COMP_CWORD": "6",
           "FUDGE_KEY_FILE": str(tmp_path / "snapshot.key")}
    shell = subprocess.run([sys.executable, "-m", "fudge_combat.cli.main"], capture_output=True, text=True,
                           cwd=tmp_path, env=env)
    assert shell.returncode == 0 and shell.stdout.split() == ["Brawler"], (shell.stdout, shell.stderr)

    class Table:  # what play's completion reads of its session: the state the board shows, the click commands
        def __init__(self) -> None:
            from fudge_combat.cli.play import Session

            self.state = Fights(SqliteStore(db)).state("brawl")
            self.command = Session.command.__get__(self)
            self.groups: dict[str, object] = {}
            self.group = Session.group.__get__(self)

    offered = list(words_for(Table(), ["fate", "aspect", "cy"], ""))  # type: ignore[arg-type]
    assert offered == ["Brawler"] and "Swords" not in offered
