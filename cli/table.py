"""At the table: declare, exchange, attack, roll, round, barter, next, order, intend, spend."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Optional

import typer

from fudge_combat.engine.kernel.words import counted
from fudge_combat.cli import render
from fudge_combat.cli.gm_inputs import (AffectsOpt, AimAtOpt, AimOpt, CalledOpt, MagicOpt, NeedRdOpt, OtherwiseOpt, SpeedOpt,
                           choices, parse_magic)
from fudge_combat.cli import context
from fudge_combat.cli.context import dice_input, echo, fight_name, guard, service
from fudge_combat.cli.params import ATARI, FUDGE, PHASES, TABLE
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.command_marks import is_part
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.wounds import LEVEL_BY_NAME, LEVELS
from fudge_combat.events import structs as ev
from fudge_combat.cli.outcome import JsonOpt, report, undone_of
from fudge_combat.service.names import actor_and_target, canonical, matching, resolve
from fudge_combat.service.fights import Fights, Outcome

app = typer.Typer()

FightOpt = Annotated[Optional[str], typer.Option(
    "--fight", "-f", metavar="FIGHT", help="Fight to act on (default: the current one).", rich_help_panel=TABLE)]
DiceOpt = Annotated[Optional[list[str]], typer.Option(
    "--dice", "-d", metavar="FACES", rich_help_panel=TABLE,
    help="Faces rolled at the table: \"+ 0 - +\" for the one roller, or NAME=FACES (repeat, in order) [C-DICE-3]")]
CommandIdOpt = Annotated[Optional[str], typer.Option(
    "--command-id", metavar="ID", hidden=True,  # for scripts and retries, not for the table: kept out of the help
    help="Idempotency key: a retried command with the same id is applied once.")]


def two_names(typed: list[str], metavar: str) -> None:
    """`[ACTOR] TARGET`: one name or two, else a usage error (exit 2)."""
    if len(typed) > 2:
        raise typer.BadParameter(f"one name or two, not {len(typed)} ({' '.join(typed)})", param_hint=f"'{metavar}'")


def level_of(fights: Fights, name: str, text: Optional[str]) -> Optional[int]:
    if text is None:
        return None
    return fights.state(name).ladder.parse(text)


def targeting(fights: Fights, name: str, aim: Optional[str], aim_at: Optional[str], called: Optional[str],
              need_rd: Optional[int], otherwise: Optional[str], affects: Optional[str],
              speed_contest: bool) -> cmd.Targeting:
    """The blow's aim, called shot and speed contest (F-HIT-2, F-LOC-1, F-LOC-2, F-FANCY-1), as exchange
    and attack take them."""
    return cmd.Targeting(aim=level_of(fights, name, aim), aim_at=aim_at, called=called, called_rd=need_rd,
                         otherwise=otherwise, affects=affects, speed_contest=speed_contest)


def wound_level(text: str) -> int:
    """A wound level by name (Scratch, Hurt, Very Hurt, ...), case-insensitive."""
    level = LEVEL_BY_NAME.get(text.strip().lower())
    if level is None:
        raise InputError(f"unknown wound level {text!r}; one of: {', '.join(LEVELS)}")
    return level


# The trait names a GM types, by the field naming whose trait it is (C-ACT-1); a Fate action's is its
# `skill` (`fudge fate exchange --skill NAME=SKILL`, `fudge fate attack --skill`, `--defense`).
TYPED_TRAITS = (("combatant", "trait"), ("opponent", "opponent_trait"), ("shooter", "skill"), ("target", "dodge"),
                ("healer", "skill"), ("combatant", "skill"))


def check_traits(state: Any, command: Any, can_insist: bool = False) -> None:
    """Refuse a typed trait name that is probably a typo of one the fighter has (`Rapeir`): it would be
    rolled at the default without a word. A name unlike any of the sheet's is a skill the fighter
    lacks: rolled at the rules' default, and `show` says so. Checked here, at the command line, and not
    in the rules: a log written before this check must still verify."""
    from fudge_combat.engine.kernel.sheets import likely_typo

    # A command's own parts may name traits too (a Fate exchange's actions, an attack's and a defence's)
    parts = [command, *(item for value in (getattr(command, field) for field in _fields(command))
                        for item in (value if isinstance(value, tuple) else (value,)) if is_part(item))]
    for part in parts:
        for whose, field in TYPED_TRAITS:
            name = getattr(part, field, None)
            if field == "opponent_trait" and name is None:
                name = getattr(part, "trait", None)  # the opponent rolls the same trait by default
            whom = getattr(part, whose, None)
            if not isinstance(name, str) or not isinstance(whom, str) or (who := state.find(whom)) is None:
                continue
            meant = likely_typo(who.fighter.sheet, name, state.options)
            if meant:
                insist = f" (to roll a skill {who.name} lacks at its default, add --unlisted)" if can_insist else ""
                raise InputError(f"{who.name} has no trait {name!r}: did you mean {' or '.join(meant)}?{insist}")


def _fields(command: Any) -> tuple[str, ...]:
    """The names of a command's fields (a struct's, or a ruleset of another package's model's)."""
    fields = getattr(command, "__struct_fields__", None)
    return tuple(fields if fields is not None else type(command).model_fields)


def run(fight: Optional[str], build: Any, dice: Optional[list[str]] = None, command_id: Optional[str] = None,
        unlisted: bool | None = None, as_json: bool = False,
        extra: Callable[[Fights, str, Any], Mapping[str, Any]] | None = None) -> None:
    """Build the command, check it, decide and show it (`cli.outcome.report`, as JSON with `as_json`);
    `unlisted` is roll's --unlisted (None: no such option); `extra(fights, fight, before)`: more keys of the
    JSON, read once the command is appended (`fudge end`'s summary of the fight as it stood before).

    Names typed short or in another case are written in full before the command is decided
    (service.names): the log holds what the fight knows, not what was typed."""
    with guard():
        fights = service()
        name = fight_name(fights, fight)
        state = fights.state(name)
        command = canonical(state, build(fights, name, state))
        if not unlisted:
            check_traits(state, command, can_insist=unlisted is not None)
        outcome = fights.execute(name, command, dice_input(dice_names(state, dice)), command_id)
        more = extra(fights, name, state) if as_json and extra is not None and not outcome.replayed else None
        report(state, outcome, as_json, undone_of(fights, name), extra=more)
        for line in expired_declarations(state, outcome):
            echo(f"warning: {line}", err=True)


# Rollers that are not combatants: the GM's group roll (F-MULTI-7), a healer from outside the fight (F-HEAL-2).
OTHER_ROLLERS = frozenset({"gm", "healer"})


def dice_names(state: Any, values: Optional[list[str]]) -> Optional[list[str]]:
    """`--dice NAME=FACES` with the roller's full name when NAME begins one combatant's name only. A name
    that begins none is left as typed, for the dice check to refuse with "did you mean" (service.dice);
    so are GM and healer (rollers who are not combatants) unless a combatant is called that."""
    out = []
    for value in values or []:
        who, sep, faces = value.partition("=")
        if sep and who.strip() and (who.strip().lower() not in OTHER_ROLLERS or state.find(who) is not None):
            found = matching([c.name for c in state.combatants.values()], who)
            if len(found) > 1:
                resolve(state, who)  # refused: it lists whom the name could be
            value = f"{found[0]}={faces}" if found else value
        out.append(value)
    return out if values is not None else None


def expired_declarations(before: Any, outcome: Outcome) -> list[str]:
    """Declarations a new round cleared before anyone used them (F-TAC-1: a declaration is for its round).

    A fighter declares, then the exchange they fight in opens the next round (their foe had fought
    this round already): the declaration is not carried into a round it was not made for; the GM is told.
    """
    if outcome.replayed:
        return []
    started = next((r.event.round for r in outcome.records if isinstance(r.event, ev.RoundStarted)), None)
    if started is None:
        return []
    revealed = {r.event.combatant.lower() for r in outcome.records if isinstance(r.event, ev.DeclarationRevealed)}
    out = []
    for key in [*before.declarations, *before.sealed]:
        if key in revealed or key not in before.combatants:
            continue
        what = render.declaration_text(before.declarations[key]) if key in before.declarations else "sealed"
        out.append(f"{before.combatants[key].name}'s declaration for round {before.round} ({what}) expired "
                   f"unused: round {started} began; declare again for this round (F-TAC-1)")
    return out


@app.command()
def declare(
    combatant: Annotated[str, typer.Argument(help="Who declares.")],
    all_out_offense: Annotated[bool, typer.Option("--all-out-offense", help="+1 skill, +1 damage; loses ties [F-MOD-6]", rich_help_panel=FUDGE)] = False,
    all_out_defense: Annotated[bool, typer.Option("--all-out-defense", help="+2 skill, cannot harm [F-MOD-7]", rich_help_panel=FUDGE)] = False,
    posture: Annotated[Optional[int], typer.Option(
        "--posture", metavar="N", help="+2..-2 to offense, the opposite to defense [F-TAC-1]", rich_help_panel=FUDGE)] = None,
    sealed: Annotated[bool, typer.Option("--sealed", help="Log only a seal; revealed at the blow [A-SEAL-1]")] = False,
    wait: Annotated[Optional[int], typer.Option(
        "--wait", metavar="N", rich_help_panel=ATARI,
        help="Initiative change -2..+2 before the roll (+ hurries: worse skills; - waits: better) [AI-WAIT]")] = None,
    hasty: Annotated[bool, typer.Option("--hasty", help="+1 initiative, -1 attack and defence this round [F-INIT-3]", rich_help_panel=FUDGE)] = False,
    two_attacks: Annotated[bool, typer.Option(
        "--two-attacks", help="A second attack 3 initiative levels later; surrenders the avoidance [AI-MULTI-ATK]",
        rich_help_panel=ATARI)] = False,
    two_avoidances: Annotated[Optional[str], typer.Option(
        "--two-avoidances", metavar="KIND", rich_help_panel=ATARI,
        help="dodge-dodge, parry-parry or dodge-parry; surrenders the attack [AI-MULTI-AVD]")] = None,
    sweep: Annotated[bool, typer.Option(
        "--sweep", help="A multi-strike at several foes (-1, -2, ...); surrenders the avoidance [AI-SWEEP]",
        rich_help_panel=ATARI)] = False,
    posture_roll: Annotated[bool, typer.Option(
        "--posture-roll", help="A 1d6 picks the posture (1: -2, 2: -1, 3-4: 0, 5: +1, 6: +2) [F-TAC-3]",
        rich_help_panel=FUDGE)] = False,
    posture_die: Annotated[Optional[int], typer.Option(
        "--posture-die", metavar="FACE", help="The d6 face rolled at the table (instead of a generated one) [F-TAC-3]",
        rich_help_panel=FUDGE)] = None,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Declare a stance for the coming round (sealed declarations stay secret until the blow).

    Under rolled initiative (opposed, ranked) a declaration is for the next round: make it before `fudge round`.
    """
    with guard():
        if all_out_offense and all_out_defense:
            raise InputError("choose one of --all-out-offense and --all-out-defense")
        kinds = choices(ev.Declaration, "two_avoidances")
        if two_avoidances is not None and two_avoidances not in kinds:
            raise InputError(f"--two-avoidances is one of {', '.join(kinds)}")
        declaration = ev.Declaration(all_out="offense" if all_out_offense else "defense" if all_out_defense else None,
                                     posture=posture, wait=wait, hasty=hasty, two_attacks=two_attacks,
                                     two_avoidances=two_avoidances, sweep=sweep)  # type: ignore[arg-type]  # a str checked above: the model's Literal
        if posture_roll or posture_die is not None:
            if sealed:
                raise InputError("a rolled posture is public: it cannot be --sealed (F-TAC-3)")
            run(fight, lambda f, n, s: cmd.Declare(combatant=combatant, declaration=declaration,
                                                   posture_roll=True, posture_die=posture_die), dice, as_json=as_json)
            return
        if dice:
            raise InputError("--dice goes with --posture-roll: a declaration rolls nothing else")
        fights = service()
        name = fight_name(fights, fight)
        before = fights.state(name)
        outcome = fights.declare(name, resolve(before, combatant), declaration, sealed)
        report(before, outcome, as_json)


@app.command()
def exchange(
    fighters: Annotated[list[str], typer.Argument(
        metavar="[FIRST] SECOND", show_default=False,
        help="The two fighters; SECOND alone: the actor who has the turn is the first.")],
    dice: DiceOpt = None,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the first fighter [F-MOD-2, F-MOD-5]")] = 0,
    defense_mod: Annotated[int, typer.Option("--defense-mod", help="GM modifier to the second fighter.")] = 0,
    min_hit: Annotated[Optional[str], typer.Option(
        "--min-hit", metavar="LEVEL", help="Minimum result to hit (default Poor ± Scale) [F-HIT-1]", rich_help_panel=FUDGE)] = None,
    stun: Annotated[Optional[list[str]], typer.Option(
        "--stun", metavar="NAME", help="This fighter's blows stun instead of wounding (repeat) [F-STUN-1]", rich_help_panel=FUDGE)] = None,
    pull: Annotated[Optional[list[str]], typer.Option(
        "--pull", metavar="NAME=LEVEL", help="The worst wound this fighter's blow may do [F-STUN-2]", rich_help_panel=FUDGE)] = None,
    head: Annotated[Optional[list[str]], typer.Option(
        "--head", metavar="NAME", help="This fighter aims at the head (repeat) [F-STUN-3]", rich_help_panel=FUDGE)] = None,
    magic: MagicOpt = None,
    aim: AimOpt = None,
    aim_at: AimAtOpt = None,
    called: CalledOpt = None,
    need_rd: NeedRdOpt = None,
    otherwise: OtherwiseOpt = None,
    affects: AffectsOpt = None,
    speed_contest: SpeedOpt = False,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A simultaneous opposed round between two fighters (F-PACE-2, F-MEL)."""
    two_names(fighters, "[FIRST] SECOND")

    def build(fights: Fights, name: str, state: Any) -> cmd.Exchange:
        first, second = actor_and_target(state, fighters, "fudge exchange FIRST SECOND")
        pulls = []
        for value in pull or []:
            who, sep, level = value.partition("=")
            if not sep:
                raise InputError(f"--pull takes NAME=LEVEL (e.g. --pull ann=Scratch), not {value!r}")
            pulls.append((who.strip(), wound_level(level)))
        return cmd.Exchange(first=first, second=second, mods=(mod, defense_mod),
                            min_hit=level_of(fights, name, min_hit),
                            reveals=fights.reveals(state, [first, second]),
                            stun=tuple(stun or ()), pull=tuple(pulls), head=tuple(head or ()), magic=parse_magic(magic),
                            targeting=targeting(fights, name, aim, aim_at, called, need_rd, otherwise, affects,
                                                speed_contest))
    run(fight, build, dice, command_id, as_json=as_json)


@app.command()
def attack(
    fighters: Annotated[list[str], typer.Argument(
        metavar="[ATTACKER] TARGET", show_default=False,
        help="Who attacks and who defends; TARGET alone: the actor who has the turn attacks.")],
    dice: DiceOpt = None,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the attacker.")] = 0,
    defense_mod: Annotated[int, typer.Option("--defense-mod", help="GM modifier to the defender.")] = 0,
    min_hit: Annotated[Optional[str], typer.Option(
        "--min-hit", metavar="LEVEL", help="Minimum result to hit [F-HIT-1]", rich_help_panel=FUDGE)] = None,
    unaware: Annotated[bool, typer.Option(
        "--unaware", help="The target does not defend [F-MEL-3]", rich_help_panel=FUDGE)] = False,
    difficulty: Annotated[Optional[str], typer.Option(
        "--difficulty", metavar="LEVEL", help="Difficulty vs an unaware target (default Poor) [F-MEL-3]", rich_help_panel=FUDGE)] = None,
    stun: Annotated[bool, typer.Option(
        "--stun", help="The blow stuns instead of wounding [F-STUN-1]", rich_help_panel=FUDGE)] = False,
    pull: Annotated[Optional[str], typer.Option(
        "--pull", metavar="LEVEL", help="The worst wound level the blow may do (e.g. Scratch) [F-STUN-2]", rich_help_panel=FUDGE)] = None,
    head: Annotated[bool, typer.Option(
        "--head", help="The blow aims at the head [F-STUN-3]", rich_help_panel=FUDGE)] = False,
    avoid: Annotated[Optional[list[str]], typer.Option(
        "--avoid", metavar="KIND", rich_help_panel=ATARI, help="dodge, parry, dodge-parry or none (default: the sheet's defence, or none when used up); "
                        "with --also: once for every foe, or once per foe in order (AI-SWEEP) [AI-ATK]")] = None,
    pos: Annotated[Optional[list[str]], typer.Option(
        "--pos", metavar="WHERE", rich_help_panel=ATARI,
        help="The attacker is behind, above, below, prone or has his back to the enemy (back); repeat [AI-POS]")] = None,
    target_back: Annotated[bool, typer.Option(
        "--target-back", help="The target's back is to the attacker (dodge -1, parry -2) [AI-POS]", rich_help_panel=ATARI)] = False,
    ranged: Annotated[Optional[str], typer.Option(
        "--ranged", metavar="KIND", help="thrown or propelled: a missile [AI-RNG]", rich_help_panel=ATARI)] = None,
    ranged_mod: Annotated[Optional[int], typer.Option(
        "--ranged-mod", help="The avoidance modifier within the rule's range (default its mildest) [AI-RNG-2]",
        rich_help_panel=ATARI)] = None,
    weapon: Annotated[Optional[str], typer.Option(
        "--weapon", metavar="HAND", help="main, off-hand or unarmed (default: the sheet's weapon)", rich_help_panel=ATARI)] = None,
    also: Annotated[Optional[list[str]], typer.Option(
        "--also", metavar="NAME", help="A further foe of a declared multi-strike; repeat, in order [AI-SWEEP]", rich_help_panel=ATARI)] = None,
    magic: MagicOpt = None,
    aim: AimOpt = None,
    aim_at: AimAtOpt = None,
    called: CalledOpt = None,
    need_rd: NeedRdOpt = None,
    otherwise: OtherwiseOpt = None,
    affects: AffectsOpt = None,
    speed_contest: SpeedOpt = False,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A directed attack: the target only defends (F-PACE-3); in phase order when initiative is on."""
    two_names(fighters, "[ATTACKER] TARGET")

    def build(fights: Fights, name: str, state: Any) -> cmd.Attack:
        attacker, target = actor_and_target(state, fighters, "fudge attack ATTACKER TARGET")
        given = [("--ranged", ranged, "ranged"), ("--weapon", weapon, "weapon")]
        given += [("--avoid", kind, "avoid") for kind in avoid or ()]
        for flag, value, field in given:
            allowed = choices(cmd.Attack, field)
            if value is not None and value not in allowed:
                raise InputError(f"{flag} is one of {', '.join(allowed)}")
        avoids = foes_avoid(avoid or [], len(also or ()))
        places = choices(cmd.Attack, "position")
        for place in pos or ():
            if place not in places:
                raise InputError(f"--pos is one of {', '.join(places)}")
        return cmd.Attack(attacker=attacker, target=target, mod=mod, defense_mod=defense_mod,
                          min_hit=level_of(fights, name, min_hit), unaware=unaware,
                          difficulty=level_of(fights, name, difficulty),
                          reveals=fights.reveals(state, [attacker, target]),
                          stun=stun, pull=wound_level(pull) if pull is not None else None, head=head,
                          avoid=avoids[0], position=tuple(pos or ()), target_back=target_back,  # type: ignore[arg-type]  # a str checked above: the model's Literal
                          ranged=ranged, ranged_mod=ranged_mod, weapon=weapon,  # type: ignore[arg-type]  # a str checked above: the model's Literal
                          targets=tuple(also or ()), targets_avoid=avoids[1:],  # type: ignore[arg-type]  # a str checked above: the model's Literal
                          magic=parse_magic(magic),
                          targeting=targeting(fights, name, aim, aim_at, called, need_rd, otherwise, affects,
                                              speed_contest))
    run(fight, build, dice, command_id, as_json=as_json)


def foes_avoid(given: list[str], further: int) -> tuple[str | None, ...]:
    """AI-SWEEP: `--avoid` once stands for every foe struck; else one per foe, the target first."""
    if not given:
        return (None,)
    if len(given) == 1:
        return tuple(given) * (1 + further)
    if len(given) != 1 + further:
        raise InputError(f"--avoid is given once for every foe, or once per foe in order: {counted(1 + further, 'foe')} "
                         f"(the target and each --also), {len(given)} --avoid")
    return tuple(given)


@app.command()
def roll(
    combatant: Annotated[str, typer.Argument(help="Who rolls.")],
    trait: Annotated[Optional[str], typer.Argument(help="Trait to roll; omit for a situational roll [C-ACT-4]")] = None,
    vs: Annotated[Optional[str], typer.Option("--vs", metavar="LEVEL", help="Difficulty level (default Fair) [C-ACT-2]")] = None,
    opposed: Annotated[Optional[str], typer.Option("--opposed", metavar="NAME", help="Opposed by this combatant [C-ACT-3]")] = None,
    opposed_trait: Annotated[Optional[str], typer.Option(
        "--opposed-trait", metavar="TRAIT", help="The opponent's trait (default: the same).")] = None,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier.")] = 0,
    opposed_mod: Annotated[int, typer.Option("--opposed-mod", help="GM modifier to the opponent.")] = 0,
    advantage: Annotated[bool, typer.Option(
        "--advantage", help="After a won all-out defense, seek an advantage [F-MOD-7]", rich_help_panel=FUDGE)] = False,
    free: Annotated[bool, typer.Option(
        "--free", help="Not the roller's action in phase order: a reaction, a roll the GM calls", rich_help_panel=PHASES)] = False,
    median: Annotated[bool, typer.Option("--median", help="Roll three times and use the median (all three are recorded) [C-ACT-5]")] = False,
    unlisted: Annotated[bool, typer.Option(
        "--unlisted", help="Roll a trait the sheet lacks at its default, even if its name is close to one it has [C-ACT-1]")] = False,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Any other action roll: unopposed against a difficulty, or opposed.

    Under phase initiative, once `fudge next` has given a turn, a roll is the
    current actor's action for the phase; a reaction or a GM-called roll takes --free.
    """
    def build(fights: Fights, name: str, state: Any) -> cmd.RollTrait:
        if vs is not None and opposed is not None:
            raise InputError("a roll is either --vs a difficulty or --opposed by someone, not both")
        return cmd.RollTrait(combatant=combatant, trait=trait, difficulty=level_of(fights, name, vs),
                             opponent=opposed, opponent_trait=opposed_trait, mod=mod, opponent_mod=opposed_mod,
                             advantage=advantage, free=free, median=median)
    run(fight, build, dice, command_id, unlisted, as_json=as_json)


ForceOpt = Annotated[bool, typer.Option(
    "--force", help="Start the round even though a fighter who can act has not, or nobody has acted yet")]


@app.command(name="round")
def round_(
    surprised: Annotated[Optional[list[str]], typer.Option(
        "--surprised", "-s", metavar="NAME", help="This combatant is surprised (repeat) [PH-5]", rich_help_panel=PHASES)] = None,
    initiative_bonus: Annotated[Optional[list[str]], typer.Option(
        "--initiative-bonus", metavar="NAME=N", help="A surprise bonus to NAME's initiative roll (repeat) [F-INIT-2]",
        rich_help_panel=FUDGE)] = None,
    automatic: Annotated[Optional[list[str]], typer.Option(
        "--automatic", metavar="NAME", help="NAME wins initiative automatically (surprise; repeat) [F-INIT-2]",
        rich_help_panel=FUDGE)] = None,
    force: ForceOpt = False,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Start a round; roll everyone's initiative: phase dice (PH-2, CT-TABLE) or 4dF + trait (F-INIT-2, AI-INIT-2).

    Refused while a fighter who can act has not (he would lose his turn), and after a round where nobody
    has acted yet: --force starts it anyway."""
    def build(fights: Fights, name: str, state: Any) -> cmd.StartRound:
        if not force:
            check_round_over(state, "round")
        bonuses = []
        for item in initiative_bonus or ():
            who, _, value = item.partition("=")
            try:
                bonuses.append((who.strip(), int(value)))
            except ValueError:
                raise InputError(f"--initiative-bonus takes NAME=N, e.g. ann=2; got {item!r}") from None
        return cmd.StartRound(surprised=tuple(surprised or ()), initiative_bonus=tuple(bonuses),
                              automatic=tuple(automatic or ()))
    run(fight, build, dice, command_id, as_json=as_json)


def check_round_over(state: Any, typed: str) -> None:
    """A round never advances while a fighter who can act has not, nor after a round where nobody has
    (F-PACE-2, PH-1, F-INIT-2, AI-INIT-2, FT-INIT): one line naming who would lose a turn, and `--force`."""
    from fudge_combat.cli.shorthands import and_list
    from fudge_combat.engine.turns import round_begun, yet_to_act

    command = f"fudge {typed}"  # inside play, `round --force` (context.in_place)
    if not round_begun(state):
        raise InputError(f"nobody has acted in round {state.round} yet: `{command} --force` starts "
                         f"round {state.round + 1} anyway")
    waiting = yet_to_act(state)
    if waiting:
        names = and_list([who.name for who in waiting])
        verb = "has" if len(waiting) == 1 else "have"
        raise InputError(f"{names} {verb} not acted in round {state.round}: `{command} --force` starts "
                         f"round {state.round + 1} anyway, and the turns left are lost")




@app.command()
def barter(
    combatant: Annotated[str, typer.Argument(help="Whose dice.")],
    trade: Annotated[list[int], typer.Option(
        "--trade", "-t", metavar="DIE", help="Number of a die traded in (1 = first die): once for crunch, twice for classic bartering.")],
    raise_: Annotated[Optional[int], typer.Option("--raise", "-r", metavar="DIE", help="Number of the die raised one face.")] = None,
    lower: Annotated[Optional[int], typer.Option(
        "--lower", "-l", metavar="DIE", help="Number of the die lowered one face [CT-BARTER-4]")] = None,
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Barter initiative dice: crunch trades a + die to raise (or lower) another one face (CT-BARTER-1,
    CT-BARTER-2, CT-BARTER-3, CT-BARTER-4); classic trades two dice, one a +, to move a third one level
    (PC-BARTER-1, PC-BARTER-2, PC-BARTER-3)."""
    def build(fights: Fights, name: str, state: Any) -> cmd.Barter:
        if (raise_ is None) == (lower is None):
            raise InputError("give exactly one of --raise K and --lower K")
        if len(trade) > 2:
            raise InputError("a barter trades one die (crunch) or two (classic), not more")
        alter = raise_ if raise_ is not None else lower
        assert alter is not None  # one of the two, checked above
        return cmd.Barter(combatant=combatant, trade=trade[0] - 1, alter=alter - 1,
                          direction=1 if raise_ is not None else -1,
                          second_trade=trade[1] - 1 if len(trade) > 1 else None)
    run(fight, build, as_json=as_json)


@app.command(name="next")
def next_(dice: DiceOpt = None, fight: FightOpt = None, as_json: JsonOpt = False) -> None:
    """Move to the next actor in initiative order (PH-1, PH-3; F-INIT-2, AI-INIT-2); then the odds of his
    blow on each foe standing (`fudge odds --fight TARGET` weighs one). After the round's last turn, or
    before the first round, it starts the round as `fudge round` does, initiative rolled (--dice: typed).
    Fate's turns are not given by `next` (FT-INIT): it refuses, naming Fate's own commands."""
    from fudge_combat.cli.shorthands import starts_a_round

    with guard():
        fights = service()
        new_round = starts_a_round(fights.state(fight_name(fights, fight)))
    if new_round:
        return round_(dice=dice, fight=fight, as_json=as_json)
    run(fight, lambda f, n, s: cmd.NextTurn(), dice, as_json=as_json)
    if not as_json:  # --json prints one document: the odds are `fudge odds --fight`'s
        offer_odds(fight)


def offer_odds(fight: Optional[str]) -> None:
    """The exact odds of the new actor's blow on each foe still standing, as the fight now stands."""
    from fudge_combat.engine.odds.now import current_actor, odds_offered
    from fudge_combat.store.base import StoreError

    with guard():
        fights = service()
        state = fights.state(fight_name(fights, fight))
        actor = current_actor(state)
        if actor is None:
            return
        try:
            reveals = fights.reveals(state, [c.name for c in state.combatants.values() if c.key in state.sealed],
                                     ask=False)
        except StoreError:  # a seal whose secret is on another machine: weighed lines would be refused anyway
            reveals = ()
        for line in odds_offered(state, reveals):
            echo(line)


@app.command()
def order(
    names: Annotated[list[str], typer.Argument(help="Tied combatants, first to act first.")],
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The GM orders combatants tied on the determinant, for this round (PH-3)."""
    run(fight, lambda f, n, s: cmd.OrderTies(order=tuple(names)), as_json=as_json)


@app.command()
def hold(fight: FightOpt = None, as_json: JsonOpt = False) -> None:
    """The current actor holds the action until the others in the phase have acted (PH-4 open)."""
    run(fight, lambda f, n, s: cmd.HoldAction(), as_json=as_json)


@app.command()
def intend(
    combatant: Annotated[str, typer.Argument(help="Who declares.")],
    what: Annotated[Optional[str], typer.Argument(help="What the combatant will do this phase.")] = None,
    attack: Annotated[Optional[str], typer.Option("--attack", metavar="NAME", help="Declare an attack on this combatant.")] = None,
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Declare this phase's action, slowest first, under phase_declaration = "structured" (PH-4)."""
    run(fight, lambda f, n, s: cmd.DeclareIntent(combatant=combatant, what=what or "", target=attack), as_json=as_json)


@app.command()
def spend(
    combatant: Annotated[str, typer.Argument(help="Who spends the fudge point.")],
    use: Annotated[str, typer.Argument(help=f"{', '.join(choices(cmd.SpendPoint, 'use'))}: see above.")],
    roll_seq: Annotated[Optional[int], typer.Option(
        "--roll", metavar="SEQ", help="Event number of the roll or blow (default: the latest).")] = None,
    shift: Annotated[Optional[str], typer.Option("--shift", metavar="+1|-1", help="For skill: +1 or -1.")] = None,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Spend a fudge point, or a spare initiative die: the action is re-resolved and its old consequences
    voided (they stay in the log) [C-FP-2].

    panache: an unopposed action succeeds automatically [C-FP-2].

    skill: one roll's result +1 or -1 (--shift) [C-FP-2].

    luck: reroll one roll; the new faces supersede the old, which stay in the log [C-FP-2].

    scratch: "only a scratch": the wound levels of one blow are halved, never below Scratch [C-FP-2].

    ticking: "still ticking": a blow that would kill leaves the fighter at Near Death; 2 points if already
    there [C-FP-2, F-DEATH-3].

    spare: a spare initiative die left after bartering, +1 to one roll this round (option spares_as_points)
    [CT-SPARE].

    The roll or blow is the latest unless --roll names its event number (see `fudge log`); a fate point
    is `fudge fate point` [FT-PTS]."""
    def build(fights: Fights, name: str, state: Any) -> cmd.SpendPoint:
        uses = choices(cmd.SpendPoint, "use")
        if use not in uses:
            import difflib

            near = difflib.get_close_matches(use.lower(), uses, n=1, cutoff=0.6)
            meant = f": did you mean {near[0]}?" if near else ""
            raise InputError(f"unknown use {use!r}{meant} (one of: {', '.join(uses)})")
        if shift is not None and shift.strip() not in ("+1", "1", "-1"):
            raise InputError("--shift is +1 or -1")
        return cmd.SpendPoint(combatant=combatant, use=use, target=roll_seq,  # type: ignore[arg-type]  # a str checked above: the model's Literal
                              shift=int(shift) if shift is not None else None)  # type: ignore[arg-type]  # an int checked above: +1 or -1
    run(fight, build, dice, command_id, as_json=as_json)


@app.command()
def kill(
    combatant: Annotated[str, typer.Argument(help="Who dies.")],
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="Why, for the audit.")] = "",
    fight: FightOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The GM's ruling that a combatant is dead (F-WND-6 with death_rule = "gm")."""
    run(fight, lambda f, n, s: cmd.Kill(combatant=combatant, reason=reason), as_json=as_json)


@app.command()
def shoot(
    fighters: Annotated[list[str], typer.Argument(
        metavar="[SHOOTER] TARGET", show_default=False,
        help="Who shoots or throws, and at whom; TARGET alone: the actor who has the turn shoots.")],
    difficulty: Annotated[Optional[str], typer.Option(
        "--difficulty", metavar="LEVEL", help="The level needed to hit, for range, light and cover (default Fair) [F-RNG-1]")] = None,
    aware: Annotated[bool, typer.Option(
        "--aware", help="The target dodges (Dodge, else Agility); the difficulty is still the least to hit [F-RNG-2]")] = False,
    thrown: Annotated[bool, typer.Option("--thrown", help="A thrown weapon: no modifier to the dodge [F-RNG-2]")] = False,
    propelled: Annotated[bool, typer.Option(
        "--propelled", help="Bow, gun, beam: the dodge is -2 (option propelled_dodge_penalty) [F-RNG-2]")] = False,
    shoot_back: Annotated[bool, typer.Option(
        "--shoot-back", help="The target shoots back instead of dodging: both roll against a difficulty [F-RNG-3]")] = False,
    back_difficulty: Annotated[Optional[str], typer.Option(
        "--back-difficulty", metavar="LEVEL", help="The target's difficulty when shooting back (default: --difficulty) [F-RNG-3]")] = None,
    burst: Annotated[Optional[int], typer.Option(
        "--burst", help="Automatic fire: the most bullets that can hit (all of them at RD +8) [F-RNG-5]")] = None,
    burst_bonus: Annotated[Optional[int], typer.Option(
        "--burst-bonus", help="Damage bonus for the bullets on target (default +1 per doubling) [F-RNG-5]")] = None,
    skill: Annotated[Optional[str], typer.Option(
        "--skill", metavar="TRAIT", help="The shooter's skill (default: the sheet's ranged, else attack).")] = None,
    dodge: Annotated[Optional[str], typer.Option(
        "--dodge", metavar="TRAIT", help="The target's defensive trait (default Dodge, else Agility).")] = None,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the shooter (equipment such as a scope, not range).")] = 0,
    defense_mod: Annotated[int, typer.Option("--defense-mod", help="GM modifier to the target's dodge or shot.")] = 0,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A ranged attack (F-RNG): unopposed at an unaware target, dodged by an aware one, or shot back at."""
    two_names(fighters, "[SHOOTER] TARGET")

    def build(fights: Fights, name: str, state: Any) -> cmd.Shoot:
        shooter, target = actor_and_target(state, fighters, "fudge shoot SHOOTER TARGET")
        if thrown and propelled:
            raise InputError("choose one of --thrown and --propelled")
        return cmd.Shoot(shooter=shooter, target=target, difficulty=level_of(fights, name, difficulty),
                         aware=aware, weapon="thrown" if thrown else "propelled" if propelled else None,
                         shoot_back=shoot_back, back_difficulty=level_of(fights, name, back_difficulty),
                         burst=burst, burst_bonus=burst_bonus, mod=mod, defense_mod=defense_mod,
                         skill=skill, dodge=dodge)
    run(fight, build, dice, command_id, as_json=as_json)
