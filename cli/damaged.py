"""A read of a damaged log: the first bad event, as `fudge verify` names it, instead of a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.store.base import StoreError

if TYPE_CHECKING:
    from fudge_combat.service.fights import Fights


@contextmanager
def readable(fights: Fights, name: str) -> Iterator[None]:
    """Reads of a fight (status, replay, log, export) that fail on a log altered in the store become one
    line naming the first bad event. Only a failure is audited: a read that works costs nothing more.
    A failure the audit cannot explain (the log verifies) is a bug, and is raised as it is."""
    try:
        yield
    except (RuleError, StoreError, typer.Exit, KeyboardInterrupt):
        raise
    except Exception:
        problem = first_problem(fights, name)
        if problem is None:
            raise
        seq, why = problem
        raise StoreError(f"{name}: event {seq}: {why}; `fudge verify {name}` checks the whole log") from None


def first_problem(fights: Fights, name: str) -> tuple[int, str] | None:
    """The first problem `fudge verify` finds in a fight, if any (None also if the audit cannot run)."""
    from fudge_combat.engine.audit import verify

    try:
        from fudge_combat.service.history import lineage_of

        report = verify(fights.store.read(name), lineage_of(fights.store, name))
    except Exception:  # noqa: BLE001 - the original failure is the one to show
        return None
    return report.problems[0] if report.problems else None
