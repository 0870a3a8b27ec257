"""The Fate demo fight (004 8.2): Cyrus and Finn against three guards, exchange by exchange.

`TAVERN_BRAWL` is a script of (caption, command, entered dice) steps after the
joins (Cyrus, Finn, then the guard sheet as Guard-A, Guard-B, Guard-C); the
dice give the text's results. Cyrus's Swords and Finn's skills are Good, the
guards' Swords Fair.

Reading of the third exchange: the text has A and B roll "a Good and a Fair"
and end at "a Great and a Fair" after +1 each; the sums only agree with what
follows (Cyrus's Superb hurts A, Finn's Legendary knife injures him) if A
rolled Fair and B Good: A is Good against Cyrus (outnumbering) and Fair against
Finn, B is Great against Cyrus.
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine import commands as cmd

Step = tuple[str, Any, tuple[str, ...]]

A, B, C = "Guard-A", "Guard-B", "Guard-C"


def act(name: str, target: str | None = None, **extra: Any) -> cmd.FateAction:
    return cmd.FateAction(combatant=name, target=target, **extra)


def outnumbering(*names: str, foe: str = "Cyrus") -> tuple[cmd.FateMod, ...]:
    return tuple(cmd.FateMod(combatant=n, kind="outnumbering", against=foe) for n in names)


TAVERN_BRAWL: tuple[Step, ...] = (
    ("Exchange 1: Cyrus draws and defends (Great); A Fair, B Average; Finn tumbles (Fair) vs C's Good: clipped",
     cmd.FateExchange(actions=(act("Cyrus", defensive=True), act(A, "Cyrus"), act(B, "Cyrus"),
                               act("Finn", skill="Tumbling", non_combat=True), act(C, "Finn"))),
     ("cyrus=0 0 0 0", "guard-a=0 0 0 0", "guard-b=- 0 0 0", "finn=- 0 0 0", "guard-c=+ 0 0 0")),
    ("Exchange 2: A and B outnumber Cyrus (+1): Good vs Good and Great: a scratch and a clip; "
     "Finn kicks (Great -1 clipped = Good) vs C's Fair",
     cmd.FateExchange(actions=(act("Cyrus"), act(A, "Cyrus"), act(B, "Cyrus"),
                               act("Finn", C, skill="Brawling", maneuver="kicks him across the room, out of the "
                                   "fight for an exchange or two", maneuver_needs="hurt"),
                               act(C, "Finn")),
                      mods=outnumbering(A, B)),
     ("cyrus=0 0 0 0", "guard-a=0 0 0 0", "guard-b=+ 0 0 0", "finn=+ 0 0 0", "guard-c=0 0 0 0")),
    ("Finn spends a fate point: Great, a Hurt, taken as the knock-back maneuver",
     cmd.SpendPoint(combatant="Finn", use="skill", shift=1), ()),
    ("Exchange 3: Cyrus (Good -1 clipped = Fair) at A; A Good, B Great with outnumbering; "
     "Finn's knife at A's back (+1, not expecting it): Epic -> Legendary",
     cmd.FateExchange(actions=(act("Cyrus", A), act(A, "Cyrus"), act(B, "Cyrus"),
                               act("Finn", A, skill="Throwing")),
                      mods=outnumbering(A, B) + (cmd.FateMod(combatant="Finn", kind="GM", against=A),)),
     ("cyrus=+ - 0 0", "guard-a=0 0 0 0", "guard-b=+ 0 0 0", "finn=+ + + 0")),
    ("Cyrus checks Brawler for a reroll: a - becomes a +: Great",
     cmd.CheckAspect(combatant="Cyrus", aspect="Brawler"), ("cyrus=+ + 0 0",)),
    ("Cyrus spends a fate point: Superb beats both; he hurts A",
     cmd.SpendPoint(combatant="Cyrus", use="skill", shift=1), ()),
    ("Exchange 4: Cyrus fully defensive (Fair +1 = Good); A Average +1 -2 = Mediocre, B Good +1 = Great: "
     "Cyrus clipped; Finn's second knife: Great",
     cmd.FateExchange(actions=(act("Cyrus", defensive=True), act(A, "Cyrus"), act(B, "Cyrus"),
                               act("Finn", A, skill="Throwing")),
                      mods=outnumbering(A, B)),
     ("cyrus=- 0 0 0", "guard-a=- 0 0 0", "guard-b=+ 0 0 0", "finn=+ 0 0 0")),
    ("Finn checks Underhanded for a reroll: Superb vs A's Poor, MoS 6",
     cmd.CheckAspect(combatant="Finn", aspect="Underhanded"), ("finn=+ + 0 0",)),
    ("Finn spends a fate point: Epic, MoS 7: guard A is taken out",
     cmd.SpendPoint(combatant="Finn", use="skill", shift=1), ()),
)
