"""`fudge status`'s read model (cli.views, store.views) and what a command imports at start.

The stored view must be the status a replay of the whole log shows (A-REPLAY-1) after every kind
of command; a stale, missing, tampered or foreign view is not used (the status is computed from
the fight), and reading never writes. `fudge status` and `fudge status --json` print the same
bytes from the view (read before Typer runs) as from the fight.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fudge_combat.cli import main, views
from fudge_combat.projections import board_view
from fudge_combat.store import views as stored_views
from fudge_combat.projections.fold import replay
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import cli_table

ROOT = Path(__file__).resolve().parents[1]
SHEETS = {name: (ROOT / "examples" / "sheets" / f"{name}.toml").read_text() for name in ("snorri", "brynhild")}


@pytest.fixture
def fudge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(tmp_path)  # the sheets are NAME.toml there
    yield from cli_table(tmp_path, SHEETS)


def stored(db: Path, name: str | None = None) -> dict[str, Any] | None:
    store = SqliteStore(db)
    try:
        return views.stored_status(store, name)
    finally:
        store.close()


def computed(db: Path, name: str) -> dict[str, Any]:
    """The status view of a replay of the whole log, through JSON as the store keeps it."""
    fights = Fights(SqliteStore(db))
    return json.loads(json.dumps(board_view.build(replay(fights.log(name)))))


def view_rows(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT * FROM views ORDER BY fight, name").fetchall()


def argv_status(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """`fudge ARGS` as the console script runs it (`app()` reads sys.argv): the path before Typer."""
    monkeypatch.setattr(sys, "argv", ["fudge", *args])
    try:
        main.app()
    except SystemExit as exc:
        assert not exc.code
    return capsys.readouterr().out


def test_A_REPLAY_1_the_stored_status_is_the_replayed_one_after_every_kind_of_command(fudge: Any) -> None:
    """A-REPLAY-1: after new, join, declare, exchange, roll, spend, undo, redo, round, wound, end and branch."""
    steps = [
        ("new", "duel"), ("join", "snorri.toml"), ("join", "brynhild.toml"),
        ("declare", "snorri", "--all-out-offense"),
        ("exchange", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0"),
        ("roll", "brynhild", "Perception", "--vs", "Good", "--dice", "0 0 0 0"),
        ("spend", "snorri", "luck"),
        ("undo",), ("undo",), ("redo",),
        ("round",), ("wound", "brynhild", "Scratch", "--reason", "a fall"),
        ("declare", "brynhild", "--sealed", "--all-out-defense"),
        ("exchange", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=+ 0 0 0"),
        ("end",),
    ]
    for step in steps:
        fudge(*step)
        assert stored(fudge.db) == computed(fudge.db, "duel"), step
    fudge("branch", "what-if", "--at", "5")
    assert stored(fudge.db, "what-if") == computed(fudge.db, "what-if")
    assert stored(fudge.db, "duel") == computed(fudge.db, "duel")  # the parent's view is untouched


def test_status_from_the_view_prints_what_the_fight_computes(
        fudge: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Byte for byte: the read model before Typer, the read model through Typer, the fold (`--as-of`)."""
    fudge("new", "duel")
    fudge("join", "snorri.toml")
    fudge("join", "brynhild.toml")
    fudge("exchange", "snorri", "brynhild", "-d", "snorri=+ 0 0 0", "-d", "brynhild=- 0 0 0")
    last = str(SqliteStore(fudge.db).last_seq("duel"))
    for extra in ((), ("--json",)):
        folded = fudge("status", "--as-of", last, *extra).stdout
        assert fudge("status", *extra).stdout == folded
        assert argv_status(monkeypatch, capsys, "--store", str(fudge.db), "status", *extra) == folded
        assert argv_status(monkeypatch, capsys, f"--store={fudge.db}", "status", "-f", "duel", *extra) == folded
    assert views.status_from_argv(["--store", str(fudge.db), "status", "--fight=duel"]) is not None


@pytest.mark.parametrize("args", [
    ["status", "--as-of", "3"], ["-v", "status"], ["status", "--help"], ["status", "--fight", "a", "--fight", "b"],
    ["status", "--json", "--json"], ["status", "--store", "x"], ["--fight", "duel", "status"], ["status", "-f"],
    ["status", "--json=1"], ["log"], [], ["status", "extra"], ["status", "-fduel"], ["status", "--fight", "nope"],
])
def test_any_other_form_of_status_is_left_to_typer(fudge: Any, args: list[str]) -> None:
    """Only `[--store FILE] status [--fight NAME] [--json]` is answered before Typer runs."""
    fudge("new", "duel")
    assert views.status_from_argv(["--store", str(fudge.db), *args]) is None


def folded_status(fudge: Any) -> str:
    """`fudge status` computed from the fight (`--as-of` its last event), not read from the view."""
    return fudge("status", "--as-of", str(SqliteStore(fudge.db).last_seq("duel"))).stdout


def test_a_stale_tampered_foreign_or_missing_view_is_not_used(
        fudge: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fudge("new", "duel")
    fudge("join", "snorri.toml")
    assert stored(fudge.db) is not None

    Fights(SqliteStore(fudge.db), views=False).execute("duel", _start_round())  # appended without the read model: stale
    assert stored(fudge.db) is None
    assert fudge("status").stdout == folded_status(fudge)

    fudge("round", "--force")  # a write; nobody has fought in the round before (no empty round unforced)
    with sqlite3.connect(fudge.db) as con:  # tampered: the MAC no longer checks
        con.execute("UPDATE views SET body = replace(body, 'Snorri', 'Sn0rri')")
    assert stored(fudge.db) is None
    assert "Sn0rri" not in fudge("status").stdout

    fudge("round", "--force")  # a write; nobody has fought in the round before (no empty round unforced)
    monkeypatch.setattr(stored_views, "_VERSION", ["other code"])  # written by other code
    assert stored(fudge.db) is None
    monkeypatch.undo()
    assert stored(fudge.db) is not None

    other = tmp_path / "someone-else.key"  # a store from someone else: their key is not ours
    other.write_text(os.urandom(32).hex())
    monkeypatch.setenv("FUDGE_KEY_FILE", str(other))
    assert stored(fudge.db) is None
    monkeypatch.undo()

    with sqlite3.connect(fudge.db) as con:  # a store from before read models
        con.execute("DROP TABLE views")
    assert stored(fudge.db) is None
    assert fudge("status").stdout == folded_status(fudge)


def test_a_view_that_cannot_be_built_never_fails_the_command(fudge: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The view is a cache: if building it raises, the command's events are still written, no view is
    stored for the new event, and `fudge status` computes the status from the fight."""
    fudge("new", "duel")
    fudge("join", "snorri.toml")

    def broken(*args: Any) -> Any:
        raise ValueError("a view that cannot be built")

    monkeypatch.setattr("fudge_combat.projections.status.combatant_text_lines", broken)
    seq = SqliteStore(fudge.db).last_seq("duel")
    fudge("join", "brynhild.toml")
    assert SqliteStore(fudge.db).last_seq("duel") > seq
    monkeypatch.undo()
    assert stored(fudge.db) is None
    assert "Brynhild" in fudge("status").stdout


def _start_round() -> Any:
    from fudge_combat.engine import commands as cmd

    return cmd.StartRound()


def test_reading_the_status_never_writes_the_view(
        fudge: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    fudge("new", "duel")
    fudge("join", "snorri.toml")
    before = view_rows(fudge.db)
    fudge("status")
    argv_status(monkeypatch, capsys, "--store", str(fudge.db), "status")
    fudge("status", "--json")
    assert view_rows(fudge.db) == before
    Fights(SqliteStore(fudge.db), views=False).execute("duel", _start_round())  # the view is now stale
    fudge("status")  # computed from the fight, not stored back
    assert view_rows(fudge.db) == before


def test_every_command_is_in_the_table_of_where_commands_live() -> None:
    """`fudge NAME` imports only the module `cli.main.COMMANDS` names: the table must be exact."""
    import importlib

    from typer.main import get_command_name

    declared = {}
    for module in main.PANELS:
        app = importlib.import_module(f"fudge_combat.cli.{module}").app
        for info in app.registered_commands:
            declared[info.name or get_command_name(info.callback.__name__)] = module
        for group in app.registered_groups:
            declared[group.name] = module
    assert declared == main.COMMANDS
    assert set(main.COMMANDS.values()) == set(main.PANELS)


def _modules_after(args: list[str], env: dict[str, str]) -> set[str]:
    code = ("import sys\nfrom fudge_combat.cli.main import app\nsys.argv = ['fudge', *sys.argv[1:]]\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=True)
    return set(done.stderr.split())


def test_status_from_the_view_loads_no_model_and_no_engine(fudge: Any) -> None:
    """A long fight must not make every command slow: status reads the view, not the fight."""
    fudge("new", "duel")
    fudge("join", "snorri.toml")
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    env["FUDGE_STORE"] = str(fudge.db)
    for status in (["status"], ["status", "--long"], ["status", "--json"]):
        loaded = _modules_after(status, env)
        assert "fudge_combat.cli.views" in loaded and "fudge_combat.cli.fight" not in loaded, status  # answered before Typer ran
        assert not loaded & {"pydantic.main", "fudge_combat.events.models", "fudge_combat.engine.kernel.options",
                             "fudge_combat.engine.kernel.state", "fudge_combat.cli.render", "fudge_combat.cli.board",
                             "fudge_combat.projections.board", "fudge_combat.projections.status"}, status
        assert not any(name == "rich" or name.startswith("rich.") for name in loaded), status  # plain: no rich
    for plain in (["status", "--as-of", "1"], ["log"]):  # computed from the fight, plain: rich is not imported
        assert not any(name == "rich" or name.startswith("rich.") for name in _modules_after(plain, env)), plain
    attack = _modules_after(["attack", "snorri", "snorri", "--dice", "snorri=0000"], env)  # refused, but parsed
    assert "fudge_combat.cli.table" in attack and not attack & {"fudge_combat.cli.fate", "fudge_combat.cli.odds", "fudge_combat.cli.sim", "fudge_combat.cli.history", "fudge_combat.cli.rules"}


OTHER_RULESETS = {"fudge_combat.engine.rulesets.atari_isev.blows", "fudge_combat.engine.rulesets.atari_isev.rules", "fudge_combat.engine.rulesets.atari_isev.decider", "fudge_combat.engine.rulesets.fate.rules", "fudge_combat.engine.rulesets.fate.tables",
                  "fudge_combat.engine.rulesets.fate.decider", "fudge_combat.engine.rulesets.fate.commands", "fudge_combat.engine.rulesets.fate.command_structs", "fudge_combat.engine.rulesets.fate.views"}


def test_a_fudge_attack_loads_neither_the_other_rulesets_nor_the_commands_it_does_not_name(fudge: Any) -> None:
    """A one-shot command pays for what it uses: a Fudge fight's `attack` loads no Fate or Atari Isev rules,
    no command model and not pydantic at all (the commands, sheets, options and events it holds are structs
    derived from their models), and its plain line is read before Typer builds the command (cli.quick),
    which its help is not. The same store's Atari Isev fight loads Atari Isev's rules."""
    fudge("new", "duel")
    fudge("join", "snorri.toml")
    fudge("join", "brynhild.toml")
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    env["FUDGE_STORE"] = str(fudge.db)
    before = SqliteStore(fudge.db).last_seq("duel")
    attack = _modules_after(["attack", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0"], env)
    assert SqliteStore(fudge.db).last_seq("duel") > before  # decided and appended, not refused
    assert {"fudge_combat.engine.rulesets.fudge.decider", "fudge_combat.engine.rulesets.fudge.command_structs"} <= attack
    assert not {name for name in attack if name.partition(".")[0] in ("pydantic", "pydantic_core")}
    assert not attack & OTHER_RULESETS
    assert "typer._adapters" not in attack  # its plain line read from the declaration: Typer built no command (cli.quick)
    helped = _modules_after(["attack", "--help"], env)
    assert "typer._adapters" in helped  # help is Typer's: it builds the command, an adapter for each option
    assert not attack & {"fudge_combat.engine.rulesets.fudge.commands_round", "fudge_combat.engine.rulesets.fudge.commands_blows",
                         "fudge_combat.engine.rulesets.fudge.commands_rolls", "fudge_combat.engine.kernel.command_base",
                         "fudge_combat.engine.rulesets.fudge.commands_aftermath", "fudge_combat.engine.commands_union"}

    fudge("new", "isev", "--rules", "atari-isev")
    fudge("join", "snorri.toml")
    fudge("join", "brynhild.toml")
    fudge("round", "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0")
    isev = _modules_after(["attack", "snorri", "brynhild", "-d", "snorri=0 0 0 0", "-d", "brynhild=0 0 0 0"], env)
    assert {"fudge_combat.engine.rulesets.atari_isev.blows", "fudge_combat.engine.rulesets.atari_isev.decider"} <= isev


def test_a_one_shot_command_freezes_what_its_imports_made_and_a_runner_in_process_does_not(fudge: Any) -> None:
    """The program (`fudge ...`) imports its command's module with the cyclic collector paused, then leaves
    what the import made out of every later collection (`gc.freeze`), the collector on again for what the
    command makes, and has pydantic look for no plugin through its documented setting (one the environment
    gives is kept). Called by a test's runner, in a process that goes on, the app changes none of these."""
    import gc

    fudge("new", "duel")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PYDANTIC_DISABLE_PLUGINS")}
    env["FUDGE_STORE"] = str(fudge.db)
    code = ("import gc, os, sys\nfrom fudge_combat.cli.main import app\nsys.argv = ['fudge', *sys.argv[1:]]\n"
            "frozen = gc.get_freeze_count()\ntry:\n    app()\nexcept SystemExit:\n    pass\n"
            "print(frozen, gc.get_freeze_count(), gc.isenabled(), os.environ.get('PYDANTIC_DISABLE_PLUGINS'),"
            " file=sys.stderr)")

    def one_shot(environment: dict[str, str]) -> list[str]:
        done = subprocess.run([sys.executable, "-c", code, "log"], capture_output=True, text=True, env=environment,
                              cwd=ROOT, check=True)
        return done.stderr.split()[-4:]

    before, after, enabled, plugins = one_shot(env)
    assert int(before) == 0 and int(after) > 10_000 and enabled == "True" and plugins == "__all__"
    assert one_shot({**env, "PYDANTIC_DISABLE_PLUGINS": "logfire"})[3] == "logfire"

    frozen = gc.get_freeze_count()
    plugins_before = os.environ.get("PYDANTIC_DISABLE_PLUGINS")
    assert "duel" in fudge("log").stdout
    assert gc.get_freeze_count() == frozen and gc.isenabled()
    assert os.environ.get("PYDANTIC_DISABLE_PLUGINS") == plugins_before


def test_the_classes_a_command_builds_at_import_hold_their_annotations_as_objects() -> None:
    """Every pydantic model of the core and of the layers below the CLI, and every struct a snapshot stores,
    keeps its fields' annotations as objects, not as strings (its module has no `from __future__ import
    annotations`): pydantic collects a model's fields when its class is created, and the snapshot's schema
    reads each stored struct's, so a string would be compiled and evaluated at every command's start
    (bench/README.md, *One-shot command*). The CLI's own models (a player's request) are not on a command's
    path; a struct no schema reads evaluates nothing."""
    import importlib

    import pydantic

    from fudge_combat.engine.kernel.rewind import History
    from fudge_combat.engine.kernel.state import FightState
    from fudge_combat.store import schema

    for folder in ("engine", "events", "projections", "service", "store", "sim"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            importlib.import_module(".".join(("fudge_combat", *(parts[:-1] if parts[-1] == "__init__" else parts))))
    models, stack = [], [pydantic.BaseModel]
    while stack:
        for sub in stack.pop().__subclasses__():
            stack.append(sub)
            if sub.__module__.startswith("fudge_combat.") and not sub.__module__.startswith("fudge_combat.cli."):
                models.append(sub)
    deriver = schema._Deriver()  # noqa: SLF001 - the classes the snapshot's schema derives a type from
    deriver.codec(FightState), deriver.codec(History)
    stored = [cls for cls in deriver.classes if cls.__module__.startswith("fudge_combat.")]
    strings = sorted(f"{c.__module__}.{c.__qualname__}.{name}" for c in [*models, *stored]
                     for name, hint in vars(c).get("__annotations__", {}).items() if isinstance(hint, str))
    assert len(models) > 100 and len(stored) > 10 and strings == []
