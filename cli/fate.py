"""Fate at the table (FT-*): `fudge fate exchange|scene|round|attack|pass|hold|aspect|recover`, `fudge end-scene`.

A combatant in an exchange is `NAME` (he only defends, or picks the worst
attacker, FT-MULTI) or `NAME>TARGET` (he acts against TARGET); `NAME:TARGET`
is the same, and needs no quotes in a shell (which reads `>` as a redirection).
Per-combatant options take `NAME=VALUE`; FT-MOD bonuses take `NAME` or
`NAME>FOE` (`NAME:FOE`: against that foe only), with `=N` for another value
than +1. Names may be typed short or in any case (service.names).
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from fudge_combat.cli.gm_inputs import choices
from fudge_combat.cli.outcome import JsonOpt
from fudge_combat.cli.table import CommandIdOpt, DiceOpt, FightOpt, ForceOpt, check_round_over, offer_odds, run, two_names
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import decider_of
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.service.names import actor_and_target, resolve

app = typer.Typer()
fate_app = typer.Typer(help="Fate (Fudge version) combat: exchanges, scenes, turns, aspects, injuries (FT-*).",
                       no_args_is_help=True)
app.add_typer(fate_app, name="fate")

Many = Optional[list[str]]
NEEDS = choices(cmd.FateAction, "maneuver_needs")  # FT-MANEUVER
MANEUVER_KINDS = choices(cmd.FateAction, "maneuver_kind")  # FT-ADV-2
SkillOpt = Annotated[Many, typer.Option(
    "--skill", metavar="NAME=TRAIT", help="The skill rolled (default: the sheet's combat skill).")]
DefensiveOpt = Annotated[Many, typer.Option("--defensive", metavar="NAME", help="NAME fights defensively: +1, inflicts nothing [FT-DEF-2]")]
NonCombatOpt = Annotated[Many, typer.Option(
    "--non-combat", metavar="NAME", help="NAME defends with a non-combat skill (give --skill): a win is a Scratch [FT-DEF-1]")]
UnawareOpt = Annotated[Many, typer.Option("--unaware", metavar="NAME", help="NAME does not expect the attack: Mediocre or Alertness [FT-DROP]")]
ManeuverOpt = Annotated[Many, typer.Option(
    "--maneuver", metavar="NAME=WHAT", help="Taken instead of the harm [FT-MANEUVER]")]
NeedsOpt = Annotated[Many, typer.Option(
    "--needs", metavar="NAME=OUTCOME", help=f"The outcome the maneuver needs: {', '.join(NEEDS)} [FT-MANEUVER]")]
KindOpt = Annotated[Many, typer.Option(
    "--maneuver-kind", metavar="NAME=KIND", help="NAME=disarm or NAME=finesse (Flex, Locking) [FT-ADV-2]")]
NonLethalOpt = Annotated[Many, typer.Option(
    "--non-lethal", metavar="NAME", help="NAME's harm is non-lethal (fists, padded weapons) [FT-HEAL-1]")]
GmOpt = Annotated[Many, typer.Option("--mod", metavar="NAME[>FOE]=N", help="A GM modifier.")]
PositionOpt = Annotated[Many, typer.Option("--position", metavar="NAME[>FOE][=N]", help="NAME[>FOE][=N] has the superior position (+1) [FT-MOD]")]
OutnumberOpt = Annotated[Many, typer.Option("--outnumbering", metavar="NAME[>FOE]", help="NAME[>FOE] outnumbers (+1) [FT-MOD]")]
FlankOpt = Annotated[Many, typer.Option("--flanking", metavar="NAME[>FOE]", help="NAME[>FOE] flanks (+1, stacks) [FT-MOD]")]
SurroundOpt = Annotated[Many, typer.Option("--surrounding", metavar="NAME[>FOE]", help="NAME[>FOE] surrounds (+1, stacks) [FT-MOD]")]
WeaponOpt = Annotated[Many, typer.Option(
    "--superior-weapon", metavar="NAME[>FOE]", help="Has the superior weapon (+1; dramatic arms) [FT-ARMS]")]
ArmorOpt = Annotated[Many, typer.Option(
    "--superior-armor", metavar="NAME[>FOE]", help="Has the superior armor (+1; dramatic arms) [FT-ARMS]")]
MobileOpt = Annotated[bool, typer.Option("--mobile", help="Both sides have room to move (Flex -1) [FT-ADV-2]")]


def against(state: Any, entry: str) -> tuple[str, str]:
    """`NAME>TARGET` or `NAME:TARGET` as (NAME, TARGET); `NAME` alone as (NAME, ""). A whole entry that
    is a combatant's name (one with a `:` in it) is not split."""
    if state.find(entry) is not None:
        return entry, ""
    cut = min((i for i in (entry.find(">"), entry.find(":")) if i >= 0), default=-1)
    return (entry, "") if cut < 0 else (entry[:cut], entry[cut + 1:])


def _key(state: Any, typed: str) -> str:
    return resolve(state, typed).lower()


def _pairs(state: Any, values: Many, option: str) -> dict[str, str]:
    out = {}
    for value in values or []:
        who, sep, what = value.partition("=")
        if not sep or not who.strip() or not what.strip():
            raise InputError(f"{option} takes NAME=VALUE, not {value!r}")
        out[_key(state, who)] = what.strip()
    return out


def _names(state: Any, values: Many) -> set[str]:
    return {_key(state, v) for v in values or []}


def _mods(state: Any, kinds: dict[str, Many]) -> tuple[cmd.FateMod, ...]:
    out = []
    for kind, values in kinds.items():
        for value in values or []:
            who, sep, number = value.partition("=")
            if kind == "GM" and not sep:
                raise InputError(f"--mod takes NAME=N or NAME>FOE=N (NAME:FOE=N), not {value!r}")
            try:
                amount = int(number) if sep else 1
            except ValueError:
                raise InputError(f"{value!r}: the modifier after '=' is a whole number") from None
            name, foe = against(state, who)
            out.append(cmd.FateMod(combatant=name.strip(), kind=kind, against=foe.strip() or None,  # type: ignore[arg-type]  # a str: the kind of its option
                                   value=amount))
    return tuple(out)


def actions(state: Any, who: list[str], skill: Many, defensive: Many, non_combat: Many, unaware: Many,
            maneuver: Many, needs: Many, kind: Many, non_lethal: Many) -> tuple[cmd.FateAction, ...]:
    skills, maneuvers, needed, kinds = (_pairs(state, skill, "--skill"), _pairs(state, maneuver, "--maneuver"),
                                        _pairs(state, needs, "--needs"), _pairs(state, kind, "--maneuver-kind"))
    flags = {n: _names(state, v) for n, v in (("defensive", defensive), ("non_combat", non_combat),
                                              ("unaware", unaware), ("non_lethal", non_lethal))}
    out = []
    for entry in who:
        name, target = against(state, entry)
        key = _key(state, name)
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


def mods_of(state: Any, gm: Many, position: Many, outnumbering: Many, flanking: Many, surrounding: Many,
            weapon: Many, armor: Many) -> tuple[cmd.FateMod, ...]:
    return _mods(state, {"GM": gm, "superior position": position, "outnumbering": outnumbering,
                         "flanking": flanking, "surrounding": surrounding, "superior weapon": weapon,
                         "superior armor": armor})


@fate_app.command()
def exchange(
    who: Annotated[list[str], typer.Argument(help="Each combatant: NAME, or NAME>TARGET (or NAME:TARGET).")],
    skill: SkillOpt = None, defensive: DefensiveOpt = None, non_combat: NonCombatOpt = None,
    unaware: UnawareOpt = None, maneuver: ManeuverOpt = None, needs: NeedsOpt = None, maneuver_kind: KindOpt = None,
    non_lethal: NonLethalOpt = None, mod: GmOpt = None, position: PositionOpt = None,
    outnumbering: OutnumberOpt = None, flanking: FlankOpt = None, surrounding: SurroundOpt = None,
    superior_weapon: WeaponOpt = None, superior_armor: ArmorOpt = None, mobile: MobileOpt = False,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """An exchange: all declare, all roll once, each compared with whom they oppose [FT-PACE, FT-OUT, FT-MULTI]."""
    run(fight, lambda f, n, s: cmd.FateExchange(
        actions=actions(s, who, skill, defensive, non_combat, unaware, maneuver, needs, maneuver_kind, non_lethal),
        mods=mods_of(s, mod, position, outnumbering, flanking, surrounding, superior_weapon, superior_armor),
        mobile=mobile), dice, command_id, as_json=as_json)


@fate_app.command()
def scene(
    who: Annotated[list[str], typer.Argument(
        help="Each combatant: NAME>OPPONENT or NAME:OPPONENT (paired), or NAME (--total).")],
    total: Annotated[bool, typer.Option("--total", help="Compare the two sides' totals instead of pairs.")] = False,
    skill: SkillOpt = None, defensive: DefensiveOpt = None, non_combat: NonCombatOpt = None,
    maneuver: ManeuverOpt = None, needs: NeedsOpt = None, non_lethal: NonLethalOpt = None, mod: GmOpt = None,
    position: PositionOpt = None, outnumbering: OutnumberOpt = None,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A scene: one roll each for the whole fight; paired sub-fights, or the total difference [FT-PACE, FT-SCENE]."""
    run(fight, lambda f, n, s: cmd.FateScene(
        actions=actions(s, who, skill, defensive, non_combat, None, maneuver, needs, None, non_lethal),
        mods=mods_of(s, mod, position, outnumbering, None, None, None, None),
        mode="total" if total else "paired"), dice, command_id, as_json=as_json)


@fate_app.command(name="round")
def round_(force: ForceOpt = False, dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
           as_json: JsonOpt = False) -> None:
    """A new round of turns: everyone rolls Alertness; ties go to Tactics, then the combat skill [FT-INIT].

    Refused while a fighter who can act has not had his turn: --force starts it anyway."""
    def build(fights: Any, name: str, state: Any) -> cmd.FateRound:
        if not force:
            check_round_over(state, "fate round")
        return cmd.FateRound()
    run(fight, build, dice, command_id, as_json=as_json)


@fate_app.command()
def attack(
    fighters: Annotated[list[str], typer.Argument(
        metavar="[ATTACKER] DEFENDER", show_default=False,
        help="The actor whose turn it is, and who defends; DEFENDER alone: the actor attacks.")],
    skill: Annotated[Optional[str], typer.Option("--skill", metavar="TRAIT", help="The attacker's skill.")] = None,
    defense: Annotated[Optional[str], typer.Option("--defense", metavar="TRAIT", help="The defender's skill.")] = None,
    non_combat: Annotated[bool, typer.Option("--non-combat", help="The defence is a non-combat skill [FT-DEF-1]")] = False,
    unaware: Annotated[bool, typer.Option("--unaware", help="The defender does not expect it [FT-DROP]")] = False,
    maneuver: Annotated[Optional[str], typer.Option(
        "--maneuver", metavar="WHAT", help="Taken instead of the harm [FT-MANEUVER]")] = None,
    needs: Annotated[str, typer.Option(
        "--needs", metavar="OUTCOME", help="The outcome the maneuver needs.")] = "clipped",
    non_lethal: Annotated[bool, typer.Option("--non-lethal", help="Non-lethal harm [FT-HEAL-1]")] = False,
    mod: GmOpt = None, position: PositionOpt = None, outnumbering: OutnumberOpt = None, flanking: FlankOpt = None,
    surrounding: SurroundOpt = None, superior_weapon: WeaponOpt = None, superior_armor: ArmorOpt = None,
    mobile: MobileOpt = False, dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A turn: the actor attacks, the defender rolls defence; a clip counts on the next attack roll only [FT-PACE]."""
    if needs not in NEEDS:
        raise typer.BadParameter(f"--needs is one of {', '.join(NEEDS)}")
    two_names(fighters, "[ATTACKER] DEFENDER")

    def build(fights: Any, name: str, state: Any) -> cmd.FateAttack:
        if cmd.FateAttack not in decider_of(state).table:  # say so before looking for whose turn it is
            raise RuleError(decider_of(state).refusal(cmd.FateAttack))
        attacker, defender = actor_and_target(state, fighters, "fudge fate attack ATTACKER DEFENDER")
        return cmd.FateAttack(
            attack=cmd.FateAction(combatant=attacker, target=defender, skill=skill, maneuver=maneuver,
                                  maneuver_needs=needs, non_lethal=non_lethal),  # type: ignore[arg-type]  # a str checked above: the model's Literal
            defense=cmd.FateAction(combatant=defender, skill=defense, non_combat=non_combat, unaware=unaware),
            mods=mods_of(state, mod, position, outnumbering, flanking, surrounding, superior_weapon, superior_armor),
            mobile=mobile)
    run(fight, build, dice, command_id, as_json=as_json)


WhoOpt = Annotated[Optional[str], typer.Argument(
    metavar="NAME", show_default=False, help="Whose turn it is (checked); default: the actor who has it.")]


@fate_app.command(name="pass")
def pass_(who: WhoOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
          as_json: JsonOpt = False) -> None:
    """The actor passes his turn: it is used with no action, and the next in the order has it [FT-INIT]."""
    give_up(who, False, fight, command_id, as_json)


@fate_app.command()
def hold(who: WhoOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
         as_json: JsonOpt = False) -> None:
    """The actor holds his turn: he acts after the next fighter who still has one this round [FT-INIT]."""
    give_up(who, True, fight, command_id, as_json)


def give_up(who: Optional[str], hold: bool, fight: Optional[str], command_id: Optional[str], as_json: bool) -> None:
    """`fate pass` and `fate hold`: the turn given up, then the odds of the new actor's blow on each foe
    standing, as `fudge next` offers them."""
    run(fight, lambda f, n, s: cmd.FatePass(combatant=who, hold=hold), None, command_id, as_json=as_json)
    if not as_json:  # --json prints one document: the odds are `fudge odds --fight`'s
        offer_odds(fight)


@fate_app.command()
def aspect(
    combatant: Annotated[str, typer.Argument(help="Who invokes the aspect.")],
    aspect: Annotated[str, typer.Argument(help="The aspect (its first letters will do).")],
    box: Annotated[Optional[int], typer.Option("--box", metavar="N", help="Which box to check (default: the first open one).")] = None,
    roll_seq: Annotated[Optional[int], typer.Option(
        "--roll", metavar="SEQ", help="Event number of the roll (default: the latest).")] = None,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check an aspect box to reroll a roll of the latest exchange (both rolls stay in the log) [FT-PTS]."""
    run(fight, lambda f, n, s: cmd.CheckAspect(combatant=combatant, aspect=aspect_named(s, combatant, aspect), box=box,
                                               target=roll_seq), dice, command_id, as_json=as_json)


def aspect_named(state: Any, combatant: str, typed: str) -> str:
    """The aspect of `combatant`'s sheet `typed` means, written in full as names are (service.names): its first
    letters will do; a slip gets "did you mean". A fighter without aspects is left to the rules to refuse."""
    from fudge_combat.service.names import one_of, pick, resolve

    who = state.find(resolve(state, combatant))
    aspects = list(who.fighter.sheet.aspects) if who is not None else []
    if not aspects:
        return typed

    def unknown(close: list[str]) -> str:
        meant = f": did you mean {one_of(close)}?" if close else ""
        return f"{who.name} has no aspect {typed!r}{meant} (aspects: {', '.join(aspects)})"

    return pick(aspects, typed, unknown)


@fate_app.command()
def point(
    combatant: Annotated[str, typer.Argument(help="Who spends the fate point.")],
    roll_seq: Annotated[Optional[int], typer.Option(
        "--roll", metavar="SEQ", help="Event number of the roll (default: the latest).")] = None,
    fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A fate point for +1 to a roll (the same as `fudge spend NAME skill --shift +1`) [FT-PTS]."""
    run(fight, lambda f, n, s: cmd.SpendPoint(combatant=combatant, use="skill", shift=1, target=roll_seq),
        None, command_id, as_json=as_json)


@fate_app.command()
def recover(
    combatant: Annotated[str, typer.Argument(help="The injured combatant.")],
    by: Annotated[Optional[str], typer.Option("--by", metavar="NAME", help="A combatant who rolls Medicine.")] = None,
    level: Annotated[Optional[str], typer.Option("--level", metavar="LEVEL", help="Or the healer's Medicine level.")] = None,
    light: Annotated[bool, typer.Option("--light", help="Light activity instead of rest (fate_recovery = \"long\").")] = False,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the medicine roll.")] = 0,
    dice: DiceOpt = None, fight: FightOpt = None, command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """One Injured box heals: a week, a day less per MoS of a medicine roll vs Fair [FT-HEAL-1]."""
    run(fight, lambda f, n, s: cmd.RecoverInjury(
        combatant=combatant, healer=by, skill_level=s.ladder.parse(level) if level is not None else None,
        activity="light" if light else "rest", mod=mod), dice, command_id, as_json=as_json)


@app.command(name="end-scene")
def end_scene(fight: FightOpt = None, command_id: CommandIdOpt = None, as_json: JsonOpt = False) -> None:
    """The scene ends: clipped, hurt and taken-out boxes clear; injuries stay (non-lethal ones heal) [FT-TRACK-3];
    then the summary, as `fudge end` prints it."""
    from fudge_combat.cli.recovery import ending

    ending(fight, lambda f, n, s: cmd.EndScene(), command_id, as_json)
