"""Atari Isev adds no event type to the log: its blows, avoidances and willpower are recorded as Fudge's
(`ExchangeResolved`, `WillSteeled`, ...), and its fights fold and read with Fudge's declarations."""

from __future__ import annotations

from fudge_combat.engine.kernel.event_rules import EventRules

EVENTS: EventRules = {}
