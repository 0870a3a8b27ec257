"""After the blows: end the battle, rest, heal (F-HEAL, F-STUN-1)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from fudge_combat.cli.outcome import JsonOpt
from fudge_combat.cli.table import CommandIdOpt, DiceOpt, FightOpt, level_of, run, wound_level
from fudge_combat.engine import commands as cmd
from fudge_combat.service.fights import Fights

app = typer.Typer()


@app.command(name="end")
def end_battle(fight: FightOpt = None, command_id: CommandIdOpt = None, as_json: JsonOpt = False) -> None:
    """End the battle: Scratches are erased (F-HEAL-1), stun marks and knockouts clear (F-STUN-1); then the
    summary: who stands, who is out and how, the rounds fought, the points spent (with --json, its `summary`)."""
    ending(fight, lambda f, n, s: cmd.EndBattle(), command_id, as_json)


def ending(fight: Optional[str], build: Any, command_id: Optional[str], as_json: bool) -> None:
    """Run the command that ends the battle (Fate: the scene), then print the summary of the fight as it stood
    before (projections.summary; the end clears knockouts, and a fighter knocked out was out of the battle).
    With `as_json`, the summary is the JSON's `summary`."""
    from fudge_combat.cli.context import echo, fight_name, guard, service
    from fudge_combat.engine.kernel.history import effective
    from fudge_combat.projections.summary import summary, summary_lines

    if as_json:
        run(fight, build, None, command_id, as_json=True,
            extra=lambda fights, name, before: {"summary": summary(before, effective(fights.log(name))).as_json()})
        return

    with guard():
        fights = service()
        name = fight_name(fights, fight)
        before = fights.state(name)
    run(fight, build, None, command_id)
    with guard():
        for line in summary_lines(before, effective(fights.log(name))):
            echo(line)


@app.command()
def wound(
    combatant: Annotated[str, typer.Argument(help="Who is wounded.")],
    level: Annotated[str, typer.Argument(help="Scratch, Hurt, Very Hurt, Incapacitated or Near Death.")],
    reason: Annotated[str, typer.Option(
        "--reason", metavar="TEXT", help="What did it: a fall, fire, a trap (kept in the log).")] = "",
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The GM's ruling: a wound from outside the blows, marked as a blow's wound is (F-WND-3)."""
    run(fight, lambda f, n, s: cmd.GmWound(combatant=combatant, level=wound_level(level), reason=reason),
        dice, command_id, as_json=as_json)


@app.command()
def rest(
    combatants: Annotated[Optional[list[str]], typer.Argument(help="Who rests (default: everyone alive).")] = None,
    weeks: Annotated[int, typer.Option("--weeks", min=0, max=52,
                                       help="Weeks of rest, one wound level each (0: a short rest) [F-HEAL-3]")] = 0,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Rest: Scratches are erased (F-HEAL-1); each week heals every wound one level (F-HEAL-3)."""
    run(fight, lambda f, n, s: cmd.Rest(combatants=tuple(combatants or ()), weeks=weeks), dice, command_id, as_json=as_json)


@app.command()
def heal(
    patient: Annotated[str, typer.Argument(help="Who is healed.")],
    by: Annotated[Optional[str], typer.Option(
        "--by", metavar="NAME", help="The combatant who rolls the healing skill.")] = None,
    level: Annotated[Optional[str], typer.Option(
        "--level", metavar="LEVEL", help="Or: the healer's skill level (a healer not in the fight).")] = None,
    skill: Annotated[Optional[str], typer.Option(
        "--skill", metavar="TRAIT", help="Healing skill (default: the healing_skill option).")] = None,
    mod: Annotated[int, typer.Option("--mod", help="GM modifier to the healing roll.")] = 0,
    dice: DiceOpt = None,
    fight: FightOpt = None,
    command_id: CommandIdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A healing skill roll (F-HEAL-2): Good heals every wound one level, Great two, Superb three."""
    def build(fights: Fights, name: str, state: Any) -> cmd.Heal:
        return cmd.Heal(patient=patient, healer=by, skill_level=level_of(fights, name, level), skill=skill, mod=mod)
    run(fight, build, dice, command_id, as_json=as_json)
