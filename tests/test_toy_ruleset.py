"""A fourth ruleset, added as a newcomer adds one: one package and one registry line, and nothing else.

The package `toy_wits` (a "duel of wits" variant of Fudge: one new command, `taunt`, and one new event,
`wits_told`) is written into a folder beside a minimal distribution's metadata whose entry point is its one
registry line (`wits = toy_wits`, group `fudge_combat.rulesets`); that folder on PYTHONPATH is all that
installs it (importlib.metadata finds a `*.dist-info` there as pip leaves one in site-packages). Then real
`fudge` processes play it through every view: new, join, an exchange, the taunt (`fudge act`), the log, the
board, the undo's words, the report, the audit, `fudge play` with the taunt typed in it, and the simulator.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import msgspec
import pytest

from fudge_combat.events.records import json_form
from fudge_combat.engine.kernel import registry
from tests.processes import fudge as run_fudge

ROOT = Path(__file__).resolve().parent.parent
SHEETS = ROOT / "examples" / "sheets"

# The whole ruleset, as its author writes it: a package of a few small modules.
TOY: dict[str, str] = {
    "__init__.py": '''
        """A duel of wits: Fudge, and a taunt that rattles the foe."""
    ''',
    "preset.py": '''
        """The options a `wits` fight starts with: Fudge's, under this ruleset."""

        from fudge_combat.engine.kernel.options import FUDGE_CONSTRAINTS, Preset

        PRESET = Preset(name="wits", summary="Fudge with a duel of wits (`fudge act taunt combatant=A foe=B`)",
                        overrides={"ruleset": "wits"})
        CONSTRAINTS = FUDGE_CONSTRAINTS
    ''',
    "commands.py": '''
        """The one command wits adds."""

        from typing import Literal

        from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel


        class Taunt(CommandModel):
            """A taunt: Wits against the foe's Will; a win costs the foe 1 on the next roll."""

            type: Literal["wits.taunt"] = "wits.taunt"
            combatant: CombatantName
            foe: CombatantName


        COMMANDS = {"taunt": Taunt}
    ''',
    "events.py": '''
        """The one event wits adds: a taunt told, or shrugged off."""

        from typing import Any, ClassVar

        from fudge_combat.engine.kernel.event_rules import EventRule, Named
        from fudge_combat.engine.kernel.added_events import AddedEvent
        from fudge_combat.engine.kernel.state import FightState, replace
        from fudge_combat.events.bounds import Serial, Text, Total


        class WitsTold(AddedEvent):
            kind: ClassVar[str] = "wits_told"
            combatant: Text
            foe: Text
            wits: Total
            will: Total
            round: Serial  # the round of the foe's next roll

            @property
            def told(self) -> bool:
                return self.wits > self.will


        def evolve(state: FightState, recorded: Any, event: WitsTold) -> FightState:
            if not event.told:
                return state
            rattled = (event.combatant, -1, event.round)  # a situational advantage over the foe, as Fudge's
            return replace(state, advantages={**state.advantages, event.foe.lower(): rattled})


        def describe(event: WitsTold, ladder: Any, points: str) -> str:
            said = f"{event.combatant} taunts {event.foe}: Wits {event.wits:+d} against Will {event.will:+d}"
            if event.told:
                return f"{said}: {event.foe} is rattled, -1 on the next roll"
            return f"{said}: {event.foe} keeps a cool head"


        def words(event: WitsTold, state: FightState) -> str:  # what an undo of the taunt names it by
            return f"{event.combatant}'s taunt of {event.foe}"


        EVENTS = {WitsTold: EventRule(evolve, describe, Named(40, words))}
    ''',
    "decider.py": '''
        """Fudge's decide table, and the taunt."""

        from typing import Any

        from fudge_combat.engine.kernel.commands import ByCommand
        from fudge_combat.engine.kernel.decider import Decider, able_to_act
        from fudge_combat.engine.kernel.dice import Dice
        from fudge_combat.engine.kernel.added_events import stored
        from fudge_combat.engine.kernel.state import FightState
        from fudge_combat.engine.rulesets.fudge import decider as fudge
        from fudge_combat.engine.rulesets.fudge.rolls import next_action, roll_event
        from fudge_combat.engine.rulesets.fudge.sides import able, combatant
        from toy_wits.commands import Taunt
        from toy_wits.events import WitsTold


        def taunt(state: FightState, command: Taunt, dice: Dice) -> list[Any]:
            who, foe = able(state, command.combatant), combatant(state, command.foe)
            action = next_action(state)
            wits = roll_event(action, who.name, "Wits (taunt)", 4, dice)
            will = roll_event(action, foe.name, "Will (taunt)", 4, dice)
            fought = foe.key in state.fought or state.round == 0  # his roll this round is made: the next one's
            told = WitsTold(combatant=who.name, foe=foe.name,
                            wits=who.fighter.trait("Wits", state.options)[1] + sum(wits.faces),
                            will=foe.fighter.trait("Will", state.options)[1] + sum(will.faces),
                            round=state.round + 1 if fought else state.round)
            return [wits, will, stored(state, told)]


        DECIDER = Decider("wits", "Duel of Wits", ByCommand(fudge.TABLE.by_name, {Taunt: taunt}),
                          fudge.REFUSALS, able_to_act)
    ''',
    "odds.py": '''
        """The exact odds of wits: its blows are Fudge's."""

        from fudge_combat.engine.rulesets.fudge.odds import ODDS
    ''',
    "sim.py": '''
        """What the simulator reads of wits: what it reads of Fudge."""

        from fudge_combat.engine.rulesets.fudge.sim import SIM
    ''',
    "reading.py": '''
        """What the views ask of wits: what they ask of Fudge."""

        from msgspec.structs import replace

        from fudge_combat.engine.rulesets.fudge.reading import READING as FUDGE

        READING = replace(FUDGE, name="wits")
    ''',
}

# The one registry line, in the entry points of the distribution that ships the package.
ENTRY_POINTS = """
    [fudge_combat.rulesets]
    wits = toy_wits
"""


def install(folder: Path) -> dict[str, str]:
    """Write the package and its distribution's metadata into `folder`; the environment that finds them."""
    package = folder / "toy_wits"
    package.mkdir(parents=True)
    for name, text in TOY.items():
        (package / name).write_text(textwrap.dedent(text).lstrip())
    info = folder / "toy_wits-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-wits\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(ENTRY_POINTS).lstrip())
    return {"PYTHONPATH": str(folder)}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment with the toy ruleset installed, once for the module (no test changes it): its commands,
    with the same environment, go to warm servers of their own (tests/processes.py)."""
    return install(tmp_path_factory.mktemp("site"))


@pytest.fixture
def table(tmp_path: Path, site: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """A GM's folder with the two sheets, and the environment with the toy ruleset installed."""
    gm = tmp_path / "table"
    gm.mkdir()
    for name in ("snorri", "brynhild"):
        (gm / f"{name}.toml").write_text((SHEETS / f"{name}.toml").read_text())
    return gm / "fudge.db", site


def ok(*args: str, store: Path, env: dict[str, str], input: str | None = None) -> str:
    done = run_fudge(*args, store=store, env=env, input=input)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def refused(*args: str, store: Path, env: dict[str, str]) -> str:
    """A command refused as bad input is: one line on stderr, a non-zero status that is not a defect's."""
    done = run_fudge(*args, store=store, env=env)
    assert done.returncode not in (0, 70), (args, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


def test_a_new_ruleset_is_one_package_and_one_line_and_every_view_shows_it(
        table: tuple[Path, dict[str, str]]) -> None:
    store, env = table
    assert "wits" in ok("rules", store=store, env=env)  # its preset, among the built-in ones
    ok("new", "duel", "--rules", "wits", store=store, env=env)
    ok("join", "snorri.toml", store=store, env=env)
    ok("join", "brynhild.toml", store=store, env=env)
    ok("exchange", "snorri", "brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0",
       store=store, env=env)

    # its own command: listed by `fudge act` and `fudge act --help`, built from FIELD=VALUE pairs
    listed = ok("act", store=store, env=env)
    assert "taunt combatant=... foe=...: A taunt: Wits against the foe's Will" in listed
    assert "taunt combatant=... foe=..." in ok("act", "--help", store=store, env=env)
    said = ok("act", "taunt", "combatant=snorri", "foe=bryn", "--dice", "snorri=+ + + +", "--dice", "brynhild=- - - -",
              store=store, env=env)
    # Snorri's Wits is not on his sheet: an unlisted skill, Poor (-2) + 4; Brynhild's Will Fair (0) - 4
    assert "Snorri taunts Brynhild: Wits +2 against Will -4: Brynhild is rattled, -1 on the next roll" in said

    # its event changes the fight: Brynhild's next roll (in round 2: she fought in round 1) is one lower
    after = ok("exchange", "snorri", "brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0",
               store=store, env=env)
    assert "round 2 begins" in after
    assert "Brynhild Axe Good +0 -1 Snorri's situational advantage = Fair" in after

    # the log, the board and the audit read it
    log = ok("log", store=store, env=env)
    assert "Snorri taunts Brynhild: Wits +2 against Will -4: Brynhild is rattled" in log
    board = ok("status", store=store, env=env)
    assert board.startswith("duel (wits) · round 2")
    assert "Brynhild" in board and "Scratch" in board  # the graze the rattled roll let through
    assert "rules agree" in ok("verify", store=store, env=env)

    # the undo names it in its ruleset's own words, and takes its effect back
    ok("undo", store=store, env=env)  # the second exchange
    undone = ok("undo", store=store, env=env)
    assert "undid Snorri's taunt of Brynhild, seq" in undone
    again = ok("exchange", "snorri", "brynhild", "--dice", "snorri=0 0 0 0", "--dice", "brynhild=0 0 0 0",
               store=store, env=env)
    assert "situational advantage" not in again and "Brynhild Axe Good +0 = Good" in again

    # the after-action report shows its line, struck out as undone
    report = ok("report", store=store, env=env)
    assert "<del>Snorri taunts Brynhild: Wits +2 against Will -4: Brynhild is rattled, -1 on the next roll</del>" \
        in report

    # `fudge play`: the command typed at the session's prompt
    session = ok("play", store=store, env=env, input="act taunt combatant=bryn foe=snorri\nlog\n")
    assert "Brynhild taunts Snorri: Wits" in session
    assert "rules agree" in ok("verify", store=store, env=env)

    # the simulator runs it by what its package declares of it (Fudge's)
    sim = json.loads(ok("sim", "--rules", "wits", "-n", "20", "--seed", "7", "--json", "snorri.toml", "brynhild.toml",
                        store=store, env=env))
    assert sim["rules"] == "wits" and sim["fights"] == 20
    assert sum(side["count"] for side in sim["sides"].values()) + sim["draws"]["count"] == 20


def test_bad_input_to_an_added_command_is_one_line(table: tuple[Path, dict[str, str]]) -> None:
    store, env = table
    ok("new", "duel", "--rules", "wits", store=store, env=env)
    ok("join", "snorri.toml", store=store, env=env)
    ok("join", "brynhild.toml", store=store, env=env)
    before = ok("log", store=store, env=env)
    assert "field 'foe': Field required" in refused("act", "taunt", "combatant=snorri", store=store, env=env)
    assert "taunt has no field 'target'; its fields: combatant, foe" in refused(
        "act", "taunt", "combatant=snorri", "target=bryn", store=store, env=env)
    assert "no command 'jest'" in refused("act", "jest", store=store, env=env)
    assert "no combatant 'grok'" in refused("act", "taunt", "combatant=snorri", "foe=grok", store=store, env=env)
    assert ok("log", store=store, env=env) == before  # nothing written

    ok("new", "plain", store=store, env=env)  # a Fudge fight: `act` has nothing to add to its commands
    assert "add no command of their own" in ok("act", store=store, env=env)
    assert "the fudge rules have no command 'taunt'" in refused("act", "taunt", "combatant=snorri", "foe=bryn",
                                                                 store=store, env=env)


def test_a_fight_whose_ruleset_is_not_installed_says_so(table: tuple[Path, dict[str, str]]) -> None:
    """Where the package is gone, its fights are refused in one line that says why, not as an altered log."""
    store, env = table
    ok("new", "duel", "--rules", "wits", store=store, env=env)
    ok("join", "snorri.toml", store=store, env=env)
    ok("join", "brynhild.toml", store=store, env=env)
    without = {"PYTHONPATH": ""}
    for args in (("log",), ("exchange", "snorri", "brynhild"), ("verify",)):
        line = refused(*args, store=store, env=without)
        assert "no ruleset 'wits' is built in or installed here" in line and "altered" not in line, line
    assert "unknown rules 'wits'" in refused("new", "other", "--rules", "wits", store=store, env=without)


def test_a_built_in_fight_never_reads_the_entry_points(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The built-in rulesets are a dict: resolving their presets, starting, playing and replaying a fight reads
    no installed package's metadata (a one-shot command's start-up would pay for it)."""
    import importlib.metadata

    from fudge_combat.engine.kernel.presets import resolve
    from fudge_combat.projections.fold import replay
    from fudge_combat.service.fights import Fights
    from fudge_combat.store.sqlite import SqliteStore
    from tests.conftest import sheet

    def read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the entry points were read")

    monkeypatch.setattr(importlib.metadata, "entry_points", read)
    monkeypatch.setattr(registry, "_added", None)
    fights = Fights(SqliteStore(tmp_path / "f.db"))
    for preset in ("fudge", "atari-isev", "fate"):
        rules, options = resolve(preset)
        fights.new(preset, rules, json_form(options))
    from fudge_combat.engine import commands as cmd

    for who in ("Ann", "Bob"):
        fights.execute("fudge", cmd.Join(sheet=sheet(who), source=f"{who}.toml"))
    fights.execute("fudge", cmd.Exchange(first="Ann", second="Bob"))
    assert len(replay(fights.log("fudge")).combatants) == 2
    assert registry._added is None


def test_an_added_command_that_takes_a_built_in_commands_type_is_refused(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A log's commands are read back by their `type`: an added command with a built-in one's (`exchange`)
    would be read as the other, so the ruleset's commands are refused, in one line that says what to change."""
    from fudge_combat.engine.kernel.commands import own_commands, read_issued
    from fudge_combat.engine.kernel.errors import RuleError

    package = tmp_path / "clash_rules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "commands.py").write_text(textwrap.dedent('''
        from typing import Literal

        from fudge_combat.engine.kernel.command_base import CommandModel


        class Feint(CommandModel):
            type: Literal["exchange"] = "exchange"
            combatant: str


        COMMANDS = {"feint": Feint}
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_added", {"clash": "clash_rules"})
    with pytest.raises(RuleError, match="the clash ruleset's command 'feint' has the type 'exchange' of a "
                                        "built-in command: give it its own"):
        own_commands("clash")
    with pytest.raises(RuleError):
        read_issued({"type": "exchange", "first": "Ann", "second": "Bob"}, "clash")
    assert own_commands("fudge") == {}  # a built-in ruleset's commands have their own in the shell
