"""Projections: current state rebuilt by folding the effective events of a log."""

from projections.fold import effective, evolve_all, fold, replay, voided  # noqa: F401
from projections.state import FightState, evolve  # noqa: F401
