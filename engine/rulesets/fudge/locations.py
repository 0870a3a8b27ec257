"""F-HIT-2 aimed blows and F-LOC hit location (001 4.3.1, 4.3.5).

Readings taken:
- A blow that strikes a named part (an aimed blow reaching its level, a
  called shot won by the required RD, or the part the defender names when a
  called shot wins by less) is a wound of that part instead of a mark on the
  wound track: Scratch -> Scratched, Hurt -> Hurt, Very Hurt or worse ->
  Incapacitated; a second Hurt on a Hurt part incapacitates it.
- A called shot won by less than the required RD lands where the defender
  names (`otherwise`); named nowhere, it is an ordinary body wound.
- A Hurt (or Incapacitated) part gives -1 to the use the GM names for it when
  it is wounded (`combat`, or a trait such as Running): -1 in melee for
  `combat`, -1 to rolls of that trait otherwise.
- The required RD of a called shot defaults to 2, the low end of "usually 2-4".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from msgspec.structs import replace as with_fields

from fudge_combat.engine.rulesets.fudge.command_structs import Targeting
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.rulesets.fudge.melee_mods import aimed_hits
from fudge_combat.events import structs as ev

LOCATION_LEVELS = ("Unhurt", "Scratched", "Hurt", "Incapacitated")
SCRATCHED, LOC_HURT, LOC_INCAPACITATED = 1, 2, 3
DEFAULT_CALLED_RD = 2


def needed_rd(t: Targeting) -> int:
    """F-LOC-1: the relative degree a called shot needs, the default when the command gives none."""
    return t.called_rd if t.called_rd is not None else DEFAULT_CALLED_RD


def targeting_record(t: Targeting) -> dict[str, Any]:
    """The fields an ExchangeResolved keeps, so a re-resolution places the blow the same way."""
    return {"aim": t.aim, "aimed_at": t.aim_at, "called": t.called,
            "called_rd": needed_rd(t) if t.called else None, "otherwise": t.otherwise,
            "location_affects": t.affects}


def targeting_of(resolution: ev.ExchangeResolved) -> Targeting:
    """The targeting an ExchangeResolved recorded (`targeting_record`), to place a re-resolved blow the same way."""
    return Targeting(aim=resolution.aim, aim_at=resolution.aimed_at, called=resolution.called,
                     called_rd=resolution.called_rd, otherwise=resolution.otherwise,
                     affects=resolution.location_affects)


def check_called(t: Targeting) -> None:
    """F-LOC-1: a called shot names a part; its RD is at least 1; it and an aimed blow exclude each other."""
    if t.called is None:
        if t.called_rd is not None or t.otherwise is not None:
            raise RuleError("--need-rd and --otherwise go with a called shot: --called PART (F-LOC-1)")
    else:
        if not t.called.strip():
            raise RuleError("a called shot names the part: --called PART (F-LOC-1)")
        if needed_rd(t) < 1:
            raise RuleError("a called shot needs a relative degree of 1 or more, usually 2 to 4 (F-LOC-1)")
        if t.aim_at is not None:
            raise RuleError("choose an aimed blow (--aim-at, F-HIT-2) or a called shot (--called, F-LOC-1), not both")
    if t.affects is not None and t.called is None and t.aim_at is None:
        raise RuleError("--affects names what a wounded part hinders: give the part with --called or --aim-at")


def locate_hits(hits: Sequence[ev.Hit], first: ev.Side, t: Targeting) -> tuple[ev.Hit, ...]:
    """F-HIT-2, F-LOC-1: the first fighter's hit lands on the part, elsewhere, or where the defender names."""
    hits = aimed_hits(hits, first, t.aim, t.aim_at)
    if t.called is None:
        return tuple(hits)
    out = []
    for hit in hits:
        if hit.attacker == first.combatant:
            reached = hit.relative_degree >= needed_rd(t)
            hit = with_fields(hit, aimed_at=t.called, location=t.called if reached else t.otherwise)
        out.append(hit)
    return tuple(out)


def location_marks(action: int, hits: Sequence[ev.Hit], affects: str | None = None) -> list[ev.LocationWounded]:
    """F-LOC-2: a located blow wounds its part; body blows are marked on the track elsewhere."""
    return [ev.LocationWounded(action=action, combatant=hit.defender, location=hit.location,
                               level=min(hit.level, LOC_INCAPACITATED), wound_level=hit.level, affects=affects)
            for hit in hits if hit.level > 0 and hit.location]


def worsen(before: int, level: int) -> int:
    """F-LOC-2: a part keeps its worst wound; a second Hurt incapacitates it."""
    if before == LOC_HURT and level == LOC_HURT:
        return LOC_INCAPACITATED
    return max(before, level)


def location_modifiers(locations: Mapping[str, tuple[int, str | None]], use: str) -> list[ev.Modifier]:
    """F-LOC-2: -1 for each Hurt (or worse) part whose use this is (`combat`, or a trait's name)."""
    if not locations:  # most fighters have no part wounded
        return []
    return [ev.Modifier(name=f"{LOCATION_LEVELS[level].lower()} {part}", value=-1)
            for part, (level, affects) in sorted(locations.items())
            if level >= LOC_HURT and affects is not None and affects.lower() == use.lower()]
