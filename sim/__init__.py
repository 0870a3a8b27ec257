"""Monte Carlo fights (`fudge sim`): policies, the fight driver, statistics, executors.

What the command line needs before a simulation starts lives here, so that
`fudge` starts without importing the simulator.
"""

DEFAULT_MAX_ROUNDS = 50
MAX_ROUNDS = 10_000  # a fight's records stay in memory while it is played: its length is bounded
# The most fights a run plays: a billion fights pin every rate to within 0.01% (95%), and take a core
# hours on the fastest path. The run's memory does not grow with them (`sim.stats.Tally`).
MAX_FIGHTS = 1_000_000_000
# The most local processes a run starts, per CPU. The results are the same for any --jobs, and more
# processes than CPUs only take turns on them, each with its own copy of the run's memory; four per CPU
# still lets a command written for a bigger machine run here (or a CPU count a container under-reports).
JOBS_PER_CPU = 4
POLICY_NAMES = ("plain", "sensible", "reckless")  # the keys of sim.policies.POLICIES
