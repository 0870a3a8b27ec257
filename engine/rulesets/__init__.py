"""One Decider per ruleset: Fudge (`fudge`), Atari Isev (`atari_isev`) and Fate (`fate`).

Each is a plain table from a command's type to the function that decides it, built
in its own module and never changed after; phase initiative (`phases`) and the
commands every fight shares (`lifecycle`) are parts they compose.
`engine.decide.decide` looks up the fight's ruleset, then the command.
"""
