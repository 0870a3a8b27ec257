"""What the simulator reads of an Atari Isev fight: Fudge's, on the same wound track."""

from __future__ import annotations

from fudge_combat.engine.rulesets.fudge.sim import SIM

__all__ = ["SIM"]
