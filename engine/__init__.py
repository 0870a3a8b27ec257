"""The functional core: rules as pure functions.

Nothing in this package reads a clock, a file, a database or a global random
generator. `decide(state, command, dice) -> events` and
`engine.evolve.evolve(state, event) -> state` are the whole contract.
"""
