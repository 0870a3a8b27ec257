"""Settings of the fuzz suites: a few thousand examples in CI, many more by hand.

`FUDGE_FUZZ_SCALE=50 python -m pytest tests -k fuzz` runs the long profile: every fuzz test with
fifty times its examples.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SCALE = max(1, int(os.environ.get("FUDGE_FUZZ_SCALE", "1") or 1))


def fuzz(examples: int) -> settings:
    """`examples` in CI, times FUDGE_FUZZ_SCALE by hand; no deadline (shared machines are noisy)."""
    return settings(max_examples=examples * SCALE, deadline=None, derandomize=SCALE == 1,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])
