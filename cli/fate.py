"""Fate at the table (FT-*): `fudge fate exchange|scene|round|attack|aspect|recover`, `fudge end-scene`.

A combatant in an exchange is `NAME` (he only defends, or picks the worst
attacker, FT-MULTI) or `NAME>TARGET` (he acts against TARGET). Per-combatant
options take `NAME=VALUE`; FT-MOD bonuses take `NAME` or `NAME>FOE` (against
that foe only), with `=N` for another value than +1.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from cli.gm_inputs import choices
from cli.outcome import JsonOpt
from cli.table import CommandIdOpt, DiceOpt, FightOpt, run
from engine import commands as cmd
from engine.errors import InputError

app = typer.Typer()
fate_app = typer.Typer(help="Fate (Fudge version) combat: exchanges, scenes, turns, aspects, injuries (FT-*).",
                       no_args_is_help=True)
app.add_typer(fate_app, name="fate")

Many = Optional[list[str]]
NEEDS = choices(cmd.FateAction, "maneuver_needs")  # FT-MANEUVER
MANEUVER_KINDS = choices(cmd.FateAction, "maneuver_kind")  # FT-ADV-2
SkillOpt = Annotated[Many, typer.Option("--skill", help="NAME=SKILL: the skill rolled (default: the sheet's combat skill).")]
DefensiveOpt = Annotated[Many, typer.Option("--defensive", help="FT-DEF-2: NAME fights defensively: +1, inflicts nothing.")]
NonCombatOpt = Annotated[Many, typer.Option("--non-combat", help="FT-DEF-1: NAME defends with a non-combat skill (give --skill): a win is a Scratch.")]
UnawareOpt = Annotated[Many, typer.Option("--unaware", help="FT-DROP: NAME does not expect the attack: Mediocre or Alertness.")]
ManeuverOpt = Annotated[Many, typer.Option("--maneuver", help="FT-MANEUVER: NAME=WHAT, taken instead of the harm.")]
NeedsOpt = Annotated[Many, typer.Option("--needs", help=f"FT-MANEUVER: NAME=OUTCOME the maneuver needs ({', '.join(NEEDS)}).")]
KindOpt = Annotated[Many, typer.Option("--maneuver-kind", help="FT-ADV-2: NAME=disarm or NAME=finesse (Flex, Locking).")]
NonLethalOpt = Annotated[Many, typer.Option("--non-lethal", help="FT-HEAL-1: NAME's harm is non-lethal (fists, padded weapons).")]
GmOpt = Annotated[Many, typer.Option("--mod", help="NAME=N or NAME>FOE=N: a GM modifier.")]
PositionOpt = Annotated[Many, typer.Option("--position", help="FT-MOD: NAME[>FOE][=N] has the superior position (+1).")]
OutnumberOpt = Annotated[Many, typer.Option("--outnumbering", help="FT-MOD: NAME[>FOE] outnumbers (+1).")]
FlankOpt = Annotated[Many, typer.Option("--flanking", help="FT-MOD: NAME[>FOE] flanks (+1, stacks).")]
SurroundOpt = Annotated[Many, typer.Option("--surrounding", help="FT-MOD: NAME[>FOE] surrounds (+1, stacks).")]
WeaponOpt = Annotated[Many, typer.Option("--superior-weapon", help="FT-ARMS dramatic: NAME[>FOE] has the superior weapon (+1).")]
ArmorOpt = Annotated[Many, typer.Option("--superior-armor", help="FT-ARMS dramatic: NAME[>FOE] has the superior armor (+1).")]
MobileOpt = Annotated[bool, typer.Option("--mobile", help="FT-ADV-2: both sides have room to move (Flex -1).")]


def _pairs(values: Many, option: str) -> dict[str, str]:
    out = {}
    for value in values or []:
        who, sep, what = value.partition("=")
        if not sep or not who.strip() or not what.strip():
            raise InputError(f"{option} takes NAME=VALUE, not {value!r}")
        out[who.strip().lower()] = what.strip()
    return out


def _names(values: Many) -> set[str]:
    return {v.strip().lower() for v in values or []}


def _mods(kinds: dict[str, Many]) -> tuple[cmd.FateMod, ...]:
    out = []
    for kind, values in kinds.items():
        for value in values or []:
            who, sep, number = value.partition("=")
            if kind == "GM" and not sep:
                raise InputError(f"--mod takes NAME=N or NAME>FOE=N, not {value!r}")
            try:
                amount = int(number) if sep else 1
            except ValueError:
                raise InputError(f"{value!r}: the modifier after '=' is a whole number") from None
            name, _, foe = who.partition(">")
            out.append(cmd.FateMod(combatant=name.strip(), kind=kind, against=foe.strip() or None,  # type: ignore[arg-type]
                                   value=amount))
    return tuple(out)


def actions(who: list[str], skill: Many, defensive: Many, non_combat: Many, unaware: Many, maneuver: Many,
            needs: Many, kind: Many, non_lethal: Many, gm: Many = None) -> tuple[cmd.FateAction, ...]:
    skills, maneuvers, needed, kinds = (_pairs(skill, "--skill"), _pairs(maneuver, "--maneuver"),
                                        _pairs(needs, "--needs"), _pairs(kind, "--maneuver-kind"))
    flags = {n: _names(v) for n, v in (("defensive", defensive), ("non_combat", non_combat),
                                       ("unaware", unaware), ("non_lethal", non_lethal))}
    out = []
    for entry in who:
        name, _, target = entry.partition(">")
        key = name.strip().lower()
        extra: dict[str, Any] = {flag: key in names for flag, names in flags.items()}
        if key in needed:
            if needed[key] not in NEEDS:
                raise InputError(f"--needs {needed[key]!r}: one of {', '.join(NEEDS)}")
            extra["maneuver_needs"] = needed[key]
        if key in kinds:
            if kinds[key] not in MANEUVER_KINDS:
                raise InputError(f"--maneuver-kind {kinds[key]!r}: one of {', '.join(MANEUVER_KINDS)}")
            extra["maneuver_kind"] = kinds[key]
        out.append(cmd.FateAction(combatant=name.strip(), target=target.strip() or None, skill=skills.get(key),
                                  maneuver=maneuvers.get(key), **extra))
    return tuple(out)


def mods_of(gm: Many, position: Many, outnumbering: Many, flanking: Many, surrounding: Many,
            weapon: Many, armor: Many) -> tuple[cmd.FateMod, ...]:
    return _mods({"GM": gm, "superior position": position, "outnumbering": outnumbering, "flanking": flanking,
                  "surrounding": surrounding, "superior weapon": weapon, "superior armor": armor})


@fate_app.command()
def exchange(
    who: Annotated[list[str], typer.Argument(help="Each combatant: NAME or NAME>TARGET.")],
    skill: SkillOpt = None, defensive: DefensiveOpt = None, non_combat: NonCombatOpt = None,
    unaware: UnawareOpt = None, maneuver: ManeuverOpt = None, needs: NeedsOpt = None, maneuver_kind: KindOpt = None,
    non_lethal: NonLethalOpt = None, mod: GmOpt = None, position: PositionOpt = None,
    outnumbering: OutnumberOpt = None, flanking: FlankOpt = None, surrounding: SurroundOpt = None,
    superior_weapon: WeaponOpt = None, superior_armor: ArmorOpt = None, mobile: MobileOpt = False,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """FT-PACE exchange: all declare, all roll once, each compared with whom they oppose (FT-OUT, FT-MULTI)."""
    run(fight, lambda f, n, s: cmd.FateExchange(
        actions=actions(who, skill, defensive, non_combat, unaware, maneuver, needs, maneuver_kind, non_lethal),
        mods=mods_of(mod, position, outnumbering, flanking, surrounding, superior_weapon, superior_armor),
        mobile=mobile), dice, command_id, as_json=as_json)


@fate_app.command()
def scene(
    who: Annotated[list[str], typer.Argument(help="Each combatant: NAME>OPPONENT (paired), or NAME (--total).")],
    total: Annotated[bool, typer.Option("--total", help="Compare the two sides' totals instead of pairs.")] = False,
    skill: SkillOpt = None, defensive: DefensiveOpt = None, non_combat: NonCombatOpt = None,
    maneuver: ManeuverOpt = None, needs: NeedsOpt = None, non_lethal: NonLethalOpt = None, mod: GmOpt = None,
    position: PositionOpt = None, outnumbering: OutnumberOpt = None,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """FT-PACE scene: one roll each for the whole fight; paired sub-fights, or the total difference (FT-SCENE)."""
    run(fight, lambda f, n, s: cmd.FateScene(
        actions=actions(who, skill, defensive, non_combat, None, maneuver, needs, None, non_lethal),
        mods=mods_of(mod, position, outnumbering, None, None, None, None),
        mode="total" if total else "paired"), dice, command_id, as_json=as_json)


@fate_app.command(name="round")
def round_(dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
           as_json: JsonOpt = False) -> None:
    """FT-INIT: a new round of turns: everyone rolls Alertness; ties go to Tactics, then the combat skill."""
    run(fight, lambda f, n, s: cmd.FateRound(), dice, command_id, as_json=as_json)


@fate_app.command()
def attack(
    attacker: Annotated[str, typer.Argument(help="The actor whose turn it is.")],
    defender: Annotated[str, typer.Argument(help="Who defends.")],
    skill: Annotated[Optional[str], typer.Option("--skill", help="The attacker's skill.")] = None,
    defense: Annotated[Optional[str], typer.Option("--defense", help="The defender's skill.")] = None,
    non_combat: Annotated[bool, typer.Option("--non-combat", help="FT-DEF-1: the defence is a non-combat skill.")] = False,
    unaware: Annotated[bool, typer.Option("--unaware", help="FT-DROP: the defender does not expect it.")] = False,
    maneuver: Annotated[Optional[str], typer.Option("--maneuver", help="FT-MANEUVER: taken instead of the harm.")] = None,
    needs: Annotated[str, typer.Option("--needs", help="The outcome the maneuver needs.")] = "clipped",
    non_lethal: Annotated[bool, typer.Option("--non-lethal", help="FT-HEAL-1: non-lethal harm.")] = False,
    mod: GmOpt = None, position: PositionOpt = None, outnumbering: OutnumberOpt = None, flanking: FlankOpt = None,
    surrounding: SurroundOpt = None, superior_weapon: WeaponOpt = None, superior_armor: ArmorOpt = None,
    mobile: MobileOpt = False, dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """FT-PACE turn: the actor attacks, the defender rolls defence; a clip counts on the next attack roll only."""
    if needs not in NEEDS:
        raise typer.BadParameter(f"--needs is one of {', '.join(NEEDS)}")
    run(fight, lambda f, n, s: cmd.FateAttack(
        attack=cmd.FateAction(combatant=attacker, target=defender, skill=skill, maneuver=maneuver,
                              maneuver_needs=needs, non_lethal=non_lethal),  # type: ignore[arg-type]
        defense=cmd.FateAction(combatant=defender, skill=defense, non_combat=non_combat, unaware=unaware),
        mods=mods_of(mod, position, outnumbering, flanking, surrounding, superior_weapon, superior_armor),
        mobile=mobile), dice, command_id, as_json=as_json)


@fate_app.command()
def aspect(
    combatant: Annotated[str, typer.Argument(help="Who invokes the aspect.")],
    name: Annotated[str, typer.Argument(help="The aspect.")],
    box: Annotated[Optional[int], typer.Option("--box", help="Which box to check (default: the first open one).")] = None,
    roll_seq: Annotated[Optional[int], typer.Option("--roll", help="Event number of the roll (default: the latest).")] = None,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """FT-PTS: check an aspect box to reroll a roll of the latest exchange (both rolls stay in the log)."""
    run(fight, lambda f, n, s: cmd.CheckAspect(combatant=combatant, aspect=name, box=box, target=roll_seq),
        dice, command_id, as_json=as_json)


@fate_app.command()
def point(
    combatant: Annotated[str, typer.Argument(help="Who spends the fate point.")],
    roll_seq: Annotated[Optional[int], typer.Option("--roll", help="Event number of the roll (default: the latest).")] = None,
    fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """FT-PTS: a fate point for +1 to a roll (the same as `fudge spend NAME skill --shift +1`)."""
    run(fight, lambda f, n, s: cmd.SpendPoint(combatant=combatant, use="skill", shift=1, target=roll_seq),
        None, command_id, as_json=as_json)


@fate_app.command()
def recover(
    combatant: Annotated[str, typer.Argument(help="The injured combatant.")],
    by: Annotated[Optional[str], typer.Option("--by", help="A combatant who rolls Medicine.")] = None,
    level: Annotated[Optional[str], typer.Option("--level", help="Or the healer's Medicine level.")] = None,
    light: Annotated[bool, typer.Option("--light", help="Light activity instead of rest (fate_recovery = \"long\").")] = False,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the medicine roll.")] = 0,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """FT-HEAL-1: one Injured box heals: a week, a day less per MoS of a medicine roll vs Fair."""
    run(fight, lambda f, n, s: cmd.RecoverInjury(
        combatant=combatant, healer=by, skill_level=s.ladder.parse(level) if level is not None else None,
        activity="light" if light else "rest", mod=mod), dice, command_id, as_json=as_json)


@app.command(name="end-scene")
def end_scene(fight: FightOpt = None, command_id: CommandIdOpt = None, as_json: JsonOpt = False) -> None:
    """FT-TRACK-3: the scene ends: clipped, hurt and taken-out boxes clear; injuries stay (non-lethal ones heal)."""
    run(fight, lambda f, n, s: cmd.EndScene(), None, command_id, as_json=as_json)
