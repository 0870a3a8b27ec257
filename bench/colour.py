"""What colour costs `fudge status`: the board plain (a pipe), coloured (FORCE_COLOR: rich imported and
drawing), `--long`, and importing rich alone, as fresh processes in turns.

    python bench/colour.py [--runs 21]

The fight is `fudge demo fudge-phases` (three fighters); every `status` is answered from the stored
view (cli.views), so the difference between the plain and the coloured run is rich.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update({"PYTHONPATH": str(ROOT), "FUDGE_STORE": str(folder / "fudge.db"),
                "FUDGE_KEY_FILE": str(folder / "key"), "COLUMNS": "80"})
    fudge = [sys.executable, "-m", "fudge_combat.cli.main"]
    subprocess.run([*fudge, "demo", "fudge-phases"], env=env, check=True, capture_output=True, cwd=ROOT)
    cases = {
        "`fudge status`, plain (a pipe)": ([*fudge, "status"], {}),
        "`fudge status`, coloured (FORCE_COLOR=1)": ([*fudge, "status"], {"FORCE_COLOR": "1"}),
        "`fudge status --long`, plain": ([*fudge, "status", "--long"], {}),
        "`python -c \"import typer\"`": ([sys.executable, "-c", "import typer"], {}),
        "`python -c \"import typer, rich.console, rich.text\"`":
            ([sys.executable, "-c", "import typer, rich.console, rich.text"], {}),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for round_ in range(args.runs + 1):
        order = list(cases.items()) if round_ % 2 else list(reversed(cases.items()))
        for name, (argv, extra) in order:
            start = time.perf_counter()
            subprocess.run(argv, env={**env, **extra}, check=True, capture_output=True, cwd=ROOT)
            if round_:  # the first round warms the caches
                times[name].append(time.perf_counter() - start)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}")
    print("| measure | median | min |\n|---|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values) * 1000:.0f} ms | {min(values) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
