"""`fudge odds`: exact probabilities of one action or a whole duel between two sheets (no store needed).

The engine is imported when the command runs, so `fudge` starts as fast without it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import msgspec
import typer

from msgspec.structs import replace as with_fields

from fudge_combat.events.records import json_form
from fudge_combat.cli.context import echo, echo_json, fight_name, guard, house_rules, read_file, service
from fudge_combat.cli.terminal import safe
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.reading import ruleset_named

if TYPE_CHECKING:
    from fudge_combat.engine.odds import duel as odds
    from fudge_combat.events import structs as ev

app = typer.Typer()

EIGHTHS = " ▏▎▍▌▋▊▉"
BAR_WIDTH = 40  # characters for 100%
LONGEST_FRACTION = 21  # longer exact fractions are left to --json


def bar(chance: Fraction, width: int = BAR_WIDTH) -> str:
    """A bar of unicode blocks, `width` characters for certainty, in eighths of a character."""
    eighths = round(chance * width * 8)
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def common_fractions(chances: list[Fraction], over: int = 1) -> list[str]:
    """Each chance over one common denominator (the least multiple of `over` that fits them all), as dice
    tools print them: 4dF against 4dF reads n/6561, not each fraction reduced on its own."""
    denominator = math.lcm(over, *(p.denominator for p in chances))
    return [f"{p.numerator * (denominator // p.denominator)}/{denominator}" for p in chances]


def chances_json(items: list[tuple[str, Fraction]], key: str, over: int = 1) -> list[dict[str, Any]]:
    return [{key: label, "fraction": text, "probability": float(p)}
            for (label, p), text in zip(items, common_fractions([p for _, p in items], over))]


def rows(items: list[tuple[str, Fraction]], over: int = 1) -> list[str]:
    """One line per item: label, exact fraction, percentage, bar. Fractions too long to read are left to --json."""
    width = max((len(label) for label, _ in items), default=0)
    texts = common_fractions([p for _, p in items], over)
    if any(len(t) > LONGEST_FRACTION for t in texts):
        return [f"  {label:<{width}}  {float(p) * 100:7.3f}%  {bar(p)}" for label, p in items]
    fraction_width = max((len(t) for t in texts), default=0)
    return [f"  {label:<{width}}  {text:>{fraction_width}}  {float(p) * 100:7.3f}%  {bar(p)}"
            for (label, p), text in zip(items, texts)]


def parse_mods(text: Optional[str]) -> tuple[int, int]:
    if text is None:
        return (0, 0)
    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        return (int(parts[0]), int(parts[1]))
    except ValueError:
        raise InputError(f"--mods takes the two fighters' GM modifiers as A,B (e.g. +1,0), not {text!r}") from None


def parse_declarations(all_out: list[str], postures: list[str], names: list[str]) -> dict[str, ev.Declaration]:
    from fudge_combat.events import structs as ev
    out: dict[str, ev.Declaration] = {}
    known = {n.lower(): n for n in names}

    def who(value: str, option: str) -> tuple[str, str]:
        if "=" not in value:
            raise InputError(f"{option} takes NAME=VALUE, not {value!r}")
        name, what = (part.strip() for part in value.split("=", 1))
        if name.lower() not in known:
            raise InputError(f"{option} {value}: {name!r} is not one of {', '.join(names)}")
        return known[name.lower()], what

    for value in all_out:
        name, what = who(value, "--all-out")
        if what not in ("offense", "defense"):
            raise InputError(f"--all-out {value}: all-out is offense or defense")
        out[name] = with_fields(out.get(name, ev.Declaration()), all_out=what)
    for value in postures:
        name, what = who(value, "--posture")
        try:
            posture = int(what)
        except ValueError:
            raise InputError(f"--posture {value}: a posture is -2, -1, 0, +1 or +2") from None
        out[name] = with_fields(out.get(name, ev.Declaration()), posture=posture)
    return out


@app.command("odds")
def odds_command(
    names: Annotated[list[str], typer.Argument(
        metavar="FIRST SECOND | [FIGHT] [ATTACKER] TARGET",
        help="Two sheets (TOML; under turns the first attacks), or with --fight the target, after the "
             "attacker (default: the one with the turn) and the fight (default: the current one).")],
    in_fight: Annotated[bool, typer.Option("--fight", help="The odds of the next action in a running fight, with "
                                                           "wounds, declarations and options as they stand.")] = False,
    rules: Annotated[Optional[str], typer.Option("--rules", "-r", metavar="PRESET", help="Preset: see `fudge rules`.")] = None,
    house: Annotated[Optional[Path], typer.Option("--house", help="House-rules TOML: extends a preset, overrides options.")] = None,
    duel: Annotated[bool, typer.Option("--duel", help="The whole duel (simultaneous rounds until one cannot act), "
                                                      "not one action.")] = False,
    mods: Annotated[Optional[str], typer.Option("--mods", metavar="A,B", help="GM modifiers of the two fighters, A,B (e.g. +1,0); "
                                                              "under turns the attack and the defense.")] = None,
    all_out: Annotated[Optional[list[str]], typer.Option(
        "--all-out", metavar="NAME=SIDE", help="NAME=offense or NAME=defense, repeatable [F-MOD-6, F-MOD-7]")] = None,
    posture: Annotated[Optional[list[str]], typer.Option(
        "--posture", metavar="NAME=N", help="-2..+2, under tactics = \"postures\", repeatable [F-TAC-1]")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output, exact fractions as \"n/d\".")] = False,
) -> None:
    """Exact odds from the dice: one action or a duel between two sheets, or the next action of a fight.

    One action is one `fudge exchange` under simultaneous pace (the `fudge` preset), one Fate
    exchange with each acting against the other (`fate`), or one `fudge attack` by the first
    sheet on the second under turns (`fudge-phases`, `atari-isev`): the probability of a
    stand-off, of each graze and hit and of each wound level for each side, as fractions and
    percentages. `--duel` (simultaneous pace or Fate's exchanges) weighs a whole fight, both
    keeping their declarations, until one cannot act: who wins, how it ends, and the expected
    number of rounds. `fudge odds --fight Brynhild` weighs the next action of whoever has the
    turn on Brynhild, in the fight as it stands: `Snorri hits Brynhild 58.4% (Hurt or worse
    31.2%, out 4.1%)`; a blow by someone else is weighed as if made now, marked "[out of turn]".
    Nothing is sampled and nothing is written.
    """
    with guard():
        if in_fight:
            given = [("--rules", rules), ("--house", house), ("--duel", duel or None), ("--mods", mods),
                     ("--all-out", all_out), ("--posture", posture)]
            extra = [flag for flag, value in given if value]
            if extra:
                raise InputError(f"{extra[0]} is for odds between sheets: with --fight the fight's own rules, "
                                 "declarations and wounds count")
            fight_odds(names, as_json)
            return
        if len(names) != 2:
            raise InputError(f"odds between sheets takes two sheets, FIRST SECOND (got {len(names)}); "
                             "or --fight [FIGHT] [ATTACKER] TARGET in a running fight")
        sheet_odds(Path(names[0]), Path(names[1]), rules or "fudge", house, duel, mods, all_out, posture, as_json)


def sheet_odds(first: Path, second: Path, rules: str, house: Optional[Path], duel: bool, mods: Optional[str],
               all_out: Optional[list[str]], posture: Optional[list[str]], as_json: bool) -> None:
    from fudge_combat.engine.odds import duel as odds
    from fudge_combat.engine.kernel.sheets import parse_sheet

    rules_name, options = house_rules(rules, house)
    sheets = [(json_form(parse_sheet(read_file(p, "sheet"), str(p))), p.name) for p in (first, second)]
    state, names = odds.setup(rules_name, options, sheets)
    match = odds.Match(names[0], names[1], parse_declarations(all_out or [], posture or [], names),
                       parse_mods(mods))
    if duel:
        result = odds.duel(state, match)
        if as_json:
            echo_json(duel_json(rules_name, result), indent=2)
        else:
            echo(duel_text(rules_name, result), lines=True)
    else:
        action = odds.single_action(state, match)
        if as_json:
            echo_json(action_json(rules_name, action), indent=2)
        else:
            echo(action_text(rules_name, action), lines=True)


def fight_odds(names: list[str], as_json: bool) -> None:
    """`--fight [FIGHT] [ATTACKER] TARGET`: two names are the attacker and the target when the first is a
    combatant of the current fight, else the fight and the target."""
    from fudge_combat.engine.odds.now import current_actor, odds_now
    from fudge_combat.service.names import find, resolve
    from fudge_combat.store.base import StoreError

    if not 1 <= len(names) <= 3:
        raise InputError(f"--fight takes [FIGHT] [ATTACKER] TARGET, not {len(names)} names")
    fights = service()
    fight = names[0] if len(names) == 3 else None
    attacker = names[-2] if len(names) >= 2 else None
    if len(names) == 2 and names[0] in {info.name for info in fights.store.fights()}:
        try:
            current = fights.state(fights.current())
        except StoreError:
            current = None
        if current is None or find(current, names[0]) is None:
            fight, attacker = names[0], None
    name = fight_name(fights, fight)
    state = fights.state(name)
    target = resolve(state, names[-1])  # names as every command reads them: any case, a unique prefix
    attacker = resolve(state, attacker) if attacker is not None else None
    actor = state.find(attacker) if attacker is not None else current_actor(state)
    reveals = fights.reveals(state, [who.name for who in (actor, state.find(target)) if who is not None], ask=False)
    result = odds_now(state, attacker, target, reveals)
    if as_json:
        echo_json(now_json(name, result), indent=2)
    else:
        echo(safe(result.line()))


def now_json(fight: str, result: Any) -> dict[str, Any]:
    def chance(p: Fraction) -> dict[str, Any]:
        return {"fraction": f"{p.numerator}/{p.denominator}", "probability": float(p)}
    return {"fight": fight, "kind": result.kind, "in_turn": result.in_turn, "line": result.line(),
            "chances": [{"attacker": c.attacker, "target": c.target, "lands": chance(c.lands),
                         "hurt_or_worse": chance(c.serious), "out": chance(c.out)} for c in result.chances]}


def denominator(result: odds.Odds) -> int:
    """The outcomes' common denominator: every other figure of the action is a sum of outcomes."""
    return math.lcm(*(p.denominator for _, p in result.outcomes))


def action_text(rules: str, result: odds.Odds) -> str:
    a, b = result.fighters
    over = denominator(result)
    what = "one exchange" if result.kind == "exchange" else f"one attack by {a}"
    lines = [f"{a} vs {b}, {what} under {rules} (exact, every roll of the dice)", "", "outcomes"]
    lines += rows(list(result.outcomes), over)
    for name, levels in result.wounds:
        if result.kind == "attack" and name == a:
            continue  # a directed attack never wounds its attacker (--json still lists it)
        lines += ["", f"wound level {name} takes"] + rows(list(levels), over)
    landed = ruleset_named(result.ruleset).landed
    lines += ["", landed] + rows(list(result.hits), over)
    if result.grazes:
        lines += ["", "grazes (RD +1)"] + rows(list(result.grazes), over)
    return "\n".join(safe(line) for line in lines)


def action_json(rules: str, result: odds.Odds) -> dict[str, Any]:
    over = denominator(result)
    return {
        "rules": rules, "kind": result.kind, "fighters": list(result.fighters),
        "outcomes": chances_json(list(result.outcomes), "outcome", over),
        "wounds": {name: chances_json(list(levels), "level", over) for name, levels in result.wounds},
        "hits": {item.pop("fighter"): item for item in chances_json(list(result.hits), "fighter", over)},
        "grazes": {item.pop("fighter"): item for item in chances_json(list(result.grazes), "fighter", over)},
    }


def duel_text(rules: str, result: odds.DuelOdds) -> str:
    a, b = result.fighters
    lines = [f"{a} vs {b}, a whole duel under {rules}: simultaneous exchanges until one cannot act",
             f"(exact, a Markov chain over {result.states} states of both wound tracks; fractions: --json)", "",
             "who is left standing"]
    lines += rows([(name if name != "neither" else "neither (both fall)", p) for name, p in result.winners])
    lines += ["", f"expected rounds: {float(result.expected_rounds):.3f}", "", f"how it ends ({a}, {b})"]
    lines += rows([(f"{la}, {lb}", p) for (la, lb), p in result.finals])
    return "\n".join(safe(line) for line in lines)


def duel_json(rules: str, result: odds.DuelOdds) -> dict[str, Any]:
    a, b = result.fighters
    finals = chances_json([(f"{la}, {lb}", p) for (la, lb), p in result.finals], "ending")
    for item, ((la, lb), _) in zip(finals, result.finals):
        item["levels"] = {a: la, b: lb}
    rounds = result.expected_rounds
    return {
        "rules": rules, "kind": "duel", "fighters": [a, b],
        "winners": chances_json(list(result.winners), "winner"),
        "expected_rounds": {"fraction": f"{rounds.numerator}/{rounds.denominator}", "value": float(rounds)},
        "finals": finals,
        "states": result.states,
    }
