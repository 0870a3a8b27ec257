"""Shared helpers: a fight on an in-memory store with a fixed clock, ids and seed."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import logging
import os
import sys
import warnings

import pytest
import structlog

from fudge_combat.engine.kernel.dice import parse_faces
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.events.records import json_form
from fudge_combat.service.fights import DiceInput, Fights
from fudge_combat.store.memory import MemoryStore


def make_fights(store: Any = None, views: bool = False) -> Fights:
    """A service with a fixed clock, ids and randomness; it keeps the board's read model only when asked
    (`views`: the command line's service keeps it wherever the store can)."""
    counter = itertools.count(1)
    return Fights(
        store if store is not None else MemoryStore(),
        clock=lambda: "2026-01-01T00:00:00.000+00:00",
        new_id=lambda: f"{next(counter):032x}",
        random_bytes=lambda n: bytes(range(n)),
        views=views,
    )


@pytest.hookimpl(wrapper=True)  # around pytest-xdist's own hook: groups marked before it reads them, ids mended after
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    """Under pytest-xdist (`-n auto`, `--dist loadgroup`), the tests of a module that share a module-scoped
    fixture (a fight played by `fudge` processes, a browser, a server) run on one worker: built once, not once
    per worker, and in the module's order, which some of them rely on (tests/test_browser.py plays on).

    pytest-xdist hands a group to its scheduler as an `@group` ending of the test's id, which it writes where
    pytest up to 9.1 kept the id; pytest 9.2 keeps it in a structure of its own, and the groups were lost without
    a word (pytest-xdist#1386): every worker built each module's shared fixture again. Where the ending did not
    take, it is written where this pytest keeps the id."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is not None and any(definition.scope == "module" for name in info.names_closure
                                    for definition in info.name2fixturedefs.get(name, ())):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    yield
    if config.getoption("loadgroup", False):  # set in pytest-xdist's workers under --dist loadgroup
        for item in items:
            group = item.get_closest_marker("xdist_group")
            if group is not None and "@" not in item.nodeid and hasattr(item, "_id"):
                try:
                    item._id = type(item._id).parse(f"{item.nodeid}@{group.args[0]}")
                except (AttributeError, TypeError, ValueError) as error:  # a pytest that keeps ids otherwise
                    warnings.warn(f"the tests' module groups could not be kept ({error!r}): each worker "
                                  "builds a module's shared setup again", stacklevel=1)
                    return


def pytest_unconfigure(config: pytest.Config) -> None:
    """The warm `fudge` servers of this process (tests/processes.py) end with it."""
    from tests import processes

    processes.close()


@pytest.fixture(autouse=True, scope="session")
def snapshot_key_file(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The user's snapshot key (store.snapshots) lives in the test session's own directory, not in $HOME."""
    os.environ["FUDGE_KEY_FILE"] = str(tmp_path_factory.mktemp("key") / "snapshot.key")


@pytest.fixture(scope="session")
def secrets_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each test's secrets file is (`secrets_file`)."""
    return tmp_path_factory.mktemp("secrets")


_SECRETS = itertools.count()


@pytest.fixture(autouse=True)
def secrets_file(secrets_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GM's secrets (store.secrets) are each test's own: tests reuse fight ids and seeds. A file of its own in
    one folder, not a folder of its own: pytest numbers a new folder by reading every name in the session's
    folder, which then grows with each test, as tmp_path's folders make it grow."""
    monkeypatch.setenv("FUDGE_SECRETS_FILE", str(secrets_folder / f"secrets-{next(_SECRETS)}.db"))


@pytest.fixture(autouse=True)
def quiet_logs() -> None:
    """Library code logs through structlog; keep warnings on stderr, never on stdout."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
                        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
                        cache_logger_on_first_use=False)


@pytest.fixture
def fights() -> Fights:
    return make_fights()


def sheet(name: str, *, kind: str = "pc", scale: int = 0, fudge_points: int | None = None,
          attributes: dict[str, Any] | None = None, skills: dict[str, Any] | None = None,
          attack: str | None = None, defend: str | None = None, weapon: int | None = None,
          armor: int | None = None, shield: str | None = None, **extra: Any) -> dict[str, Any]:
    """A sheet as `fudge join` stores it."""
    data: dict[str, Any] = {"name": name, "kind": kind, "scale": scale,
                            "attributes": attributes or {}, "skills": skills or {}}
    if fudge_points is not None:
        data["fudge_points"] = fudge_points
    if attack:
        data["combat"] = {"attack": attack, "defend": defend or attack}
    if weapon is not None:
        data["weapon"] = {"name": "weapon", "damage": weapon}
    if armor is not None:
        data["armor"] = {"name": "armor", "protection": armor}
    if shield:
        data["shield"] = {"size": shield}
    data.update(extra)
    return data


def start(fights: Fights, name: str = "fight", rules: str = "fudge", **options: Any) -> str:
    """Start a fight under a preset with option overrides (as a house-rules file would)."""
    house = None
    if options:
        import json

        lines = [f'extends = "{rules}"'] + [f"{k} = {json.dumps(v)}" for k, v in options.items()]
        house = "\n".join(lines)
    label, resolved = resolve(rules, house)
    fights.new(name, label, json_form(resolved))
    return name


def dice(*values: str) -> DiceInput:
    """`dice("snorri=+000", "brynhild=-000")`: entered faces per roller, in order."""
    given = DiceInput()
    for value in values:
        if "=" in value:
            who, faces = value.split("=", 1)
            given.by_roller.setdefault(who.lower(), []).append(parse_faces(faces))
        else:
            given.anyone.append(parse_faces(value))
    return given


def cli_table(tmp_path: Any, sheets: dict[str, str]) -> Iterator[Any]:
    """`fudge ...` in-process against a SQLite file in tmp_path, with the sheets written there as NAME.toml.

    Tests make it a fixture (`yield from cli_table(tmp_path, SHEETS)`); `fudge(..., ok=False)` lets a
    command fail; `.db` and `.dir` are the store and the folder.
    """
    from typer.testing import CliRunner

    from fudge_combat.cli.main import app

    for name, text in sheets.items():
        (tmp_path / f"{name}.toml").write_text(text)
    runner = CliRunner()
    db = tmp_path / "fudge.db"

    def fudge(*args: str, ok: bool = True) -> Any:
        result = runner.invoke(app, ["--store", str(db), *args])
        if ok:
            assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
        return result

    fudge.db = db  # type: ignore[attr-defined]
    fudge.dir = tmp_path  # type: ignore[attr-defined]
    yield fudge
    structlog.reset_defaults()  # the CLI configured structlog on CliRunner's streams


def without_odds(text: str) -> str:
    """A command's output without the `odds: ...` lines `fudge next` ends with (tests/test_odds_now.py
    holds those): what the command did."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("odds: "))


@pytest.fixture(scope="session")
def the_duel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Snorri and Brynhild joined to a fight under the F-EX house rules (examples/house/snorri-brynhild.toml),
    played once per worker, each command a `fudge` process; a test takes its own copy of its folder
    (tests/processes.py `copied`) and never changes this one."""
    from tests.processes import ROOT, fudge

    store = tmp_path_factory.mktemp("the-duel") / "fudge.db"
    for args in [("new", "duel", "--house", str(ROOT / "examples" / "house" / "snorri-brynhild.toml")),
                 ("join", str(ROOT / "examples" / "sheets" / "snorri.toml")),
                 ("join", str(ROOT / "examples" / "sheets" / "brynhild.toml"))]:
        done = fudge(*args, store=store)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return store


@pytest.fixture(scope="session")
def the_bridge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Bridge (tests/test_board_page.py `play_the_bridge`), played once per worker, each command a `fudge`
    process; a test takes its own copy of its folder (tests/processes.py `copied`) and never changes this one."""
    from tests.test_board_page import play_the_bridge

    store = tmp_path_factory.mktemp("the-bridge") / "fudge.db"
    play_the_bridge(store)
    return store


@pytest.fixture(scope="session")
def pg_server(request: pytest.FixtureRequest) -> Any:
    """A throwaway PostgreSQL server for the session (tests/pgserver.py), stopped by a finalizer even when a
    test fails; the tests that need it skip, saying why, only where no server binary exists. Under
    pytest-xdist each worker is a session and starts its own server, in its own folder (its socket's): a
    test that halts or restarts its server cuts no other worker's test."""
    from tests.pgserver import Server, binaries

    found = binaries()
    if found is None:
        pytest.skip("no PostgreSQL server binary (initdb, pg_ctl): install postgresql or set FUDGE_PG_BIN")
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install 'psycopg[binary]'")
    server = Server(found)
    request.addfinalizer(server.stop)
    server.start()
    return server


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """A fresh, empty database on the session's server."""
    return str(pg_server.database())
