"""What the fast paths of duels share (`engine.rulesets.fudge.fast`, simultaneous; `fast_phases`, in phase
order; `engine.rulesets.atari_isev.fast` and `engine.rulesets.fate.fast`, the dice and the track): the
options every Fudge duel may read, which fighters a fast path takes, the engine's dice read fast, and a
won blow's damage and mark restated.

Speed code (`projections.speed`): `fudge sim --engine`, or FUDGE_PLAIN=1, plays the engine instead.

Rules restated here, each as the engine states it: F-MOD-1 (the worst wound's penalty), F-DMG-3,
F-DMG-4, F-GRAZE, F-DROLL (damage and its roll: `engine.rulesets.fudge.wounding.strike`), F-WND-3,
F-WND-5, F-WND-6 (the track: `engine.kernel.wounds.place`). A-FAIR-1: the dice
(`engine.kernel.dice.derive_faces`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.state import Combatant
from fudge_combat.engine.kernel.wounds import INCAPACITATED, NEAR_DEATH, SCRATCH, VERY_HURT, Track
from fudge_combat.engine.rulesets.fudge.damage import rolled_damage


class Marking(Protocol):
    """The options a wound's mark reads (`place`)."""

    @property
    def scratch_cap(self) -> bool: ...
    @property
    def gm_death(self) -> bool: ...


class Damage(Marking, Protocol):
    """The options a won blow's damage and its mark read (`strike`, `place`)."""

    @property
    def thresholds(self) -> tuple[int, ...]: ...
    @property
    def graze_table(self) -> tuple[int, int]: ...
    @property
    def graze_cap(self) -> int: ...
    @property
    def damage_roll(self) -> str: ...
    @property
    def graze_damage_roll(self) -> bool: ...
    @property
    def weight(self) -> int: ...


class Striker(Protocol):
    @property
    def factor(self) -> int: ...  # F-DMG-3: the damage factor against the foe


# Every option of `RuleOptions` is in exactly one of these (tests/test_sim_fast.py checks it); an option
# added later is in none, and a fight that sets it to anything but its default goes to the engine.
FIXED: dict[str, Any] = {  # must have this value
    "ruleset": "fudge", "pace": "simultaneous", "initiative": "none", "dice": "generated",
    "damage_system": "factors", "damage_capacity": "modifier", "dc_track": False,
    "death_three_levels": False, "death_needs_incapacitated": False, "bartering": "none",
    "spares_as_points": False, "phase_declaration": "open",
}
READ = frozenset({  # read here, any value
    "min_hit", "shield_values", "weapon_size", "npc_static", "plus_levels", "tactics",
    "all_out_offense_skill", "all_out_offense_damage", "all_out_loser_bonus",
    "wound_thresholds", "graze_table", "graze_cap", "damage_roll", "graze_damage_roll", "relative_degree_weight",
    "wound_boxes", "wound_penalties", "scratch_cap", "death_rule",
})
AT_OPENING = frozenset({  # read by the engine when the fighters join and when the plan is made, any value
    "ladder", "ladder_levels", "attributes", "missing_attribute", "unlisted_skill", "default_fudge_points",
    "npc_fudge_points", "wound_chart", "dc_in_defense", "blunt_heavy_halves_armor", "tech_scale",
})
UNREAD = frozenset({  # never read by a two-fighter exchange without declarations of defense, intents or points
    "dice_substitutes", "default_difficulty", "unaware_difficulty", "all_out_defense_skill", "advantage_penalty",
    "still_ticking_cost_near_death", "crunch_table", "crunch_single_plus_trade", "crunch_downgrades",
    "duplicates_act", "initiative_trait", "initiative_order_trait", "propelled_dodge_penalty",
    "ranged_shield_values", "mmm_factor_steps", "mmm_rd_steps", "mmm_deep_penalty", "death_protects",
    "head_blow_knockout", "healing_skill", "natural_healing_roll", "healing_trait", "damage_capacity_step",
    "dc_track_terrible", "multi_penalty", "max_foes", "sweeping_blow", "npc_group_roll", "all_out_exposure",
    "story_modifier_limit", "speed_trait", "initiative_every", "initiative_traits", "combat_reflexes_bonus",
    "hasty_initiative", "hasty_penalty", "graze_max_damage", "off_hand_penalty", "second_attack_delay",
    "sweep_penalty", "sweep_foes_avoid", "heroic_difficulty", "heroic_penalty", "fate_boxes", "arms",
    "arms_rating_limit", "fate_injury_days", "fate_recovery", "fate_medicine",
})


def fighter_eligible(who: Combatant) -> bool:
    """A fighter a fast path takes: on a plain box track, unhurt, unstunned, out of nothing."""
    sheet = who.fighter.sheet
    track = who.track
    return (sheet.track == "boxes" and type(track) is Track and not track.dead and track.out is None
            and track.level == 0 and not who.marks and who.out is None and who.killed_by is None
            and who.stunned is None and not who.stuns and not who.locations and len(who.boxes) == NEAR_DEATH)


def penalties(options: RuleOptions, pain: int) -> tuple[int, ...]:
    """`Track.penalty` at each level a fighter can still act at (F-MOD-1, F-DC pain threshold)."""
    out = [0]
    for level in range(SCRATCH, INCAPACITATED):
        penalty = options.wound_penalties[min(level, VERY_HURT) - 1]
        if penalty and pain:
            penalty = min(0, penalty + pain)
        out.append(penalty)
    return tuple(out)

# --- the dice ---------------------------------------------------------------------------------------
# `engine.kernel.dice.derive_faces`: face i of draw d is read from HMAC-SHA256(seed, "stream:d:block"), a byte of
# 255 rejected, byte % 3 - 1 taken. HMAC (RFC 2104) of a key of at most 64 bytes hashes the key padded
# to 64 bytes and xored with 0x36 before the message, and with 0x5c before that inner digest: both
# padded keys are hashed once per fight here (`Dice`), and each draw copies them (`hmac.digest` pads and
# hashes the key again at every call). tests/test_sim_fast.py checks every draw of many streams against
# `derive_faces`, rejected bytes included.

_INNER = bytes(byte ^ 0x36 for byte in range(256))
_OUTER = bytes(byte ^ 0x5C for byte in range(256))
REJECTED = 100  # the face of a byte of 255: any sum holding it is out of the range of real faces
_FACE = tuple(byte % 3 - 1 for byte in range(255)) + (REJECTED,)


class Dice:
    """A fight's generated dice: the sum of each draw's Fudge faces, draws numbered from 0."""

    __slots__ = ("inner", "outer", "prefix", "seed")

    def __init__(self, seed: bytes, stream: str) -> None:
        if len(seed) > 64:
            raise ValueError("a fight seed is at most one SHA-256 block")
        key = seed.ljust(64, b"\0")
        self.inner = hashlib.sha256(key.translate(_INNER))
        self.outer = hashlib.sha256(key.translate(_OUTER))
        self.prefix = stream.encode() + b":"
        self.seed = seed

    def block(self, draw: int, block: int) -> bytes:
        inner = self.inner.copy()
        inner.update(b"%s%d:%d" % (self.prefix, draw, block))
        outer = self.outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def total(self, draw: int, count: int) -> int:
        """The sum of `derive_faces(seed, stream, draw, count)`."""
        inner = self.inner.copy()  # `block(draw, 0)`, written out: this is most of a fight's time
        inner.update(b"%s%d:0" % (self.prefix, draw))
        outer = self.outer.copy()
        outer.update(inner.digest())
        digest = outer.digest()
        if count == 4:  # the action roll: four bytes, unless one of them is rejected
            face = _FACE
            total = face[digest[0]] + face[digest[1]] + face[digest[2]] + face[digest[3]]
            if total < REJECTED - 4:
                return total
        total = taken = block = 0
        while True:
            for byte in digest:
                if byte != 255:
                    total += _FACE[byte]
                    taken += 1
                    if taken == count:
                        return total
            block += 1
            digest = self.block(draw, block)

def stream_of(seed: bytes) -> str:
    """The dice stream of the fight with this seed: the first id `sim.runner.derived_ids` gives, cut as
    `sim.runner.LightSession.start` cuts it."""
    return hashlib.sha256(seed + b":id:0").hexdigest()[:12]


def strike(duel: Damage, attacker: Striker, rd: int, bonus: int, attack_roll: int, defense_roll: int | None,
            dice: Dice, draw: int) -> tuple[int, int]:
    """`engine.rulesets.fudge.wounding.strike` under the `factors` system: (the wound level, the next draw).
    `defense_roll` None: the defender rolled nothing (unaware or unable, F-MEL-3)."""
    factor = attacker.factor
    graze = rd == 1
    mode = duel.damage_roll
    roll: int | None = None
    parity = 0
    if mode != "none" and (not graze or duel.graze_damage_roll):
        if mode == "parity":
            parity = (attack_roll % 2 == 0) - (defense_roll is not None and defense_roll % 2 == 0)
        else:
            roll = dice.total(draw, 1 if mode.startswith("1dF") else 4)
            draw += 1
    if graze:  # F-GRAZE-1, F-GRAZE-2, F-GRAZE-3
        scratch_at, hurt_at = duel.graze_table
        level = 0 if factor < scratch_at else 1 if factor < hurt_at else 2
        if bonus > 0:
            level += 1
        moved = roll if roll is not None else (parity or None)
        if moved is not None:
            level += (moved > 0) - (moved < 0)
        return max(0, min(level, duel.graze_cap)), draw
    calculated = rd * duel.weight + factor + bonus + parity
    damage = rolled_damage(calculated, roll, mode)
    level = 0
    for index, lowest in enumerate(duel.thresholds, start=1):  # F-DMG-4, as `level_for_damage`
        if damage >= lowest:
            level = index
    if mode == "1dF_level" and roll is not None and level > 0:
        level = max(0, min(level + roll, NEAR_DEATH))
    return level, draw


def place(duel: Marking, rows: tuple[int, ...], filled: list[int], level: int) -> int:
    """`engine.kernel.wounds.place` on a track held as marked boxes per row: the track's level after the mark."""
    top = len(rows)
    ceiling = VERY_HURT if (level == SCRATCH and duel.scratch_cap) else top
    for row in range(min(level, top), ceiling + 1):
        if filled[row - 1] < rows[row - 1]:
            filled[row - 1] += 1
            break
    else:
        if not (ceiling < top or duel.gm_death):
            return 6  # F-WND-6: no open box kills
    for row in range(top, 0, -1):
        if filled[row - 1]:
            return row
    return 0
