"""The Atari Isev ruleset (000): a variant composed from Fudge's parts with its own blows and avoidances."""
