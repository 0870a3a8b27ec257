"""The few words an undo or a redo names a command by, for each event type Fudge declares (`events.EVENTS`,
`kernel.event_rules.Named`): "undid Snorri's attack on Brynhild, seq 12". The lifecycle's are here too."""

from __future__ import annotations

from fudge_combat.engine.kernel.initiative import PHASE_NAME
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import structs as ev


def spent(e: ev.FudgePointSpent, s: FightState) -> str:
    return f"{e.combatant}'s {ruleset_of(s).points} point ({e.use})"  # fudge points, or Fate's (FT-PTS)


def spare(e: ev.SpareDieSpent, s: FightState) -> str:
    return f"{e.combatant}'s spare die"


def exchange(e: ev.ExchangeResolved, s: FightState) -> str:
    first, second = e.sides[0].combatant, e.sides[1].combatant
    return f"{first}'s exchange with {second}" if e.kind == "exchange" else f"{first}'s attack on {second}"


def shot(e: ev.ShotResolved, s: FightState) -> str:
    return f"{e.sides[0].combatant}'s shot at {e.target}"


def melee(e: ev.MeleeResolved, s: FightState) -> str:
    return f"{e.lone.combatant}'s fight against {', '.join(f.combatant for f in e.foes)}"


def action(e: ev.ActionResolved, s: FightState) -> str:
    return f"{e.combatant}'s {e.trait} roll"


def story(e: ev.StoryRolled, s: FightState) -> str:
    return f"{e.combatant}'s {e.trait} roll for the story"


def steeled(e: ev.WillSteeled, s: FightState) -> str:
    return f"{e.combatant}'s willpower"


def killed(e: ev.CombatantKilled, s: FightState) -> str:
    return f"the GM's ruling that {e.combatant} is dead"


def condition_marked(e: ev.ConditionMarked, s: FightState) -> str:
    return f"{e.combatant}'s {e.condition}"


def condition_cleared(e: ev.ConditionCleared, s: FightState) -> str:
    return f"the end of {e.combatant}'s {e.condition}"


def left(e: ev.CombatantLeft, s: FightState) -> str:
    return f"{e.combatant} leaving the fight ({e.how})"


def wound(e: ev.WoundMarked, s: FightState) -> str:
    return f"the wound to {e.combatant}"


def stun(e: ev.StunMarked, s: FightState) -> str:
    return f"the stun to {e.combatant}"


def battle_ended(e: ev.BattleEnded, s: FightState) -> str:
    return "the end of the battle"


def healed(e: ev.WoundsHealed, s: FightState) -> str:
    return f"{e.combatant}'s healing"


def declared(e: ev.Declared, s: FightState) -> str:
    return f"{e.combatant}'s declaration"


def sealed(e: ev.DeclarationSealed, s: FightState) -> str:
    return f"{e.combatant}'s sealed declaration"


def intent(e: ev.IntentDeclared, s: FightState) -> str:
    return f"{e.combatant}'s declaration in phase {PHASE_NAME[e.phase]}"


def round_started(e: ev.RoundStarted, s: FightState) -> str:
    return f"the start of round {e.round}"


def ties(e: ev.TiesOrdered, s: FightState) -> str:
    return "the GM's order of ties"


def turn(e: ev.TurnTaken, s: FightState) -> str:
    return f"{e.combatant}'s turn"


def barter(e: ev.DieBartered | ev.DieTraded, s: FightState) -> str:
    return f"{e.combatant}'s barter"


def held(e: ev.ActionHeld, s: FightState) -> str:
    return f"{e.combatant}'s held action"


def joined(e: ev.CombatantJoined, s: FightState) -> str:
    return f"{e.combatant} joining"


def undo(e: ev.CommandUndone, s: FightState) -> str:
    return "an undo"


def redo(e: ev.CommandRedone, s: FightState) -> str:
    return "a redo"
