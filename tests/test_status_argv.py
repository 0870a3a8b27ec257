"""`fudge status` answered before Typer runs (cli.views.status_from_argv) must mean what Typer means.

Whatever command line the hand-read path takes, Typer must take too (exit 0) and print the same
bytes: the same store (`--store FILE`, `--store=FILE`, or `$FUDGE_STORE`), the same fight
(`--fight NAME`, `--fight=NAME`, `-f NAME`, or the store's current one) and the same form
(the board, `--json`, `--long`). Anything the hand-read path refuses is Typer's to run, so it is not checked here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from fudge_combat.cli import main, views


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """Two stores: `duel` and `other` (current) in the first, `duel`, `other` and `third` (current) in the second."""
    folder = tmp_path_factory.mktemp("stores")
    first, second = str(folder / "first.db"), str(folder / "second.db")
    runner = CliRunner()
    for db, names in ((first, ("duel", "other")), (second, ("duel", "other", "third"))):
        for name in names:
            result = runner.invoke(main.app, ["--store", db, "new", name])
            assert result.exit_code == 0, result.output
    return first, second


def tokens(first: str, second: str) -> list[str]:
    return ["status", "--json", "--store", first, f"--store={first}", f"--store={second}", "--fight", "-f",
            "duel", "--fight=duel", "other", "third", "--", "-v", "--as-of", "3", "-fduel", "--help", "=", "--long"]


@st.composite
def command_lines(draw: Any, first: str, second: str) -> list[str]:
    """A plain `[--store FILE] status [--fight NAME] [--json] [--long]` in any of its spellings, then perhaps
    mangled: a token inserted, dropped or two swapped (most of those are Typer's to run)."""
    store = draw(st.sampled_from([[], ["--store", first], [f"--store={first}"], ["--store", second]]))
    fight = draw(st.sampled_from([[], ["--fight", "duel"], ["--fight=duel"], ["-f", "duel"], ["-f", "other"],
                                  ["--fight", "third"]]))
    after = [fight, *([form] for form in draw(st.sampled_from([[], ["--json"], ["--long"], ["--json", "--long"]])))]
    if draw(st.booleans()):
        after.reverse()
    argv = [*store, "status", *(token for part in after for token in part)]
    for _ in range(draw(st.integers(0, 2))):
        how = draw(st.sampled_from(("insert", "drop", "swap")))
        if how == "insert":
            argv.insert(draw(st.integers(0, len(argv))), draw(st.sampled_from(tokens(first, second))))
        elif argv:
            i, j = draw(st.integers(0, len(argv) - 1)), draw(st.integers(0, len(argv) - 1))
            if how == "drop":
                del argv[i]
            else:
                argv[i], argv[j] = argv[j], argv[i]
    return argv


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_A_REPLAY_1_a_status_read_before_typer_is_the_one_typer_prints(
        stores: tuple[str, str], monkeypatch: pytest.MonkeyPatch, data: Any) -> None:
    """A-REPLAY-1: every argv the read model answers, Typer answers alike (store, fight, --json, $FUDGE_STORE)."""
    first, second = stores
    monkeypatch.chdir(Path(first).parent)  # a mangled line may name a store file of its own: made there
    monkeypatch.setenv("FUDGE_STORE", second)  # no --store: the environment's store, as Typer reads it
    argv = data.draw(command_lines(first, second))
    shown = views.status_from_argv(argv)
    if shown is None:
        return
    result = CliRunner().invoke(main.app, argv)
    assert result.exit_code == 0, (argv, result.output)
    assert result.stdout == shown + "\n", argv


def test_the_environments_store_is_read_when_no_store_is_named(
        stores: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`$FUDGE_STORE` names the store when `--store` does not, in both paths (its current fight is `third`)."""
    first, second = stores
    monkeypatch.setenv("FUDGE_STORE", second)
    shown = views.status_from_argv(["status", "--json"])
    assert shown is not None and '"third"' in shown
    assert views.status_from_argv(["--store", first, "status", "--json"]) != shown
    assert CliRunner().invoke(main.app, ["status", "--json"]).stdout == shown + "\n"
