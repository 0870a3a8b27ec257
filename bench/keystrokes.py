"""Keystrokes per three-fighter round in `fudge play`, for each preset, counted from a scripted session.

    python bench/keystrokes.py

The GM is scripted as he plays: he reads the prompt (whose turn it is), types `n` to give the next turn
(or, after the round's last turn, to start the next round), and `a FOE` with each name typed to its
shortest prefix that names one fighter alone. Every blow misses (the attacker's dice ----, the defender's
++++), so each round is the round before it; the dice are typed so the session is the same on every run,
and not counted: at the table the program rolls them. A key is a character of the line, and Enter; a
refused line stops the bench.

Counted: the second round (the first warms the fight up), from the line that starts it to the last blow.

With players rolling (the second table): each player character's blow on their turn comes from their own
page (`fudge invite`), as the players' server writes it, and the GM answers `y` when play shows it (or
nothing, with `invite --auto`); the GM still gives the turns and plays the NPCs. Initiative is still rolled
by the GM's `n`, and the simultaneous presets' one line (an NPC's melee, Fate's exchange) is the GM's own.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = Path(tempfile.mkdtemp(prefix="fudge-bench-keys-"))
os.environ.update({"FUDGE_KEY_FILE": str(FOLDER / "snapshot.key"), "FUDGE_SECRETS_FILE": str(FOLDER / "secrets.db"),
                   "XDG_STATE_HOME": str(FOLDER / "state"), "NO_COLOR": "1"})
os.environ.pop("FUDGE_STORE", None)
sys.path[:0] = [str(ROOT)]

from fudge_combat.cli import context, play, player_actions  # noqa: E402
from fudge_combat.cli.play_requests import AUTO  # noqa: E402
from fudge_combat.engine.turns import current_actor, round_over, still_fights  # noqa: E402
from fudge_combat.store.requests import Request  # noqa: E402

SETUPS = {
    "fudge": ["new duel --rules fudge --house examples/house/snorri-brynhild.toml",
              "join examples/sheets/snorri.toml --side heroes", "join examples/sheets/leroy.toml --side heroes",
              "join examples/sheets/brynhild.toml --side raiders"],
    "fudge-phases": ["new watch --rules fudge-phases", "join examples/sheets/leroy.toml --side watch",
                     "join examples/sheets/theodora.toml --side watch", "join examples/sheets/brynhild.toml --side raiders"],
    "atari-isev": ["new tavern --rules atari-isev", "join examples/sheets/max.toml --side Max",
                   "join examples/sheets/cutthroat.toml --side bar",
                   "join examples/sheets/cutthroat.toml --as Cutthroat-2 --side bar"],
    "fate": ["new brawl --rules fate", "join examples/sheets/cyrus.toml", "join examples/sheets/guard.toml --as Guard-A",
             "join examples/sheets/guard.toml --as Guard-B"],
}
ROUND_DICE = {  # the initiative each round rolls, typed (phase dice: PH-2; 4dF + trait: AI-INIT-2)
    "fudge-phases": '-d "leroy=+ + 0 -" -d "theodora=+ 0 0 -" -d "brynhild=+ + + - 0"',
    "atari-isev": '-d "max=+ + 0 0" -d "cutthroat=0 0 0 0" -d "cutthroat-2=- 0 0 0"',
}


def shortest(names: list[str], name: str) -> str:
    """The fewest first letters of `name` that the table reads as `name` alone (service.names.matching)."""
    for size in range(1, len(name) + 1):
        typed = name[:size].lower()
        if typed == name.lower() or not any(o.lower().startswith(typed) for o in names if o != name):
            return typed
    return name.lower()


class Table:
    """A `fudge play` session in this process, its output kept, each line's keys counted."""

    def __init__(self, store: Path, players: str = "") -> None:
        context.settings.store_path = store
        self.session = play.Session()
        self.keys = self.typed_dice = 0
        self.lines: list[str] = []
        self.players = players  # "y", "auto": player characters' blows come from their players' pages
        self.asked = 0

    def ask(self, fighter: str, action: player_actions.Attack) -> None:
        """A player's request, written as the players' server writes it (`cli.web.players.Board.ask`); play
        shows it before the GM's next line."""
        self.asked += 1
        self.session.fights.store.add_request(self.session.current() or "", Request(
            id=f"r{self.asked}", fighter=fighter, link="bench", at=f"{self.asked:012d}",
            body=action.model_dump_json(exclude_none=True)))
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            self.session.after()

    def type(self, line: str, dice: str = "") -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = self.session.run(f"{line} {dice}".strip())
            self.session.after()
        if code:
            raise SystemExit(f"refused: {line!r}: {out.getvalue().strip().splitlines()[-1:]}")
        self.keys += len(line) + 1  # and Enter
        self.typed_dice += len(dice) + (1 if dice else 0)
        self.lines.append(line)

    def state(self):  # type: ignore[no-untyped-def]
        return self.session.current_state()


def miss(attacker: str, defender: str) -> str:
    return shlex.join(["-d", f"{attacker.lower()}=- - - -", "-d", f"{defender.lower()}=+ + + +"])


def blow(table: Table) -> None:
    """`a FOE` for the fighter whose turn it is, the foe the first standing."""
    state = table.state()
    names = [who.name for who in state.combatants.values()]
    me = current_actor(state)
    assert me is not None
    foe = next(who for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq)
               if who.side != me.side and still_fights(state, who))
    if table.players and me.fighter.sheet.kind == "pc":  # the player's blow from their page; the GM says y
        table.ask(me.name, player_actions.Attack(target=foe.name, dice="- - - -"))
        if table.players == "y":  # else accepted as play shows it (`fudge invite --auto`)
            table.type("y")
        return
    table.type(f"a {shortest(names, foe.name)}", miss(me.name, foe.name))


SIMULTANEOUS = {  # the one line of a round where everyone engaged rolls at once, and its dice
    "fudge": ("brynhild", {"brynhild": "- - - -", "snorri": "- - - -", "leroy": "- - - -"}),  # F-MULTI-2: her melee
    "fate": ("guard-a", {"cyrus": "0 0 0 0", "guard-a": "- - - -", "guard-b": "- - - -"}),  # FT-PACE: the exchange
}


def one_round(table: Table, preset: str) -> None:
    """One round as the GM plays it under `preset`."""
    if preset in ROUND_DICE:  # turns by initiative: `n` starts the round, then `n` and the blow, turn by turn
        table.type("n", ROUND_DICE[preset])
        while not round_over(table.state()):
            table.type("n")
            if current_actor(table.state()) is None:
                return
            blow(table)
        return
    target, dice = SIMULTANEOUS[preset]
    names = [who.name for who in table.state().combatants.values()]
    full = next(name for name in names if name.lower() == target)
    table.type(f"a {shortest(names, full)}", shlex.join(part for who, faces in dice.items()
                                                        for part in ("-d", f"{who}={faces}")))


def count(preset: str, players: str = "") -> tuple[int, int, list[str]]:
    store = FOLDER / f"{preset}-{players}.db"
    table = Table(store, players)
    for line in SETUPS[preset]:
        table.type(line)
    if players == "auto":
        store_of = table.session.fights.store
        name = table.session.current() or ""
        store_of.set_setting(AUTO + store_of.fight(name).fight_id, "1")
    one_round(table, preset)
    table.keys = table.typed_dice = 0
    table.lines = []
    one_round(table, preset)
    if players:  # every player's blow was accepted (and so played), not left waiting or refused
        asked = table.session.fights.store.requests(table.session.current() or "")
        if len(asked) != table.asked or any(request.state != "accepted" for request in asked):
            raise SystemExit(f"{preset}: a player's request was not accepted: {[r.said for r in asked]}")
    table.session.close()
    return table.keys, table.typed_dice, table.lines


def main() -> None:
    for players, said in (("", "the GM types every line"),
                          ("y", "\nplayers roll their own blows, the GM answers y (the GM's keys alone)"),
                          ("auto", "\nthe same, `fudge invite --auto`: accepted as they come")):
        print(said)
        print("| preset | keys a round | lines | what is typed |")
        print("|---|---|---|---|")
        for preset in SETUPS:
            keys, _, lines = count(preset, players)
            print(f"| {preset} | {keys} | {len(lines)} | `{' ⏎ '.join(lines)} ⏎` |")


if __name__ == "__main__":
    main()
