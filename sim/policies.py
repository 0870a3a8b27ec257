"""What autopilot combatants do in a simulated fight: small pure functions of the projected state.

A policy answers four questions about one combatant, each a pure function of
the `FightState` the events built (no I/O, no randomness: every die still
comes from the fight's seeded dice through `decide`):

- `target`: whom to attack of the foes the driver offers (None: do nothing this turn);
- `declaration`: what to declare for the coming blow or round (None: nothing);
- `barters`: which initiative dice to barter after the roll (phase initiative);
- `save`: a point to spend on the blow just taken (the event that marked it and
  its seq; None: take it).

The answers are commands, the same ones a GM types; the driver in
`sim.runner` executes them through `decide` like any other command, so a
policy can never break a rule: a command the rules refuse is simply not
taken. A new policy is a `Policy(...)` in `POLICIES`; how a ruleset's points
save a fighter, and how its fighters are taken out, are its package's (its `sim`
module, `kernel.sim_rules`); a tactics option whose defenses work differently
adds one function to `DEFENSES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec import Struct

from fudge_combat.engine import commands as cmd
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.sim.rulesets import badly_hurt, reading, view_of

Target = Callable[[FightState, Combatant, "list[Combatant]"], "Combatant | None"]
Declare = Callable[[FightState, Combatant], "ev.Declaration | None"]
Barters = Callable[[FightState, Combatant], "tuple[cmd.Barter, ...]"]
Save = Callable[[FightState, Combatant, Any, int], "cmd.SpendPoint | None"]  # the blow's event and seq


class Policy(Struct, frozen=True):
    name: str
    summary: str
    target: Target
    declaration: Declare
    barters: Barters
    save: Save


def foes(state: FightState, who: Combatant) -> list[Combatant]:
    """Foes who can still fight, in join order."""
    read, side = reading(state), who.side
    return sorted((c for key, c in state.combatants.items() if c.side != side and read[key][0]), key=_joined_seq)


def _joined_seq(who: Combatant) -> int:
    return who.joined_seq


def worst_wounded_foe(state: FightState, who: Combatant, candidates: list[Combatant]) -> Combatant | None:
    """Of the foes that may be attacked now, the one with the worst wound (ties: the first to join)."""
    if not candidates:
        return None
    read = reading(state)
    return max(candidates, key=lambda c: (read[c.key][1], -c.joined_seq))


def no_declaration(state: FightState, who: Combatant) -> ev.Declaration | None:
    return None


def no_barters(state: FightState, who: Combatant) -> tuple[cmd.Barter, ...]:
    return ()


def no_save(state: FightState, who: Combatant, blow: Any, seq: int) -> cmd.SpendPoint | None:
    return None


# --- sensible: defend when badly hurt, barter for ++, spend points to stay in the fight --------------

def all_out_defense(state: FightState, who: Combatant) -> ev.Declaration:
    return ev.Declaration(all_out="defense")


def defensive_posture(state: FightState, who: Combatant) -> ev.Declaration:
    return ev.Declaration(posture=-2)  # F-TAC-1: the most defensive posture


# tactics option -> the declaration of a fighter who wants to defend
DEFENSES: dict[str, Declare] = {"all_out": all_out_defense, "postures": defensive_posture}
# tactics option -> the declaration of a fighter who throws caution away (F-MOD-6, F-TAC-1)
OFFENSES: dict[str, Callable[[FightState, Combatant], ev.Declaration]] = {"all_out": lambda state, who: ev.Declaration(all_out="offense"),
                                "postures": lambda state, who: ev.Declaration(posture=2)}


def reckless_declaration(state: FightState, who: Combatant) -> ev.Declaration:
    return OFFENSES[state.options.tactics](state, who)


def sensible_declaration(state: FightState, who: Combatant) -> ev.Declaration | None:
    """Defend all-out (or in the most defensive posture) when badly hurt, while a friend still fights.

    A reading: an all-out defender deals no damage (F-MOD-7) and, in turns,
    forfeits his attack (F-MOD-8), so alone against the foe defending only
    postpones the end; a lone fighter keeps attacking.
    """
    if not badly_hurt(state, who):
        return None
    read = reading(state)
    friends = [c for c in state.combatants.values() if c.side == who.side and c.key != who.key and read[c.key][0]]
    if not friends:
        return None
    return DEFENSES[state.options.tactics](state, who)


def barter_for_double_plus(state: FightState, who: Combatant) -> tuple[cmd.Barter, ...]:
    """CT-BARTER-1: with two or more `+` dice and no `++`, trade one `+` to raise another to `++`.

    Duplicate faces do not act (unless `duplicates_act`), so the traded `+`
    costs nothing while another `+` remains, and the raised die acts first.
    """
    initiative = state.initiative.get(who.key)
    if initiative is None or state.options.bartering != "crunch":
        return ()
    live = [(i, d) for i, d in enumerate(initiative.dice) if d.live]
    if any(d.face == 2 for _, d in live):
        return ()
    plus = [i for i, d in live if d.face == 1 and not d.fixed]
    tradeable = [i for i in plus if not initiative.dice[i].locked]
    if len(plus) < 2 or not tradeable or (state.options.duplicates_act and len(plus) < 3):
        return ()
    trade = tradeable[0]
    alter = next(i for i in plus if i != trade)
    return (cmd.Barter(combatant=who.name, trade=trade, alter=alter, direction=1),)


def sensible_save(state: FightState, who: Combatant, blow: Any, seq: int) -> cmd.SpendPoint | None:
    """How the fight's ruleset spends a point to keep a fighter in the fight (its `sim` module's `save`)."""
    spend: cmd.SpendPoint | None = view_of(state).save(state, who, blow, seq)
    return spend


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("plain", "attack the foe with the worst wound, normal posture, no points spent",
               worst_wounded_foe, no_declaration, no_barters, no_save),
        Policy("sensible", "as plain, but spend points to stay in the fight, defend all-out when badly hurt "
                           "and barter initiative dice for ++",
               worst_wounded_foe, sensible_declaration, barter_for_double_plus, sensible_save),
        Policy("reckless", "as plain, but every blow all-out offense (or the most aggressive posture)",
               worst_wounded_foe, reckless_declaration, no_barters, no_save),
    )
}

