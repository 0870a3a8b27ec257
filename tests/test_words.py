"""The words of the place: a count with its noun and a name's possessive, as the GM reads them (in the
describe lines, the board and the refusals; engine.kernel.words)."""

from __future__ import annotations

from pathlib import Path

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
