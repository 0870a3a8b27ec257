"""The Fudge ruleset (001): its Decider and its parts (blows, wounds, melee, ranged, points, initiative, phases)."""
