"""What the read side asks of the Fudge ruleset (`engine.kernel.reading`): Fudge points (C-FP),
battles, the wound track (F-WND) and its phase or rolled initiative (F-INIT)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.reading import Reading
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.engine.rulesets.fudge import consequences, sheet

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import Combatant, FightState


def no_order(pace: str) -> str:
    """No turn order at this pace: simultaneous rounds (F-INIT-1, F-PACE-2), the story pace (F-PACE-1),
    or turns the GM gives (F-PACE-3)."""
    return {"simultaneous": "no initiative (F-INIT-1): each engaged pair makes one opposed roll a round, "
                            "all at once (F-PACE-2): `fudge exchange A B`",
            "story": "no initiative at the story pace (F-PACE-1): the GM narrates; `fudge story NAME TRAIT`",
            }.get(pace, "no initiative rolled under these rules (F-INIT-1): the GM says who attacks first "
                        "(F-PACE-3): `fudge attack A B`")


def severity(state: FightState, who: Combatant) -> int:
    """The wound level on the track (F-WND), death past its end (F-WND-6)."""
    return 6 if who.track.dead else who.track.level


READING = Reading(
    name="fudge", points="fudge", battle="battle", end_command="end", round_paces=None,
    taken_out="", landed="blows landed (graze or hit)", ranked_rule="F-INIT-2",
    ties_together=False, blow_prefix=(), no_order=no_order, sheet_template=sheet.template,
    sheet_check=sheet.check, severity_levels=LEVELS,
    severity=severity, harm=consequences.harm, turn=consequences.turn)
