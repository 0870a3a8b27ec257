"""The Fate ruleset (004, Fudge version): a variant composed from Fudge's parts, with exchanges, scenes, stress
and aspects."""
