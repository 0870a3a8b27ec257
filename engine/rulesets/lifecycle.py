"""The commands every ruleset shares: a fight's start and branches, its committed and revealed seeds
(A-FAIR-1), who joins it, and a GM's kill."""

from __future__ import annotations

import hashlib
from typing import Any

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.commands import ByCommand
from fudge_combat.engine.dice import Dice
from fudge_combat.engine.errors import RuleError
from fudge_combat.engine.rulesets.decider import Handler
from fudge_combat.engine.sheets import Sheet, read_levels
from fudge_combat.engine.sides import combatant
from fudge_combat.events import models as ev
from fudge_combat.engine.state import FightState


def start(state: FightState, c: cmd.StartFight, dice: Dice) -> list[ev.Event]:
    if state.name:
        raise RuleError(f"fight {state.name} has already started")
    return [ev.FightStarted(name=c.name, rules=c.rules, options=c.options,
                            seed_commitment=c.seed_commitment, stream=c.stream)]


def branch(state: FightState, c: cmd.StartBranch, dice: Dice) -> list[ev.Event]:
    return [ev.BranchStarted(name=c.name, parent=c.parent, fork_seq=c.fork_seq,
                             seed_commitment=c.seed_commitment, stream=c.stream)]


def commit(state: FightState, c: cmd.CommitSeed, dice: Dice) -> list[ev.Event]:
    return [ev.SeedCommitted(seed_commitment=c.seed_commitment, stream=c.stream, reason=c.reason)]


def reveal_seed(state: FightState, c: cmd.RevealSeed, dice: Dice) -> list[ev.Event]:
    out: list[Any] = []
    for commitment, seed in c.seeds:
        if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
            raise RuleError("a revealed seed does not match its commitment (A-FAIR-1)")
        if commitment not in state.revealed:
            out.append(ev.SeedRevealed(seed_commitment=commitment, seed=seed))
    out.append(ev.SeedCommitted(seed_commitment=c.next_commitment, stream=c.next_stream,
                                reason="the previous seed was revealed"))
    return out


def join(state: FightState, c: cmd.Join, dice: Dice) -> list[ev.Event]:
    sheet = Sheet.model_validate(c.sheet)
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
    return [ev.CombatantJoined(combatant=name, side=side, sheet=sheet.model_dump(mode="json"), source=c.source)]


def kill(state: FightState, c: cmd.Kill, dice: Dice) -> list[ev.Event]:
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
})
