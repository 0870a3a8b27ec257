"""The Atari Isev demo fight (seed 000): Max's tavern knife fight, with dice that tell the text's story.

`KNIFE_FIGHT` is a script of (caption, command, entered dice) steps after the
two joins; `cli.demos` plays it as `fudge demo atari-isev`.

Round 1: Max (initiative -1) rolls +2 and acts first: his fists (Unarmed
Good, roll 0) beat the Cutthroat's dodge that ended Poor: RD 3, Strength 1,
fists 0, heavy clothing 1, luck 0 -> 3: Hurt. The Cutthroat's slash (Good -1
Hurt +2 = Great) beats Max's Fair dodge: RD 2 + knife 1 + luck 1 = 4 -> Max
Hurt (AI-WND-2). Round 2: both total 0 and act simultaneously (AI-INIT-2).
Max throws him through the window (3 more points: his Hurt box is full ->
Very Hurt); the stab in the same slot still carries only the Cutthroat's
earlier -1: 3 points -> Max's Hurt box is full -> Very Hurt, -2: he flees.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine import commands as cmd

Step = tuple[str, Any, tuple[str, ...]]

KNIFE_FIGHT: tuple[Step, ...] = (
    ("Round 1: initiative: Max -1 +2 = +1, the Cutthroat 0 +0 = 0", cmd.StartRound(),
     ("max=+ + 0 0", "cutthroat=0 0 0 0")),
    ("Max acts first", cmd.NextTurn(), ()),
    ("Max's fists (Good, roll 0) against a dodge that ends Poor: RD 3, 3 points: Hurt",
     cmd.Attack(attacker="Max", target="Cutthroat", weapon="unarmed"),
     ("max=0 0 0 0", "cutthroat=- - 0 0", "max=0 0 0 0")),
    ("The Cutthroat's turn", cmd.NextTurn(), ()),
    ("A slash for 4 points: Max is Hurt, -1",
     cmd.Attack(attacker="Cutthroat", target="Max"),
     ("cutthroat=+ + 0 0", "max=0 0 0 0", "cutthroat=+ 0 0 0")),
    ("Round 2: both total 0: they act simultaneously", cmd.StartRound(),
     ("max=0 0 0 +", "cutthroat=0 0 0 0")),
    ("Max (first in the slot)", cmd.NextTurn(), ()),
    ("Max throws him through the window: 3 points, the Hurt box is full: Very Hurt",
     cmd.Attack(attacker="Max", target="Cutthroat", weapon="unarmed"),
     ("max=0 + 0 0", "cutthroat=- 0 0 0", "max=0 0 0 0")),
    ("The Cutthroat, in the same slot (his new wound does not count yet)", cmd.NextTurn(), ()),
    ("A stab for 3 points: Max's Hurt box is full: Very Hurt, -2. He wisely flees.",
     cmd.Attack(attacker="Cutthroat", target="Max"),
     ("cutthroat=+ + 0 0", "max=0 0 0 0", "cutthroat=- 0 0 0")),
)

