"""PH and CT: phase initiative with Crunch Time dice and bartering.

A die's face is -1, 0, +1 as rolled, +2 once raised to `++`; a traded die
leaves play (the card puts it in the `--` row). `--` is every combatant's
phase and is not a die.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.errors import RuleError
from engine.options import RuleOptions

PHASES = ("++", "+", "0", "-", "--")
PHASE_VALUE = {"++": 2, "+": 1, "0": 0, "-": -1, "--": -2}
PHASE_NAME = {value: name for name, value in PHASE_VALUE.items()}
ALWAYS = -2


@dataclass(frozen=True, slots=True)
class Die:
    face: int
    traded: bool = False
    locked: bool = False  # CT-BARTER-2: raised to `+`, cannot be traded in


@dataclass(frozen=True, slots=True)
class Initiative:
    dice: tuple[Die, ...]
    surprised: bool = False

    def phases(self, options: RuleOptions) -> tuple[int, ...]:
        """PH-2, PH-5: the phases acted in, best first; always ends with `--`."""
        faces = [d.face for d in self.dice if not d.traded]
        if self.surprised:
            faces = [max(ALWAYS, f - 1) for f in faces]
        acting = faces if options.duplicates_act else sorted(set(faces), reverse=True)
        acting = sorted((f for f in acting if f != ALWAYS), reverse=True)
        return tuple(acting) + (ALWAYS,)

    def spares(self) -> tuple[int, ...]:
        """Indexes of duplicate faces set aside (PH-2)."""
        seen: set[int] = set()
        out = []
        for index, die in enumerate(self.dice):
            if die.traded:
                continue
            if die.face in seen:
                out.append(index)
            seen.add(die.face)
        return tuple(out)


def dice_count(determinant: int, options: RuleOptions) -> int:
    """CT-TABLE `rolled`: Abysmal 0dF, Terrible 1dF, ... Fair 4dF, ... Legendary 8dF."""
    return max(0, min(8, determinant + 4))


def barter(initiative: Initiative, trade: int, alter: int, direction: int, options: RuleOptions) -> Initiative:
    """CT-BARTER-1..4: trade one `+` die to raise (or, with downgrades, lower) another one face.

    `trade` and `alter` are 0-based die indexes.
    """
    if options.bartering != "crunch":
        raise RuleError(f"this fight's rules have no crunch bartering (bartering = {options.bartering!r})")
    dice = initiative.dice
    for label, index in (("trade", trade), ("die to change", alter)):
        if not 0 <= index < len(dice):
            raise RuleError(f"no die {index + 1} to {label}: dice are numbered 1..{len(dice)}")
        if dice[index].traded:
            raise RuleError(f"die {index + 1} was already traded in")
    if trade == alter:
        raise RuleError("a die cannot be traded for itself")
    traded = dice[trade]
    if traded.face != 1:
        raise RuleError(f"only a + die can be traded in (die {trade + 1} shows {PHASE_NAME[traded.face]})")
    if traded.locked:
        raise RuleError(f"die {trade + 1} was raised to + and is locked: it cannot be traded (CT-BARTER-2)")
    available = [d for d in dice if d.face == 1 and not d.traded and not d.locked]
    if len(available) < 2 and not options.crunch_single_plus_trade:
        raise RuleError("these rules forbid trading with only one + die (CT-BARTER-3)")
    target = dice[alter]
    if target.face <= ALWAYS:
        raise RuleError(f"die {alter + 1} shows --: the -- phase cannot be altered (CT-BARTER-1)")
    if direction > 0:
        if target.face >= 2:
            raise RuleError(f"die {alter + 1} shows ++: nothing is above ++")
        new = replace(target, face=target.face + 1, locked=target.locked or target.face + 1 == 1)
    else:
        if not options.crunch_downgrades:
            raise RuleError("these rules allow no downgrades (crunch_downgrades = false, CT-BARTER-4)")
        if target.face not in (1, 0):
            raise RuleError(f"only a + or a 0 die can be lowered (die {alter + 1} shows {PHASE_NAME[target.face]})")
        new = replace(target, face=target.face - 1)
    changed = list(dice)
    changed[trade] = replace(traded, traded=True)
    changed[alter] = new
    return replace(initiative, dice=tuple(changed))
