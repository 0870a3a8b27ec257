"""A one-shot command's line read from its declaration (cli.quick) gives the command what Typer gives it.

`cli.quick` reads a line of plain words and numbers before Typer builds the command, and leaves every other
line to Typer. These tests hold it to that: over every command of fudge it reads, for lines drawn from the
command's own options, arguments and the tokens Typer reads otherwise (help, `--`, attached values, numbers
written oddly or out of bounds, repeated options, missing values), a line it reads gives the command's
function exactly the keyword arguments Typer's reading gives it, and a line Typer refuses it never reads.
Then the same commands as processes: the same output, error lines and exit codes either way.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st

from fudge_combat.cli import main, quick
from fudge_combat.cli.params import FudgeCommand
from tests.fuzzing import fuzz
from tests.processes import fudge as run_fudge

ROOT = Path(__file__).resolve().parents[1]


def declared() -> dict[str, Any]:
    """Every command of fudge, a group's too (`fate exchange`): its name and its function."""
    found = {}
    for name, module in main.COMMANDS.items():
        app = importlib.import_module(f"fudge_combat.cli.{module}").app
        for info in app.registered_commands:
            if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:
                found[name] = info.callback
        for group in app.registered_groups:
            if group.name == name and group.typer_instance is not None:
                for info in group.typer_instance.registered_commands:
                    found[f"{name} {info.name or typer.main.get_command_name(info.callback.__name__)}"] = \
                        info.callback
    return found


COMMANDS = declared()


def read_here(function: Any, tokens: list[str]) -> dict[str, Any] | None:
    try:
        return quick.read(params(function), tokens)[0]
    except quick.NotRead:
        return None


@functools.lru_cache(maxsize=None)
def params(function: Any) -> list[quick.Param]:
    return quick.params_of(function)


def read_by_typer(function: Any, tokens: list[str]) -> dict[str, Any] | None:
    """What Typer gives `function` for `tokens` (None: it refuses the line), built as fudge builds a command
    (`FudgeCommand`: the bounds of whole numbers), with a recorder standing for the function."""
    command, seen = typer_command(function)
    seen.clear()
    try:
        command.main(list(tokens), prog_name="fudge", standalone_mode=False)
    except (typer.Exit, main.click_errors.ClickException):
        return None
    return dict(seen)


@functools.lru_cache(maxsize=None)
def typer_command(function: Any) -> tuple[Any, dict[str, Any]]:
    """Typer's command for `function`, built once (as `fudge` builds it), and what its recorder was last given."""
    seen: dict[str, Any] = {}

    @functools.wraps(function)
    def recorder(**kwargs: Any) -> None:
        seen.update(kwargs)

    app = typer.Typer()
    app.command(cls=FudgeCommand)(recorder)
    return typer.main.get_command(app), seen


def test_the_commands_at_the_table_are_read_before_typer() -> None:
    """The one-shot commands a GM types most are read here; a group, an option read otherwise (a callback, a
    choice of paths) keeps its command Typer's."""
    readable = set()
    for name, function in COMMANDS.items():
        try:
            quick.params_of(function)
            readable.add(name)
        except quick.NotRead:
            pass
    assert {"attack", "exchange", "roll", "declare", "round", "next", "spend", "mark", "undo", "melee",
            "sim", "fate exchange", "fate attack"} <= readable
    assert "play" not in readable  # it takes Typer's context


def tokens_for(function: Any) -> st.SearchStrategy[list[str]]:
    """Lines drawn from the command's own words and the tokens Typer reads otherwise."""
    params = quick.params_of(function)
    names = [decl for param in params if param.option for decl in param.names]
    values = ["F1", "Snorri", "Leroy=++--", "Good", "0", "3", "-2", "1000", "1001", "-1001", "007", "+1", "1_0",
              "", "-", "--", "--help", "-h", "x y", "ünï", "2.5", "9" * 19, "-" + "9" * 18, "1" * 5000]
    names = names or ["--json"]  # a command of arguments alone: an option it does not know
    token = st.one_of(st.sampled_from(names), st.sampled_from(values),
                      st.builds(lambda n, v: f"{n}={v}", st.sampled_from(names), st.sampled_from(values)),
                      st.text(alphabet="abF01-+=", max_size=4))
    return st.lists(token, max_size=8)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_line_read_here_gives_the_command_what_typer_gives_it(name: str) -> None:
    function = COMMANDS[name]
    try:
        quick.params_of(function)
    except quick.NotRead:
        pytest.skip(f"`fudge {name}` is Typer's to read")

    @fuzz(100)
    @given(tokens_for(function))
    def check(tokens: list[str]) -> None:
        here = read_here(function, tokens)
        if here is not None:
            assert read_by_typer(function, tokens) == here, tokens

    check()


@pytest.mark.parametrize("tokens", [
    ["F1", "F2"], ["F1", "F2", "--mod", "-2", "--json"], ["--dice", "F1=++++", "F1", "--dice=F2=----", "F2"],
    ["F1", "--pos", "behind", "--pos", "above", "F2", "--fight", "short", "-f", "other"],
    ["F1", "F2", "--need-rd", "3", "--aim", "Good", "--command-id", "x"],
])
def test_lines_of_a_table_are_read_here_as_typer_reads_them(tokens: list[str]) -> None:
    """The lines above are read here (not left to Typer), and as Typer reads them."""
    here = read_here(COMMANDS["attack"], tokens)
    assert here is not None
    assert here == read_by_typer(COMMANDS["attack"], tokens)


@pytest.mark.parametrize("tokens", [
    ["F1", "F2", "--help"], ["F1", "--", "F2"], ["F1", "F2", "--mod", "+1"], ["F1", "F2", "--mod", "1001"],
    ["F1", "F2", "--mod"], ["F1", "F2", "--no-such"],
    ["F1", "F2", "--json=yes"], ["F1", "F2", "--fight", "-x"], [],
])
def test_lines_typer_reads_otherwise_are_left_to_it(tokens: list[str]) -> None:
    assert read_here(COMMANDS["attack"], tokens) is None


@given(st.lists(st.sampled_from(["--store", "x.db", "--store=y.db", "-v", "--verbose", "-vv", "--version", "--help",
                                 "attack", "--", ""]), max_size=5))
@fuzz(300)
def test_the_roots_options_are_read_as_typer_reads_them(tokens: list[str]) -> None:
    """`fudge [--store FILE] [-v] COMMAND`: what the root's function gets, as Typer's group gives it."""
    try:
        here, rest = quick.read(quick.params_of(main.main, skip=frozenset({"version"})), [*tokens, "attack"],
                                group=True)
    except quick.NotRead:
        return
    at = len(tokens) + 1 - len(rest)
    assert read_by_typer_root(tokens[:at]) == here


def read_by_typer_root(tokens: list[str]) -> dict[str, Any] | None:
    seen = read_by_typer(main.main, tokens)
    if seen is not None:
        seen.pop("version")
    return seen


# As processes: lines read here and the same lines read by Typer (through `fudge`'s runner in a process of
# its own, which always leaves the line to Typer) print the same and exit alike, refusals included.
BY_TYPER = ("import sys\nfrom fudge_combat.cli.main import app\n"
            "app(sys.argv[1:], prog_name='fudge')\n")


def environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update(FUDGE_KEY_FILE=str(folder / "snapshot.key"), XDG_STATE_HOME=str(folder / "state"), NO_COLOR="1",
               COLUMNS="100")
    return env


LINES = [
    ["exchange", "Snorri", "Brynhild", "--dice", "Snorri=++--", "--dice", "Brynhild=0000"],
    ["attack", "Snorri", "Brynhild", "--dice", "Snorri=++++", "--dice", "Brynhild=----", "--json"],
    ["roll", "Leroy", "Perception", "--dice", "+0-0"],
    ["attack", "Snorri", "Brynhild", "Leroy"],  # one name or two: the command's own usage error
    ["attack", "Snorri", "Nobody", "--dice", "Snorri=++++"],  # no such combatant
    ["roll", "Leroy", "Perceptoin", "--dice", "+0-0"],  # a typo of a trait
    ["attack", "Snorri", "Brynhild", "--mod", "1001"],  # out of bounds: Typer's words either way
    ["exchange", "Snorri", "Brynhild", "--dice", "Snorri=+++"],  # three faces
    ["undo"],
]


def same(text: str) -> str:
    """What differs between two fights run alike: ids, the dice seed's commitment, the clock, the folder."""
    text = re.sub(r"\b[0-9a-f]{8,64}\b", "HEX", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT[0-9:.+Z-]+", "TIME", text)
    return re.sub(r"/\S*/(here|typer)\b", "FOLDER", text)


def test_the_same_lines_as_processes_print_and_exit_alike_either_way(tmp_path: Path) -> None:
    """Each line runs on two copies of the same fight: `fudge LINE` (read here when it can be) and the line
    given to fudge's app by a program (read by Typer); outputs, error lines and exit codes are equal, and so
    are the logs after."""
    folders = [tmp_path / "here", tmp_path / "typer"]
    for folder in folders:
        folder.mkdir()
        for name in ("snorri", "brynhild", "leroy"):
            (folder / f"{name}.toml").write_text((ROOT / "examples" / "sheets" / f"{name}.toml").read_text())
        (folder / "snapshot.key").write_text("6b" * 32)  # one key: the stored snapshots alike
        (folder / "snapshot.key").chmod(0o600)
    for line in (["new", "bridge"], ["join", "snorri.toml"], ["join", "brynhild.toml"],
                 ["join", "leroy.toml"]):
        for folder in folders:
            assert run_fudge(*line, store=folder / "fudge.db", cwd=folder).returncode == 0
    for line in LINES:
        here = run_fudge(*line, store=folders[0] / "fudge.db", cwd=folders[0])
        by_typer = subprocess.run([sys.executable, "-c", BY_TYPER, "--store", str(folders[1] / "fudge.db"), *line],
                                  cwd=folders[1], env=environment(folders[1]), capture_output=True, text=True,
                                  timeout=60)
        assert (here.returncode, same(here.stdout), same(here.stderr)) == \
            (by_typer.returncode, same(by_typer.stdout), same(by_typer.stderr)), line
    logs = [same(run_fudge("log", store=folder / "fudge.db", cwd=folder).stdout) for folder in folders]
    assert logs[0] == logs[1] and "Snorri" in logs[0]
