"""Monte Carlo fights (`fudge sim`): policies, the fight driver, statistics, executors.

What the command line needs before a simulation starts lives here, so that
`fudge` starts without importing the simulator.
"""

DEFAULT_MAX_ROUNDS = 50
MAX_ROUNDS = 10_000  # a fight's records stay in memory while it is played: its length is bounded
POLICY_NAMES = ("plain", "sensible", "reckless")  # the keys of sim.policies.POLICIES
