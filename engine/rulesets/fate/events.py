"""The event types Fate adds to the log, each declared once: how it changes the fight (`evolve`) and how it
reads (`describe`). Its blows, points and turns are recorded with these; the lifecycle's events are Fudge's.
"""

from __future__ import annotations

from fudge_combat.engine.kernel.event_rules import EventRule, EventRules
from fudge_combat.engine.rulesets.fate import describe, evolve
from fudge_combat.events import models as ev

EVENTS: EventRules = {
    ev.FateResolved: EventRule(evolve._fate_resolved, describe._resolved),
    ev.FateBoxMarked: EventRule(evolve._fate_box, describe._box),
    ev.AspectChecked: EventRule(evolve._aspect_checked, describe._aspect),
    ev.FateTurnOrder: EventRule(evolve._fate_order, describe._order),
    ev.FateSceneEnded: EventRule(evolve._fate_scene_ended, describe._scene_ended),
    ev.FateTurnPassed: EventRule(evolve._fate_passed, describe._passed),
    ev.InjuryRecovered: EventRule(evolve._injury_recovered, describe._recovered),
}
