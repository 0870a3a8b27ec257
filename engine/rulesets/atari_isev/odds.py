"""Atari Isev's exact odds: its blows mark Fudge's wound track, so they are weighed as Fudge's."""

from __future__ import annotations

from fudge_combat.engine.rulesets.fudge.odds import ODDS as FUDGE

ODDS = FUDGE
