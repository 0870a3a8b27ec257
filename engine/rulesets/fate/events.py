"""The event types Fate adds to the log, each declared once: how it changes the fight (`evolve`), how it
reads (`describe`) and the words an undo names its command by (`summaries`), or why it has none. Its blows, points and turns are recorded with these; the lifecycle's events are Fudge's.
"""

from __future__ import annotations

from fudge_combat.engine.kernel.event_rules import EventRule, EventRules, Named
from fudge_combat.engine.rulesets.fate import describe, evolve
from fudge_combat.engine.rulesets.fate import summaries as words
from fudge_combat.events import structs as ev

EVENTS: EventRules = {
    ev.FateResolved: EventRule(evolve._fate_resolved, describe._resolved,
                              Named(80, words.resolved)),
    ev.FateBoxMarked: EventRule(evolve._fate_box, describe._box,
                               "marked by the FateResolved beside it, which names the command"),
    ev.AspectChecked: EventRule(evolve._aspect_checked, describe._aspect,
                               Named(20, words.aspect)),
    ev.FateTurnOrder: EventRule(evolve._fate_order, describe._order,
                               Named(220, words.order)),
    ev.FateSceneEnded: EventRule(evolve._fate_scene_ended, describe._scene_ended,
                                Named(190, words.scene_ended)),
    ev.FateTurnPassed: EventRule(evolve._fate_passed, describe._passed,
                                Named(230, words.passed)),
    ev.InjuryRecovered: EventRule(evolve._injury_recovered, describe._recovered,
                                 Named(210, words.recovered)),
}
