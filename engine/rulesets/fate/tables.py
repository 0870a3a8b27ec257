"""Fate's tables as data (004 8, 8.4): outcomes by margin, armor types, simple ratings, weapon attributes."""

from __future__ import annotations

from typing import Literal

Outcome = Literal["scratched", "clipped", "hurt", "injured", "taken_out"]

# FT-OUT: the outcomes, least to most severe; the boxes of FT-TRACK-1 are the last four.
OUTCOMES: tuple[Outcome, ...] = ("scratched", "clipped", "hurt", "injured", "taken_out")
BOXES: tuple[Outcome, ...] = ("clipped", "hurt", "injured", "taken_out")
OUTCOME_NAME = {"scratched": "Scratched", "clipped": "Clipped", "hurt": "Hurt", "injured": "Injured",
                "taken_out": "Taken Out"}

# FT-ADV-1: per armor type, the lowest margin for Clipped, Hurt, Injured, Taken Out.
# Armor type 0 is FT-OUT's own table (0 Scratched, 1 Clipped, 2-4 Hurt, 5-6 Injured, 7+ Taken Out).
ARMOR_TYPES: dict[int, tuple[int, int, int, int]] = {
    0: (1, 2, 5, 7),
    1: (1, 3, 5, 7),
    2: (1, 3, 6, 7),
    3: (2, 4, 6, 7),
    4: (2, 5, 6, 7),
    5: (2, 5, 7, 8),
    6: (3, 6, 8, 9),
    7: (3, 7, 9, 10),
    8: (3, 7, 10, 11),
}

# FT-SIMPLE: the ratings the text lists, by name (a sheet may give any rating 0..arms_rating_limit).
SIMPLE_WEAPONS: dict[str, int] = {
    "unarmed": 0,
    "knife": 1, "small club": 1, "martial arts": 1, "martial arts strike": 1, "holdout firearm": 1,
    "sword": 2, "mace": 2, "club": 2, "pistol": 2,
    "two-handed sword": 3, "2-handed sword": 3, "polearm": 3, "rifle": 3,
    "oversized two-hander": 4, "heavy firearm": 4,
}
SIMPLE_ARMOR: dict[str, int] = {
    "none": 0,
    "leather": 1, "studded leather": 1,
    "chainmail": 2, "chain": 2, "ringmail": 2, "ring": 2,
    "partial plate": 3, "light plate": 3, "scale": 3,
    "wood stove": 4,
}

WeaponAttribute = Literal["AP", "APx2", "Flex", "Vicious", "Vcsx2", "Locking"]

# FT-ADV-2: (armor types removed, penalty to use) and (damage bonus, armor types added when armor > 0).
ARMOR_PIERCING: dict[str, tuple[int, int]] = {"AP": (2, -1), "APx2": (4, -2)}
VICIOUS: dict[str, tuple[int, int]] = {"Vicious": (1, 2), "Vcsx2": (2, 4)}


def outcome_for(margin: int, armor_type: int = 0) -> Outcome:
    """FT-OUT, FT-ADV-1: the outcome a margin reads on an armor type's column (a margin below 0 is no hit)."""
    clipped, hurt, injured, taken_out = ARMOR_TYPES[armor_type]
    if margin >= taken_out:
        return "taken_out"
    if margin >= injured:
        return "injured"
    if margin >= hurt:
        return "hurt"
    if margin >= clipped:
        return "clipped"
    return "scratched"
