"""The conventions of a command line, each tried as a separate process on a real store: `fudge --version`,
shell completion from the store, help in the GM's words, `--command-id` hidden but honoured, one exit code
per kind of failure (cli.exits, listed in `fudge --help`), and `fudge rules explain ID`."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.core import TyperArgument, TyperOption

from fudge_combat.cli import exits, rule_texts
from fudge_combat.cli.main import app
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.presets import PRESETS
from fudge_combat.cli.gm_inputs import choices
from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
TYPE_LABEL = re.compile(r"<(?:str|int|bool|float|path|list\[[^\]]*\]|[a-z]+\|[a-z|]+)>")


def environment(store: Path) -> dict[str, str]:
    """The environment tests.processes.fudge gives a command: the same for a process started another way."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    env.update(PYTHONPATH=str(ROOT), FUDGE_KEY_FILE=str(store.parent / "snapshot.key"),
               XDG_STATE_HOME=str(store.parent / "state"), NO_COLOR="1", COLUMNS="100")
    return env


@pytest.fixture(scope="module")
def duel_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with two fights: `duel` (Snorri and Brynhild, current) and `other` (empty)."""
    store = tmp_path_factory.mktemp("made") / "fudge.db"
    for args in (("new", "other"), ("new", "duel"), ("join", str(SHEETS / "snorri.toml")),
                 ("join", str(SHEETS / "brynhild.toml"))):
        assert fudge(*args, store=store).returncode == 0
    return store


@pytest.fixture
def store(duel_store: Path, tmp_path: Path) -> Path:
    """A copy of the duel's store (and its snapshot key) for a test to change."""
    for name in ("fudge.db", "snapshot.key"):
        shutil.copy(duel_store.parent / name, tmp_path / name)
    return tmp_path / "fudge.db"


def pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


# --- fudge --version ----------------------------------------------------------------------------------

def test_version_is_the_package_version_and_loads_no_command(tmp_path: Path) -> None:
    from importlib import metadata

    try:
        expected = metadata.version("fudge-combat")
    except metadata.PackageNotFoundError:  # a source checkout: pyproject's
        expected = pyproject_version()
    shown = fudge("--version", store=tmp_path / "fudge.db")
    assert shown.returncode == 0 and shown.stdout == f"fudge {expected}\n" and shown.stderr == ""
    code = ("import sys\nfrom fudge_combat.cli.main import app\nsys.argv = ['fudge', '--version']\napp()\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env=environment(tmp_path / "fudge.db"), check=True)
    loaded = set(done.stderr.split())
    assert not loaded & {"pydantic.main", "fudge_combat.events.models", "fudge_combat.engine.kernel.options", "fudge_combat.engine.kernel.state", "fudge_combat.cli.render"}  # as status
    assert not loaded & {f"fudge_combat.cli.{module}" for module in ("fight", "table", "history", "rules", "fate", "odds", "sim")}
    assert not (tmp_path / "fudge.db").exists()


# --- shell completion ---------------------------------------------------------------------------------

def complete(store: Path, line: str, env: dict[str, str] | None = None) -> list[str]:
    """What bash's completion asks `fudge` for `line` (the word being completed is its last, maybe empty)."""
    words = ["fudge", "--store", str(store), *line.split(" ")]
    # `fudge --store STORE` with the shell's request: the completion reads the shell's words, not the arguments
    done = fudge(store=store, env={"_FUDGE_COMPLETE": "complete_bash", "COMP_WORDS": " ".join(words),
                                   "COMP_CWORD": str(len(words) - 1), **(env or {})})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line for line in done.stdout.splitlines() if line]  # no completion: one empty line


def test_completion_of_commands_and_options(store: Path) -> None:
    assert complete(store, "at") == ["attack"]
    assert set(complete(store, "attack --d")) == {"--dice", "--defense-mod", "--difficulty"}
    assert "--command-id" not in complete(store, "attack --")  # hidden in completion as in the help
    assert complete(store, "rules ex") == ["explain"]


def test_completion_of_fights_from_the_store(store: Path) -> None:
    assert set(complete(store, "use ")) == {"duel", "other"}
    assert complete(store, "attack --fight d") == ["duel"]
    assert complete(store, "log o") == ["other"]


def test_completion_of_the_combatants_of_the_current_or_named_fight(store: Path) -> None:
    assert complete(store, "attack ") == ["Snorri", "Brynhild"]  # join order
    assert complete(store, "attack Snorri b") == ["Brynhild"]  # any case
    assert complete(store, "roll Snorri Sword --opposed ") == ["Snorri", "Brynhild"]
    assert complete(store, "attack --fight other ") == []  # nobody has joined it


def test_completion_of_the_traits_of_the_combatant_named(store: Path) -> None:
    snorri = complete(store, "roll Snorri ")
    assert snorri[0] == "Sword" and "Strength" in snorri and "Axe" not in snorri
    assert complete(store, "roll Brynhild A") == ["Axe", "Agility"]  # the sheet's skills first
    assert complete(store, "roll Snorri Sword --opposed Brynhild --opposed-trait Ax") == ["Axe"]


def test_completion_reads_the_fight_when_no_stored_view_is_valid(store: Path) -> None:
    """The view is the cheap path; a store without one (written by other code) still completes."""
    with sqlite3.connect(store) as db:
        db.execute("DELETE FROM views")
    assert complete(store, "attack ") == ["Snorri", "Brynhild"]
    assert complete(store, "roll Brynhild A") == ["Axe", "Agility"]


def test_completion_loads_only_the_module_of_the_command(store: Path) -> None:
    """cli.main builds only the command the line names (COMMANDS): from the shell's line too."""
    code = ("import sys\nfrom fudge_combat.cli.main import app\ntry:\n    app()\nexcept SystemExit:\n    pass\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr)")
    words = ["fudge", "--store", str(store), "attack", ""]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                          env={**environment(store), "_FUDGE_COMPLETE": "complete_bash",
                               "COMP_WORDS": " ".join(words), "COMP_CWORD": "4"})
    assert done.stdout.splitlines() == ["Snorri", "Brynhild"]
    loaded = set(done.stderr.split())
    assert "fudge_combat.cli.table" in loaded and not loaded & {"fudge_combat.cli.fate", "fudge_combat.cli.history", "fudge_combat.cli.odds", "fudge_combat.cli.sim", "fudge_combat.cli.rules"}


def test_completion_of_a_missing_store_completes_nothing_and_makes_no_store(tmp_path: Path) -> None:
    assert complete(tmp_path / "none.db", "attack ") == []
    assert complete(tmp_path / "none.db", "use ") == []
    assert not (tmp_path / "none.db").exists()


def test_completion_of_a_sheet_offers_sheets_and_folders_not_other_files(store: Path) -> None:
    """`join ex<TAB>`: the folders (each with its `/`) and the sheets (TOML) whose path begins so, never a
    `.py` file nor a hidden one; a folder found alone is opened, so the shell writes its `/` and waits."""
    folder = store.parent
    for path in ("examples/sheets/kara.toml", "examples/sheets/notes.py", "examples/house/big.toml",
                 "exits.py", "extra.toml", "examples/.hidden/x.toml", "only/one/deep.toml", "only/skip.py"):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("")
    assert complete(store, "join ex") == ["examples/", "extra.toml"]
    assert complete(store, "join examples/") == ["examples/house/", "examples/sheets/"]
    assert complete(store, "join examples/sheets/") == ["examples/sheets/kara.toml"]
    assert complete(store, "join on") == ["only/one/deep.toml"]  # opened folder by folder
    assert complete(store, "join examples/.") == ["examples/.hidden/x.toml"]  # hidden: only when named


def test_completion_of_rule_ids(tmp_path: Path) -> None:
    numbered = [key for key in rule_texts.rules() if key.startswith("F-MOD-")]
    assert len(numbered) > 5 and complete(tmp_path / "fudge.db", "rules explain f-mod-") == numbered


def test_the_shell_script_names_fudge_and_its_variable(tmp_path: Path) -> None:
    shown = fudge("--show-completion", "bash", store=tmp_path / "fudge.db",
                  env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert shown.returncode == 0, shown.stderr
    assert "_FUDGE_COMPLETE=complete_bash" in shown.stdout and "complete -o default -F _fudge_completion fudge" in \
        shown.stdout


# --- help in the GM's words ---------------------------------------------------------------------------

def every_command() -> list[tuple[list[str], Any]]:
    out = []

    def walk(command: Any, path: list[str]) -> None:
        """A group's commands as click reads them (`list_commands`, `get_command`): `fudge` builds each when asked."""
        out.append((path, command))
        if hasattr(command, "list_commands"):
            ctx = command.context_class(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), [*path, name])
    walk(typer.main.get_command(app), [])
    return out


def help_of(path: list[str], store: Path) -> str:
    shown = fudge(*path, "--help", store=store)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


# Every command's --help printed by one `fudge` program (the CLI's own entry, `app(ARGS)`, in a process of its
# own): a process per command spent most of this file's time starting Python.
HELPS = """
import contextlib, io, json, sys
from fudge_combat.cli.main import app
shown = {}
for path in json.loads(sys.argv[2]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            app(["--store", sys.argv[1], *path, "--help"])
        except SystemExit as done:
            code = done.code
    shown[" ".join(path)] = [code, out.getvalue()]
print(json.dumps(shown))
"""


def helps_of(paths: list[list[str]], store: Path) -> dict[str, str]:
    """Each command's --help, by its words: all of them printed by one process (`HELPS`)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update({"FUDGE_KEY_FILE": str(store.parent / "snapshot.key"), "XDG_STATE_HOME": str(store.parent / "state"),
                        "NO_COLOR": "1", "COLUMNS": "100"})
    done = subprocess.run([sys.executable, "-c", HELPS, str(store), json.dumps(paths)], capture_output=True, text=True,
                          env=environment, cwd=store.parent, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    shown = json.loads(done.stdout)
    assert all(code == 0 for code, _ in shown.values()), {path: code for path, (code, _) in shown.items() if code}
    return {path: text for path, (_, text) in shown.items()}


def test_no_help_shows_a_type_label_or_the_command_id(tmp_path: Path) -> None:
    """Every command's --help, as the GM reads it: kinds of values (NAME, LEVEL, N), never `<str>`. Printed by
    one process; a command's own process prints the same text (two of them checked)."""
    paths = [path for path, _ in every_command()]
    helps = helps_of(paths, tmp_path / "fudge.db")
    assert len(helps) == len(paths) > 60
    for path in (["attack"], ["sheet", "new"]):
        assert helps[" ".join(path)] == help_of(path, tmp_path / "fudge.db"), path
    for path in paths:
        text = helps[" ".join(path)]
        assert not TYPE_LABEL.search(text), (path, TYPE_LABEL.search(text))
        assert "--command-id" not in text, path
        panels = re.findall(r"╭─ (.+?) ─", text)
        assert "Table dice and identity" not in panels[:-1], (path, panels)  # the table's dice and fight: last


def test_every_rule_id_a_help_cites_is_explained_and_none_opens_a_help_text(tmp_path: Path) -> None:
    """A rule ID goes at the end of a help text, in brackets; every one it names is in the rules digest."""
    known = rule_texts.rules()
    cited = set()
    opening = re.compile(rf"^{rule_texts.RULE_ID}-[A-Z0-9]+\b[^.]*?: ")
    for path, command in every_command():
        texts = [command.help or ""] + [param.help or "" for param in command.params]
        for text in texts:
            assert not opening.match(text), (path, text)
            for group in re.findall(r"\[([^\]]*)\]", text) + re.findall(r"\(([^)]*)\)", text):
                cited.update(re.findall(r"\b[A-Z]{1,3}(?:-[A-Z0-9]+)+\b", group))
    assert len(cited) > 50
    assert not [rule for rule in cited if not rule_texts.family(known, rule)], "cited but not in the digest"


def test_attack_help_reads_by_ruleset(tmp_path: Path) -> None:
    text = help_of(["attack"], tmp_path / "fudge.db")
    panels = re.findall(r"╭─ (.+?) ─", text)
    assert panels == ["Arguments", "Options", "Fudge", "Atari Isev", "Table dice and identity"]
    section = {name: body for name, body in re.findall(r"╭─ (.+?) ─+╮\n(.*?)╰", text, flags=re.S)}
    assert "--stun" in section["Fudge"] and "--stun" not in section["Atari Isev"]
    assert "--avoid" in section["Atari Isev"] and "--pos" in section["Atari Isev"]
    assert re.search(r"--min-hit +LEVEL +Minimum result to hit \[F-HIT-1\]", section["Fudge"])
    assert re.search(r"--dice +-d +FACES", section["Table dice and identity"])
    assert re.search(r"--unaware +The target does not defend \[F-MEL-3\]", section["Fudge"])  # a flag: no label
    assert "Usage: fudge attack [OPTIONS] [ATTACKER] TARGET" in text  # the attacker: the actor by default


def test_spend_help_explains_every_use_the_rules_allow(tmp_path: Path) -> None:
    text = help_of(["spend"], tmp_path / "fudge.db")
    for use in choices(cmd.SpendPoint, "use"):
        explained = re.search(rf"^ {use}: (.*?)\n *\n", text, flags=re.M | re.S)
        assert explained and re.search(r"\[[A-Z]{1,3}-", explained.group(1)), use


def test_the_exit_codes_are_listed_in_the_help(tmp_path: Path) -> None:
    text = help_of([], tmp_path / "fudge.db")
    listed = dict(re.findall(r"^ +(\d+)  (.+?) *$", text.split("Exit codes:")[1], flags=re.M))
    assert set(map(int, listed)) == {exits.OK, exits.REFUSED, exits.USAGE, exits.VERIFY_FAILED, exits.INTERNAL_ERROR,
                                     exits.WRITE_CONFLICT, exits.INTERRUPTED, exits.CLOSED_PIPE}
    assert len(set(map(int, listed))) == 8


def test_typer_labels_are_replaced_in_one_place() -> None:
    """Every parameter of every command goes through cli.params (no command is left with Typer's labels)."""
    from fudge_combat.cli.params import Argument, Option

    for path, command in every_command():
        from typer._click.core import Context

        for param in command.get_params(Context(command)):
            if isinstance(param, (TyperArgument, TyperOption)):
                assert isinstance(param, (Argument, Option)), (path, param.name)


# --- --command-id: hidden, still honoured --------------------------------------------------------------

def test_command_id_is_hidden_but_a_retry_is_applied_once(store: Path) -> None:
    args = ("roll", "Snorri", "Sword", "--dice", "+ 0 0 0", "--command-id", "table-7")
    first, again = fudge(*args, store=store), fudge(*args, store=store)
    assert first.returncode == 0 and "already applied" not in first.stdout, first.stderr
    assert again.returncode == 0 and again.stdout.startswith("already applied (same --command-id)"), again.stdout
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM events WHERE type = 'action_resolved'").fetchone()[0] == 1


# --- one exit code per kind of failure ------------------------------------------------------------------

def test_exit_0_1_and_2(store: Path) -> None:
    assert fudge("status", store=store).returncode == exits.OK
    refused = fudge("attack", "Snorri", "Nobody", store=store)
    assert refused.returncode == exits.REFUSED and refused.stderr.startswith("error: "), refused.stderr
    usage = fudge("attack", "Snorri", "Brynhild", "--bogus", store=store)
    assert usage.returncode == exits.USAGE and len(usage.stderr.splitlines()) == 1, usage.stderr


def test_exit_3_when_the_log_is_altered(store: Path) -> None:
    assert fudge("roll", "Snorri", "Sword", "--dice", "+ + 0 0", store=store).returncode == 0
    with sqlite3.connect(store) as db:
        db.execute("UPDATE events SET body = replace(body, '\"faces\":[1,1,0,0]', '\"faces\":[1,1,1,0]') "
                   "WHERE type = 'dice_rolled'")
        assert db.total_changes == 1
    checked = fudge("verify", store=store)
    assert checked.returncode == exits.VERIFY_FAILED and checked.stderr.startswith("error: duel: event "), \
        checked.stderr


def test_a_command_on_a_received_store_with_a_row_that_does_not_read_names_it_and_writes_nothing(store: Path) -> None:
    """A-VERIFY-1: a store from someone else (another user's snapshot key: its log is read, no snapshot
    serves) whose row was edited into no event: a roll, an undo and a redo each fail in one line naming the
    event as `fudge verify` does, and the log is left as it was."""
    assert fudge("roll", "Snorri", "Sword", "--dice", "+ + 0 0", store=store).returncode == 0
    with sqlite3.connect(store) as db:
        db.execute("UPDATE events SET body = replace(body, '\"faces\":', '\"zz\":1,\"faces\":') "
                   "WHERE type = 'dice_rolled'")
        assert db.total_changes == 1
        rows = db.execute("SELECT count(*) FROM events").fetchone()
    (seq,) = sqlite3.connect(store).execute("SELECT seq FROM events WHERE type = 'dice_rolled'").fetchone()
    other_key = store.parent / "someone-else.key"
    for args in (("roll", "Brynhild", "Sword", "--dice", "+ 0 0 0"), ("undo",), ("redo",)):
        done = fudge(*args, store=store, key=other_key)
        assert done.returncode != 0 and done.stderr.splitlines() == [
            f"error: duel: event {seq}: its bytes do not match its hash: the event was altered; "
            "`fudge verify duel` checks the whole log"], (args, done.stderr)
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM events").fetchone() == rows


def run_python(code: str, store: Path, **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env=environment(store), timeout=120, **options)


def test_exit_75_when_another_process_wrote_to_the_fight_first(store: Path) -> None:
    """Snorri's roll is decided, then another `fudge` process appends Brynhild's before it is written."""
    code = f"""
import subprocess, sys
from fudge_combat.store.sqlite import SqliteStore
original = SqliteStore.append
def append(self, *args, **kwargs):
    SqliteStore.append = original
    subprocess.run([sys.executable, "-m", "cli.main", "--store", {str(store)!r}, "roll", "Brynhild", "Axe",
                    "--dice", "0 0 0 0"], check=True, capture_output=True)
    return original(self, *args, **kwargs)
SqliteStore.append = append
from fudge_combat.cli.main import app
sys.argv = ["fudge", "--store", {str(store)!r}, "roll", "Snorri", "Sword", "--dice", "+ + + +"]
app()
"""
    loser = run_python(code, store)
    assert loser.returncode == exits.WRITE_CONFLICT, loser.stderr
    assert loser.stderr.startswith("error: the fight changed since you read it") and loser.stderr.count("\n") == 1
    with sqlite3.connect(store) as db:
        rolled = [row[0] for row in db.execute("SELECT body FROM events WHERE type = 'action_resolved'")]
    assert len(rolled) == 1 and "Brynhild" in rolled[0]  # the winner's roll alone
    again = fudge("roll", "Snorri", "Sword", "--dice", "+ + + +", store=store)  # running it again is safe
    assert again.returncode == exits.OK, again.stderr


def test_exit_70_for_a_defect(store: Path) -> None:
    code = """
import sys
import fudge_combat.cli.fight
def broken(*args, **kwargs):
    raise KeyError("boom")
fudge_combat.cli.fight.service = broken
from fudge_combat.cli.main import app
sys.argv = ["fudge", "--store", sys.argv[1], "fights"]
app()
"""
    done = subprocess.run([sys.executable, "-c", code, str(store)], capture_output=True, text=True, cwd=ROOT,
                          env=environment(store), timeout=120)
    assert done.returncode == exits.INTERNAL_ERROR and done.stderr.startswith("internal error: KeyError")
    assert done.stderr.count("\n") == 1


def test_exit_130_on_ctrl_c(store: Path) -> None:
    """Ctrl-C while `fudge play` waits for the GM's next line (its input a pipe nobody writes yet): no
    traceback, 130. (A named pipe given as a sheet was the wait here; it is refused now, not waited on.)"""
    process = subprocess.Popen([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), "play"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=environment(store))
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # the board: play has started and reads its input next
        assert first.startswith("duel"), first
        # Ctrl-C, pressed again every few seconds as a GM would: one sent in the instant before the read
        # begins may go unanswered on a loaded machine.
        for _ in range(12):
            process.send_signal(signal.SIGINT)
            try:
                out, err = process.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            raise AssertionError("fudge did not stop on Ctrl-C")
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == exits.INTERRUPTED, err
    assert "Traceback" not in err and "error" not in out


@pytest.mark.parametrize("args", [("log",), ("rules",), ("status",), ("--version",), ("rules", "explain", "F")])
def test_exit_141_when_the_reader_closed_the_pipe(store: Path, args: tuple[str, ...]) -> None:
    """`fudge log | head`: the reader is gone before fudge writes; no traceback, no error line."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), *args], stdout=write,
                              stderr=subprocess.PIPE, text=True, env=environment(store), timeout=120)
    finally:
        os.close(write)
    assert done.returncode == exits.CLOSED_PIPE and done.stderr == "", done.stderr


# --- fudge rules explain --------------------------------------------------------------------------------

def test_rules_explain_prints_a_rule_in_plain_words(tmp_path: Path) -> None:
    shown = fudge("rules", "explain", "f-mod-6", store=tmp_path / "fudge.db")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "F-MOD-6  (F-MOD Melee modifiers (001 4.3.1))"
    assert " ".join(line.strip() for line in lines[1:]).startswith("All-out offense: +1 skill and +1 damage")
    assert all(len(line) <= 100 for line in lines)
    uses = fudge("rules", "explain", "C-FP-2", store=tmp_path / "fudge.db").stdout
    assert "    - Panache: an unopposed action succeeds automatically." in uses.splitlines()
    assert "**" not in uses and "`" not in uses


def test_rules_explain_a_family(tmp_path: Path) -> None:
    shown = fudge("rules", "explain", "AI-ATK", store=tmp_path / "fudge.db").stdout
    assert [line.split()[0] for line in shown.splitlines() if line and not line.startswith(" ")] == \
        ["AI-ATK-1", "AI-ATK-2", "AI-ATK-3"]


def test_rules_explain_an_unknown_id_suggests_the_likely_one(tmp_path: Path) -> None:
    shown = fudge("rules", "explain", "F-MOD66", store=tmp_path / "fudge.db")
    assert shown.returncode == exits.REFUSED and shown.stdout == ""
    assert shown.stderr.startswith("error: no rule 'F-MOD66': did you mean F-MOD-6") and shown.stderr.count("\n") == 1
    nothing = fudge("rules", "explain", "QQQ-9", store=tmp_path / "fudge.db")
    assert nothing.returncode == exits.REFUSED and "numbered by family: C, PH" in nothing.stderr


def test_rules_alone_still_lists_the_presets(tmp_path: Path) -> None:
    shown = fudge("rules", store=tmp_path / "fudge.db")
    assert shown.returncode == 0
    assert shown.stdout.splitlines() == [f"{preset.name:<14} {preset.summary}" for preset in PRESETS.values()]


def test_the_digest_parses_every_rule() -> None:
    """Every numbered list item of the digest is a rule, with its continuation lines."""
    known = rule_texts.rules()
    items = re.findall(r"^- ([A-Z]{1,3}(?:-[A-Z0-9]+)*) ", rule_texts.DIGEST.read_text(), flags=re.M)
    assert len(items) > 150 and all(item in known for item in items)
    assert known["F-DEATH-3"].text.endswith("Still Ticking).")
    assert known["F-MOD"].section == "F-MOD Melee modifiers (001 4.3.1)"
    assert rule_texts.plain("**Panache**: `pace` and *Quick Reflexes* at 3*4") == "Panache: pace and Quick Reflexes at 3*4"
