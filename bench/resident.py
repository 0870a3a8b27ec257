"""A prototype of the design bench/README.md gives for `--jobs 2` on the fast presets (target 5): a resident
sim process that a small client hands each run to, so that no run pays Python's and the engine's start-up.

    .venv/bin/python bench/resident.py                       # fudge and fate, -n 20000, best of 5
    .venv/bin/python bench/resident.py -n 20000 200000 --presets fudge fate --repeat 7

Not a feature: nothing in `fudge` starts or talks to such a process. The server (this script with
`--serve SOCKET`) imports what `fudge sim` imports once, then for each request reads the two sheets and
the preset as `bench/scaleout.py` does (`setup_for`), runs `sim.batch.run_batch` with the jobs asked for
(its worker forked from the server for that run, as the command forks its own) and sends the summary
back as JSON. The client is `python -c` with `socket` and `json` only: it sends one line and prints the
answer, as the command would print it. Measured: the client's wall clock as a fresh process, `--jobs 1`
against `--jobs 2`, in turns, the best of each; the two print the same bytes (checked). Beside it, the
client with `-n 1`: what the design leaves of the start-up.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec


ROOT = Path(__file__).resolve().parents[1]

CLIENT = """import json, socket, sys
with socket.socket(socket.AF_UNIX) as s:
    s.connect(sys.argv[1])
    s.sendall(json.dumps({"preset": sys.argv[2], "n": int(sys.argv[3]), "jobs": int(sys.argv[4])}).encode() + b"\\n")
    data = b"".join(iter(lambda: s.recv(1 << 16), b""))
sys.stdout.buffer.write(data)
"""


def serve(path: str) -> None:
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from scaleout import setup_for  # noqa: E402  (the bench's own setup: the command's sheets and preset)

    from fudge_combat.sim.batch import run_batch

    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen()
        print("ready", flush=True)
        while True:
            conn, _ = listener.accept()
            with conn:
                request = json.loads(conn.makefile("rb").readline())
                if request.get("stop"):
                    return
                batch = run_batch(setup_for(request["preset"]), 7, request["n"], jobs=request["jobs"])
                conn.sendall(json.dumps(msgspec.structs.asdict(batch.summary), sort_keys=True, default=str).encode())


def client(path: str, preset: str, n: int, jobs: int) -> tuple[float, bytes]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CLIENT, path, preset, str(n), str(jobs)], capture_output=True,
                          check=True)
    return time.perf_counter() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serve", metavar="SOCKET", help=argparse.SUPPRESS)
    parser.add_argument("-n", type=int, nargs="+", default=[20000])
    parser.add_argument("--presets", nargs="+", default=["fudge", "fate"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "sim.sock")
        server = subprocess.Popen([sys.executable, __file__, "--serve", path], stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        load = os.getloadavg()
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, Python "
              f"{sys.version.split()[0]}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start; "
              f"best of {args.repeat}, in turns\n")
        print("| preset | n | client, `-n 1` | `--jobs 1` | `--jobs 2` | speed-up |")
        print("|---|---:|---:|---:|---:|---:|")
        try:
            for preset in args.presets:
                client(path, preset, 2000, 2)  # warm-up: the server's first run of a preset
                start_up = min(client(path, preset, 1, 1)[0] for _ in range(args.repeat))
                for n in args.n:
                    walls: dict[int, list[float]] = {1: [], 2: []}
                    outputs: set[bytes] = set()
                    for turn in range(args.repeat):
                        for jobs in ((1, 2) if turn % 2 == 0 else (2, 1)):
                            wall, out = client(path, preset, n, jobs)
                            walls[jobs].append(wall)
                            outputs.add(out)
                    assert len(outputs) == 1, "--jobs 1 and --jobs 2 printed different results"
                    one, two = min(walls[1]), min(walls[2])
                    print(f"| {preset} | {n:,} | {start_up:.3f} s | {one:.3f} s | {two:.3f} s | **{one / two:.2f}x** |",
                          flush=True)
        finally:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(path)
                s.sendall(b'{"stop": true}\n')
            server.wait(timeout=30)
        load = os.getloadavg()
        print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end")


if __name__ == "__main__":
    main()
