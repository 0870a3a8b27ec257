"""What the read side asks of the Atari Isev ruleset (`engine.kernel.reading`): Fudge's, but its
rolled initiative is AI-INIT, where equal totals act together (AI-INIT-2), and its own sheet."""

from __future__ import annotations

from dataclasses import replace

from fudge_combat.engine.rulesets.fudge.reading import READING as FUDGE

READING = replace(FUDGE, name="atari-isev", ranked_rule="AI-INIT", ties_together=True, sheet="atari-isev")
