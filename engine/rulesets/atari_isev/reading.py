"""What the read side asks of the Atari Isev ruleset (`engine.kernel.reading`): Fudge's, but its
rolled initiative is AI-INIT, where equal totals act together (AI-INIT-2), its own sheet, and its
wounds weigh by the campaign's penalties, eased by willpower (AI-WILL-1)."""

from __future__ import annotations

from msgspec.structs import replace

from fudge_combat.engine.rulesets.atari_isev import sheet
from fudge_combat.engine.rulesets.fudge.reading import READING as FUDGE

READING = replace(FUDGE, name="atari-isev", ranked_rule="AI-INIT", ties_together=True, campaign_wounds=True,
                  sheet_template=sheet.template, sheet_check=sheet.check)
