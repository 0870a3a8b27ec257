"""Monte Carlo fights (`fudge sim`): policies, the fight driver, statistics, executors.

What the command line needs before a simulation starts lives here, so that
`fudge` starts without importing the simulator.
"""

DEFAULT_MAX_ROUNDS = 50
POLICY_NAMES = ("plain", "sensible", "reckless")  # the keys of sim.policies.POLICIES
