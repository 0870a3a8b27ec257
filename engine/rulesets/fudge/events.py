"""The event types Fudge adds to the log, each declared once: how it changes the fight (`evolve`) and how it
reads (`describe`). The lifecycle's events (a fight's start, branches, seeds, joins, undo and redo) are here
too: every ruleset composes Fudge's lifecycle. Atari Isev adds none; Fate declares its own beside these. So is
the one stored type of the events a ruleset of another package adds (`ruleset_event`): it folds and reads by
its kind's declaration in that package (`kernel.ruleset_events`).
"""

from __future__ import annotations

from fudge_combat.engine.kernel.event_rules import EventRule, EventRules
from fudge_combat.engine.kernel.ruleset_events import ADDED
from fudge_combat.engine.rulesets.fudge import conditions, describe, evolve
from fudge_combat.events import models as ev

EVENTS: EventRules = {
    ev.FightStarted: EventRule(evolve._fight_started, describe._fight_started),
    ev.BranchStarted: EventRule(evolve._branch_started, describe._branch_started),
    ev.SeedCommitted: EventRule(evolve._seed_committed, describe._seed_committed),
    ev.SeedRevealed: EventRule(evolve._seed_revealed, describe._seed_revealed),
    ev.CombatantJoined: EventRule(evolve._joined, describe._joined),
    ev.RoundStarted: EventRule(evolve._round_started, describe._round_started),
    ev.Declared: EventRule(evolve._declared, describe._declared),
    ev.DeclarationSealed: EventRule(evolve._sealed, describe._sealed),
    ev.DeclarationRevealed: EventRule(evolve._revealed, describe._revealed),
    ev.DiceRolled: EventRule(evolve._dice_rolled, describe._dice_rolled),
    ev.ActionResolved: EventRule(evolve._action_resolved, describe._action_resolved),
    ev.ExchangeResolved: EventRule(evolve._exchange_resolved, describe._exchange_resolved),
    ev.WoundMarked: EventRule(evolve._wound_marked, describe._wound_marked),
    ev.CombatantKilled: EventRule(evolve._killed, describe._killed),
    ev.AdvantageGained: EventRule(evolve._advantage, describe._advantage),
    ev.InitiativeRolled: EventRule(evolve._initiative_rolled, describe._initiative_rolled),
    ev.DieBartered: EventRule(evolve._bartered, describe._bartered),
    ev.TurnTaken: EventRule(evolve._turn, describe._turn),
    ev.FudgePointSpent: EventRule(evolve._spent, describe._spent),
    ev.EventsVoided: EventRule(evolve._ignore, describe._voided),
    ev.CommandUndone: EventRule(evolve._ignore, describe._undone),
    ev.CommandRedone: EventRule(evolve._ignore, describe._redone),
    ev.DieTraded: EventRule(evolve._die_traded, describe._die_traded),
    ev.DieAltered: EventRule(evolve._die_altered, describe._die_altered),
    ev.TiesOrdered: EventRule(evolve._ties_ordered, describe._ties_ordered),
    ev.IntentDeclared: EventRule(evolve._intent, describe._intent),
    ev.TurnUsed: EventRule(evolve._turn_used, describe._turn_used),
    ev.SpareDieSpent: EventRule(evolve._spare_spent, describe._spare_spent),
    ev.ShotResolved: EventRule(evolve._shot_resolved, describe._shot_resolved),
    ev.ActionHeld: EventRule(evolve._held, describe._held),
    ev.WoundsHealed: EventRule(evolve._healed, describe._healed),
    ev.StunMarked: EventRule(evolve._stun_marked, describe._stun_marked),
    ev.BattleEnded: EventRule(evolve._battle_ended, describe._battle_ended),
    ev.InitiativeRanked: EventRule(evolve._ranked, describe._ranked),
    ev.WillSteeled: EventRule(evolve._steeled, describe._steeled),
    ev.MeleeResolved: EventRule(evolve._melee_resolved, describe._melee_resolved),
    ev.StoryRolled: EventRule(evolve._story_rolled, describe._story_rolled),
    ev.LocationWounded: EventRule(evolve._location_wounded, describe._location_wounded),
    ev.ConditionMarked: EventRule(conditions._marked, conditions._describe_marked),
    ev.ConditionCleared: EventRule(conditions._cleared, conditions._describe_cleared),
    ev.CombatantLeft: EventRule(evolve._left, conditions._describe_left),
    ev.RulesetEvent: ADDED,
}
