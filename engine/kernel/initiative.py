"""PH, PC and CT: phase initiative, its dice tables and both ways of bartering.

A die's face is -1, 0, +1 as rolled, +2 once raised to `++` (and -2 once a
classic barter lowers it to `--`); a traded die leaves play (the card puts it
in the `--` row). `--` is every combatant's phase and is not a die. A fixed
die (CT-TABLE `rolled_fixed` and `fixed`, and 002's automatic phase results)
is a die frozen on a face: it is traded and altered like a rolled one. A
discarded die (PC-DICE Terrible and Poor, CT-GIFT Two Left Feet) was rolled
but gives nothing and cannot be bartered.
"""

from msgspec import Struct
from msgspec.structs import replace

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.options import RuleOptions

PHASES = ("++", "+", "0", "-", "--")
PHASE_VALUE = {"++": 2, "+": 1, "0": 0, "-": -1, "--": -2}
PHASE_NAME = {value: name for name, value in PHASE_VALUE.items()}
ALWAYS = -2


class Die(Struct, frozen=True):
    face: int
    traded: bool = False
    locked: bool = False  # CT-BARTER-2: raised to `+`, cannot be traded in
    fixed: bool = False  # CT-TABLE, PC-DICE: a frozen face, not rolled
    discarded: bool = False  # PC-DICE Terrible/Poor, CT-GIFT Two Left Feet
    spent: bool = False  # CT-SPARE: spent as +1 to a roll

    @property
    def live(self) -> bool:
        """Still on the card: neither traded in nor discarded."""
        return not (self.traded or self.discarded)


class Intent(Struct, frozen=True):
    """PH-4 `structured`: what a combatant declared for one phase."""

    phase: int
    what: str
    target: str | None = None  # the combatant's key when the intent is an attack


class Initiative(Struct, frozen=True):
    dice: tuple[Die, ...]
    surprised: bool = False
    bonus: tuple[int, ...] = ()  # CT-GIFT Quick Reflexes: phases that are no die's
    tie_rank: int | None = None  # PH-3: place in the GM's order of tied combatants
    intents: tuple[Intent, ...] = ()  # PH-4 `structured`
    seq: int = 0  # the event that rolled it: spares are spent on later rolls only
    held: tuple[int, ...] = ()  # PH-4 `open`: phases in which the action is held to the end

    def phases(self, options: RuleOptions) -> tuple[int, ...]:
        """PH-2, PH-5, CT-GIFT: the phases acted in, best first; always ends with `--`.

        Surprise drops what the dice show; a gift's phase is not a die result
        and stays (Quick Reflexes "always" gives the `+` phase).
        """
        faces = [d.face for d in self.dice if d.live]
        if self.surprised:
            faces = [max(ALWAYS, f - 1) for f in faces]
        faces += list(self.bonus)
        acting = faces if options.duplicates_act else sorted(set(faces), reverse=True)
        acting = sorted((f for f in acting if f != ALWAYS), reverse=True)
        return tuple(acting) + (ALWAYS,)

    def spares(self, options: RuleOptions | None = None) -> tuple[int, ...]:
        """Indexes of surplus dice (PH-2): duplicate faces set aside, and dice lowered to `--`.

        With `duplicates_act` a duplicate acts, so only a `--` die is surplus.
        """
        seen: set[int] = set()
        out = []
        duplicates_act = options is not None and options.duplicates_act
        for index, die in enumerate(self.dice):
            if not die.live:
                continue
            if die.face == ALWAYS or (die.face in seen and not duplicates_act):
                out.append(index)
            seen.add(die.face)
        return tuple(out)

    def rolled(self) -> int:
        return sum(1 for d in self.dice if not d.fixed)


class Allotment(Struct, frozen=True):
    """What a determinant gives: dice to roll, fixed faces, and faces discarded once rolled."""

    rolled: int
    fixed: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()


# CT-TABLE `rolled_fixed`, fudge7 with Abysmal -4 and Legendary +4: (rolled dice, fixed faces).
ROLLED_FIXED: dict[int, tuple[int, tuple[int, ...]]] = {
    -4: (0, ()), -3: (0, (-1,)), -2: (1, ()), -1: (1, (-1,)), 0: (2, ()),
    1: (2, (-1,)), 2: (3, ()), 3: (3, (-1,)), 4: (4, ()),
}
# CT-TABLE `fixed`: no dice; the phases besides `--`, each a fixed die.
FIXED: dict[int, tuple[int, ...]] = {
    -4: (), -3: (-1,), -2: (0,), -1: (-1, 0), 0: (-1, 1), 1: (0, 1),
    2: (-1, 0, 1), 3: (-1, 0, 2), 4: (-1, 0, 1, 2),
}
# PC-DICE, on 002's fate11 numbers (Awful -4 .. Legendary +6): (rolled dice, automatic results, faces discarded).
CLASSIC: dict[int, Allotment] = {
    -4: Allotment(0), -3: Allotment(1, discard=(0, 1)), -2: Allotment(1, discard=(1,)),
    -1: Allotment(1), 0: Allotment(2), 1: Allotment(3), 2: Allotment(4),
    3: Allotment(4, (-1,)), 4: Allotment(4, (0,)), 5: Allotment(4, (1,)), 6: Allotment(4, (2,)),
}


def allotment(determinant: int, options: RuleOptions) -> Allotment:
    """PC-DICE or CT-TABLE: the initiative dice a determinant level gives.

    PC-DICE is written on the fate11 ladder; a fight on another ladder reads the
    determinant's number against the same numbers (a fudge7 Fair, 0, rolls as
    an Average: 2dF; a fudge7 Superb, +3, as a Great: 4dF and an automatic `-`).
    Levels beyond either end of a table read as its end.
    """
    if options.initiative == "phases-classic":
        return CLASSIC[max(-4, min(6, determinant))]
    level = max(-4, min(4, determinant))
    if options.crunch_table == "rolled_fixed":
        count, fixed = ROLLED_FIXED[level]
        return Allotment(count, fixed)
    if options.crunch_table == "fixed":
        return Allotment(0, FIXED[level])
    return Allotment(level + 4)


def dice_count(determinant: int, options: RuleOptions) -> int:
    """CT-TABLE `rolled`: Abysmal 0dF, Terrible 1dF, ... Fair 4dF, ... Legendary 8dF (or the other tables)."""
    return allotment(determinant, options).rolled


QUICK_REFLEXES = "quick reflexes"
TWO_LEFT_FEET = "two left feet"


def has_gift(gifts: tuple[str, ...], gift: str) -> bool:
    return any(g.strip().lower() == gift for g in gifts)


def discards(faces: tuple[int, ...], allot: Allotment, gifts: tuple[str, ...]) -> tuple[int, ...]:
    """Indexes of the dice set aside before bartering (PC-DICE; CT-GIFT Two Left Feet's surplus dice).

    `faces` are the rolled faces followed by the fixed ones.
    """
    out = [i for i, f in enumerate(faces[:allot.rolled]) if f in allot.discard]
    if has_gift(gifts, TWO_LEFT_FEET):
        seen: set[int] = set()
        for index, face in enumerate(faces):
            if index in out:
                continue
            if face in seen:
                out.append(index)
            seen.add(face)
    return tuple(sorted(out))


def bonus_phases(gifts: tuple[str, ...]) -> tuple[int, ...]:
    """CT-GIFT: Quick Reflexes always adds a `+` phase."""
    return (1,) if has_gift(gifts, QUICK_REFLEXES) else ()


def card_dice(faces: tuple[int, ...], fixed: tuple[int, ...], discarded: tuple[int, ...]) -> tuple[Die, ...]:
    """The dice an InitiativeRolled event puts on the card: rolled, then fixed."""
    dice = [Die(f) for f in faces] + [Die(f, fixed=True) for f in fixed]
    return tuple(replace(d, discarded=True) if i in discarded else d for i, d in enumerate(dice))


def barter(initiative: Initiative, trade: int, alter: int, direction: int, options: RuleOptions) -> Initiative:
    """CT-BARTER-1, CT-BARTER-2, CT-BARTER-3, CT-BARTER-4: trade one `+` die to raise (or, with downgrades,
    lower) another one face.

    `trade` and `alter` are 0-based die indexes.
    """
    if options.bartering != "crunch":
        raise RuleError(f"this fight's rules have no crunch bartering (bartering = {options.bartering!r})")
    if options.initiative != "phases-crunch":
        raise RuleError('crunch bartering (CT-BARTER) trades Crunch Time dice: it needs initiative = "phases-crunch"')
    dice = initiative.dice
    for label, index in (("trade", trade), ("die to change", alter)):
        check_die(dice, index, label)
    if trade == alter:
        raise RuleError("a die cannot be traded for itself")
    traded = dice[trade]
    if traded.face != 1:
        raise RuleError(f"only a + die can be traded in (die {trade + 1} shows {PHASE_NAME[traded.face]})")
    if traded.locked:
        raise RuleError(f"die {trade + 1} was raised to + and is locked: it cannot be traded (CT-BARTER-2)")
    available = [d for d in dice if d.face == 1 and d.live and not d.locked]
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


def check_die(dice: tuple[Die, ...], index: int, label: str) -> None:
    if not 0 <= index < len(dice):
        raise RuleError(f"no die {index + 1} to {label}: dice are numbered 1..{len(dice)}")
    if dice[index].traded:
        raise RuleError(f"die {index + 1} was already traded in")
    if dice[index].discarded:
        raise RuleError(f"die {index + 1} was discarded before bartering: it cannot be bartered")


def barter_classic(initiative: Initiative, trades: tuple[int, int], alter: int, direction: int,
                   options: RuleOptions) -> Initiative:
    """PC-BARTER-1, PC-BARTER-2, PC-BARTER-3: trade in two dice, at least one showing `+`, to move a third one level.

    Only with three or more dice rolled (PC-BARTER-2: 002's own example barters
    on 3dF, so "Good or above" reads as "three dice"); nothing goes above `++`
    or below `--`, and a `--` is never altered. Fixed dice (002's automatic
    results) are traded and altered like rolled ones; the other traded die may
    show anything.
    """
    if options.bartering != "classic":
        raise RuleError(f"this fight's rules have no classic bartering (bartering = {options.bartering!r})")
    if options.initiative != "phases-classic":
        raise RuleError('classic bartering (PC-BARTER) trades phase dice: it needs initiative = "phases-classic"')
    dice = initiative.dice
    if initiative.rolled() < 3:
        raise RuleError(f"bartering needs at least three dice rolled; {initiative.rolled()} were (PC-BARTER-2)")
    first, second = trades
    for label, index in (("trade", first), ("trade", second), ("die to change", alter)):
        check_die(dice, index, label)
    if len({first, second, alter}) < 3:
        raise RuleError("a barter trades two dice to move a third: name three different dice (PC-BARTER-1)")
    if not any(d.face == 1 and d.live for d in dice):
        raise RuleError("no + showing: no bartering (PC-BARTER-1)")
    if 1 not in (dice[first].face, dice[second].face):
        raise RuleError(f"one of the two dice traded in must show + (dice {first + 1} and {second + 1} show "
                        f"{PHASE_NAME[dice[first].face]} and {PHASE_NAME[dice[second].face]}, PC-BARTER-1)")
    target = dice[alter]
    if target.face <= ALWAYS:
        raise RuleError(f"die {alter + 1} shows --: a -- cannot be altered (PC-BARTER-3)")
    if direction > 0 and target.face >= 2:
        raise RuleError(f"die {alter + 1} shows ++: nothing is above ++ (PC-BARTER-3)")
    changed = list(dice)
    changed[first] = replace(dice[first], traded=True)
    changed[second] = replace(dice[second], traded=True)
    changed[alter] = replace(target, face=target.face + direction)
    return replace(initiative, dice=tuple(changed))
