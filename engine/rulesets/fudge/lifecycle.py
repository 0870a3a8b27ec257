"""The commands every ruleset shares: a fight's start and branches, its committed and revealed seeds
(A-FAIR-1), who joins it, a GM's kill, the conditions the GM marks and who leaves the fight."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING


from fudge_combat.events.records import json_form
from fudge_combat.engine.kernel.commands import ByCommand
from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.decider import Handler
from fudge_combat.engine.kernel.sheets import given_sheet, read_levels
from fudge_combat.engine.rulesets.fudge import conditions
from fudge_combat.engine.rulesets.fudge.sides import combatant
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import FightState

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.command_structs import CommitSeed, Join, RevealSeed, StartBranch, StartFight
    from fudge_combat.engine.rulesets.fudge.command_structs import Kill


def start(state: FightState, c: StartFight, dice: Dice) -> list[ev.Event]:
    if state.name:
        raise RuleError(f"fight {state.name} has already started")
    return [ev.FightStarted(name=c.name, rules=c.rules, options=c.options,
                            seed_commitment=c.seed_commitment, stream=c.stream)]


def branch(state: FightState, c: StartBranch, dice: Dice) -> list[ev.Event]:
    return [ev.BranchStarted(name=c.name, parent=c.parent, fork_seq=c.fork_seq,
                             seed_commitment=c.seed_commitment, stream=c.stream)]


def commit(state: FightState, c: CommitSeed, dice: Dice) -> list[ev.Event]:
    return [ev.SeedCommitted(seed_commitment=c.seed_commitment, stream=c.stream, reason=c.reason)]


def reveal_seed(state: FightState, c: RevealSeed, dice: Dice) -> list[ev.Event]:
    out: list[ev.Event] = []
    for commitment, seed in c.seeds:
        if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
            raise RuleError("a revealed seed does not match its commitment (A-FAIR-1)")
        if commitment not in state.revealed:
            out.append(ev.SeedRevealed(seed_commitment=commitment, seed=seed))
    out.append(ev.SeedCommitted(seed_commitment=c.next_commitment, stream=c.next_stream,
                                reason="the previous seed was revealed"))
    return out


def join(state: FightState, c: Join, dice: Dice) -> list[ev.Event]:
    sheet = given_sheet(c.sheet)
    name = c.name or sheet.name
    if "=" in name or not name.strip():
        raise RuleError(f"{name!r} cannot be a combatant's name")
    if state.find(name):
        raise RuleError(f"{name} has already joined {state.name}; join again with --as ANOTHER-NAME")
    fighter = read_levels(sheet, state.ladder, c.source, state.options.plus_levels)
    for role in ("attack", "defend"):
        trait = getattr(sheet.combat, role, None) if sheet.combat else None
        if trait:
            fighter.trait(trait, state.options)
    side = c.side or sheet.side or name
    return [ev.CombatantJoined(combatant=name, side=side, sheet=json_form(sheet), source=c.source)]


def kill(state: FightState, c: Kill, dice: Dice) -> list[ev.Event]:
    who = combatant(state, c.combatant)
    if who.track.dead:
        raise RuleError(f"{who.name} is already dead")
    return [ev.CombatantKilled(combatant=who.name, reason=c.reason)]


TABLE: ByCommand[Handler] = ByCommand({
    "StartFight": start,
    "StartBranch": branch,
    "CommitSeed": commit,
    "RevealSeed": reveal_seed,
    "Join": join,
    "Kill": kill,
    "MarkCondition": conditions.mark,
    "ClearCondition": conditions.clear,
    "Leave": conditions.leave,
})
