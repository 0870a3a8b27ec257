"""The demo fights `fudge demo NAME` plays: each a preset, example sheets and a script of commands.

A script step is (caption, command, entered dice). Entered dice make a demo
tell the same story every time; a step with no dice rolls generated ones.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import msgspec
from msgspec import Struct

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.sheets import parse_sheet
from fudge_combat.events import structs as ev
from fudge_combat.examples.demo_atari import KNIFE_FIGHT
from fudge_combat.examples.demo_fate import TAVERN_BRAWL

Step = tuple[str, Any, tuple[str, ...]]


def sheet_text(name: str) -> str:
    return (resources.files("fudge_combat.examples") / "sheets" / f"{name}.toml").read_text()


def join(name: str, side: str | None = None) -> cmd.Join:
    """Join an example sheet (`examples/sheets/NAME.toml`)."""
    sheet = parse_sheet(sheet_text(name), f"{name}.toml")
    return cmd.Join(sheet=json_form(sheet), source=f"{name}.toml", side=side)


class Demo(Struct, frozen=True):
    name: str
    summary: str
    rules: str
    house: str | None
    steps: tuple[Step, ...]
    branch_at: int | None = None  # a what-if branch at this seq, after the script


# Fudge 4.7's five rounds (F-EX) with the text's dice.
FEX_ROUNDS: tuple[Step, ...] = (
        ("Round 1: Snorri rolls +1, Brynhild -1; damage roll -2", cmd.Exchange(first="Snorri", second="Brynhild"),
         ("snorri=+ 0 0 0", "brynhild=- 0 0 0", "snorri=- - 0 0")),
        ("Round 2: both Good: a stand-off", cmd.Exchange(first="Snorri", second="Brynhild"),
         ("snorri=0 0 0 0", "brynhild=+ 0 0 0")),
        ("Round 3: Great vs Good, a graze; damage roll 0", cmd.Exchange(first="Snorri", second="Brynhild"),
         ("snorri=+ 0 0 0", "brynhild=+ 0 0 0", "snorri=0 0 0 0")),
        ("Round 4: Snorri all-out offense",
         cmd.Declare(combatant="Snorri", declaration=ev.Declaration(all_out="offense")), ()),
        ("         Brynhild all-out defense",
         cmd.Declare(combatant="Brynhild", declaration=ev.Declaration(all_out="defense")), ()),
        ("         Great vs Great: no damage", cmd.Exchange(first="Snorri", second="Brynhild"),
         ("snorri=0 0 0 0", "brynhild=0 0 0 0")),
        ("         Brynhild's Perception roll finds the spilled drink (F-MOD-7)",
         cmd.RollTrait(combatant="Brynhild", trait="Perception", difficulty=1, advantage=True),
         ("brynhild=0 0 0 0",)),
        ("Round 5: Brynhild all-out offense",
         cmd.Declare(combatant="Brynhild", declaration=ev.Declaration(all_out="offense")), ()),
        ("         Good vs Great: her graze, +1 all-out, is a Hurt", cmd.Exchange(first="Snorri", second="Brynhild"),
         ("snorri=+ 0 0 0", "brynhild=+ 0 0 0", "brynhild=0 0 0 0")),
)

# Fudge 4.7: Snorri vs Brynhild (F-EX), with the text's dice, then an undo and a redo.
FUDGE = Demo(
    name="fudge",
    summary="Fudge 4.7, Snorri vs Brynhild, with the text's dice (simultaneous rounds, 4dF damage roll)",
    rules="fudge",
    house='extends = "fudge"\nname = "fudge (4.7 example)"\ndamage_roll = "4dF_limited"\n',
    steps=(
        ("Snorri joins", join("snorri"), ()),
        ("Brynhild joins", join("brynhild"), ()),
        *FEX_ROUNDS,
        ("A mistaken roll: Snorri rolls Sword vs Good...", cmd.RollTrait(combatant="Snorri", trait="Sword", difficulty=1),
         ("snorri=0 + 0 -",)),
        ("...the GM undoes it (a void is appended)", cmd.Undo(), ()),
        ("...and thinks better of it: redo", cmd.Redo(), ()),
    ),
    branch_at=19,  # after round 3: what if round 4 went otherwise?
)

# Crunch Time phase initiative (003): three fighters, bartered dice, attacks in phase order.
FUDGE_PHASES = Demo(
    name="fudge-phases",
    summary="Crunch Time phase initiative: a watchman pair against Brynhild, dice bartered, attacks in phase order",
    rules="fudge-phases",
    house=None,
    steps=(
        ("Leroy joins the watch", join("leroy", side="watch"), ()),
        ("Theodora joins the watch", join("theodora", side="watch"), ()),
        ("Brynhild joins the raiders", join("brynhild", side="raiders"), ()),
        ("Round 1: everyone rolls initiative dice (Fair Agility 4dF, Good 5dF); Theodora is surprised",
         cmd.StartRound(surprised=("Theodora",)),
         ("leroy=+ + 0 -", "theodora=+ 0 0 -", "brynhild=+ + + - 0")),
        ("Leroy trades his first + to raise the other to ++ (CT-BARTER-1)",
         cmd.Barter(combatant="Leroy", trade=0, alter=1, direction=1), ()),
        ("Brynhild trades a + to raise another to ++; her third + stays",
         cmd.Barter(combatant="Brynhild", trade=0, alter=1, direction=1), ()),
        ("Phase ++: Brynhild (Good Agility) acts before Leroy (Fair)", cmd.NextTurn(), ()),
        ("Brynhild's axe swings at Leroy", cmd.Attack(attacker="Brynhild", target="Leroy"),
         ("brynhild=+ 0 + 0", "leroy=0 0 - 0")),
        ("Phase ++: Leroy", cmd.NextTurn(), ()),
        ("Leroy cuts at Brynhild", cmd.Attack(attacker="Leroy", target="Brynhild"),
         ("leroy=+ + 0 0", "brynhild=0 - 0 0")),
        ("Phase +: Brynhild again; Theodora's + fell to 0 (surprise, PH-5)", cmd.NextTurn(), ()),
        ("Brynhild attacks Theodora", cmd.Attack(attacker="Brynhild", target="Theodora"),
         ("brynhild=0 0 - 0", "theodora=0 + 0 0")),
        ("Phase 0: Brynhild holds back", cmd.NextTurn(), ()),
        ("Phase 0: Leroy (tied with Theodora on Agility: the GM may order them, PH-3)", cmd.NextTurn(), ()),
        ("Leroy presses Brynhild", cmd.Attack(attacker="Leroy", target="Brynhild"),
         ("leroy=+ 0 0 0", "brynhild=0 0 0 0")),
        ("Phase 0: Theodora", cmd.NextTurn(), ()),
        ("Theodora's poleaxe at Brynhild", cmd.Attack(attacker="Theodora", target="Brynhild"),
         ("theodora=+ + 0 0", "brynhild=0 0 - -")),
    ),
)

# Atari Isev (000): Max's tavern knife fight.
ATARI_ISEV = Demo(
    name="atari-isev",
    summary="Atari Isev: Max's tavern knife fight with the seed's numbers (4dF + trait initiative, "
            "simultaneous ties, attack vs dodge, luck rolls, Health wound charts)",
    rules="atari-isev",
    house=None,
    steps=(("Max joins", join("max", side="Max"), ()),
           ("The Cutthroat joins", join("cutthroat", side="bar"), ()),
           *KNIFE_FIGHT),
)

def join_as(sheet: str, name: str) -> cmd.Join:
    """Join an example sheet under another name (one guard sheet, three guards)."""
    return msgspec.structs.replace(join(sheet), name=name)


# Fate (004 8.2): Cyrus and Finn against three guards, exchange by exchange.
FATE = Demo(
    name="fate",
    summary="Fate: Cyrus and Finn against three guards (004 8.2), with the text's results as dice: "
            "clips, outnumbering, an aspect reroll, fate points, a knock-back maneuver, a guard taken out",
    rules="fate",
    house=None,
    steps=(("Cyrus joins", join("cyrus"), ()),
           ("Finn joins", join("finn"), ()),
           ("Guard A joins", join_as("guard", "Guard-A"), ()),
           ("Guard B joins", join_as("guard", "Guard-B"), ()),
           ("Guard C joins", join_as("guard", "Guard-C"), ()),
           *TAVERN_BRAWL,
           ("The fight is over: the scene ends (clipped, hurt and taken out clear; injuries stay)", cmd.EndScene(), ())),
    branch_at=6,  # before the first exchange: what if it went otherwise?
)

DEMOS: dict[str, Demo] = {demo.name: demo for demo in (FUDGE, FUDGE_PHASES, ATARI_ISEV, FATE)}
