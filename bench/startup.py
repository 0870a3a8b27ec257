"""Start-up of the light commands, two checkouts side by side: `fudge status` (the stored view), `fudge --version`,
`fudge attack --help` and the shell asking for `fudge attack <TAB>`, on a fresh two-fighter fight.

    python bench/startup.py --old ../before [--new .] [--old-python PATH] [--new-python PATH] [--runs 15]

Each checkout runs its own code (`python -m fudge_combat.cli.main` from its root, its own store) under its own
interpreter (`--old-python`, `--new-python`; by default `<root>/.venv/bin/python`: the project installs as
one package, `fudge_combat`, so the interpreter, not PYTHONPATH, chooses the code; `bench/checkouts.py`
refuses one that imports another checkout's);
old and new run in turns, the order swapped every run, after one warm-up run of each; each figure is the
median over the runs. A command the old checkout lacks (`--version`, completion) is still timed: it is a
usage error there, after loading every command module (what `fudge --version` cost before).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkouts import add_options, environment as without_path, python_for

HERE = Path(__file__).resolve().parent.parent
SHEETS = HERE / "examples" / "sheets"
CASES: dict[str, tuple[list[str], dict[str, str]]] = {
    "fudge status": (["status"], {}),
    "fudge --version": (["--version"], {}),
    "fudge attack --help": (["attack", "--help"], {}),
    "fudge attack <TAB>": ([], {"_FUDGE_COMPLETE": "complete_bash", "COMP_WORDS": "fudge --store {store} attack ''",
                                "COMP_CWORD": "4"}),
}


def environment(store: Path) -> dict[str, str]:
    env = {k: v for k, v in without_path().items() if not k.startswith("FUDGE_")}
    env.update(FUDGE_KEY_FILE=str(store.parent / "key"), NO_COLOR="1", COLUMNS="100",
               XDG_STATE_HOME=str(store.parent / "state"))
    return env


def prepare(root: Path, python: str, folder: Path) -> Path:
    store = folder / "fudge.db"
    for args in (["new", "duel"], ["join", str(SHEETS / "snorri.toml")], ["join", str(SHEETS / "brynhild.toml")]):
        subprocess.run([python, "-m", "fudge_combat.cli.main", "--store", str(store), *args], cwd=root, check=True,
                       env=environment(store), capture_output=True)
    subprocess.run([python, "-m", "compileall", "-q", "cli", "engine", "events", "projections", "store",
                    "service"], cwd=root, check=True)  # this machine sets PYTHONDONTWRITEBYTECODE=1
    return store


def once(root: Path, python: str, store: Path, case: str) -> float:
    args, extra = CASES[case]
    env = {**environment(store), **{k: v.format(store=store) for k, v in extra.items()}}
    start = time.perf_counter()
    subprocess.run([python, "-m", "fudge_combat.cli.main", "--store", str(store), *args], cwd=root, env=env,
                   capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, default=HERE)
    parser.add_argument("--runs", type=int, default=15)
    add_options(parser)
    given = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fudge-startup-"))
    try:
        roots = {"old": given.old.resolve(), "new": given.new.resolve()}
        pythons = {"old": python_for(roots["old"], given.old_python), "new": python_for(roots["new"], given.new_python)}
        stores = {}
        for label, root in roots.items():
            (folder / label).mkdir()
            stores[label] = prepare(root, pythons[label], folder / label)
        times: dict[tuple[str, str], list[float]] = {(case, label): [] for case in CASES for label in roots}
        for run in range(given.runs + 1):
            order = ["old", "new"] if run % 2 else ["new", "old"]
            for case in CASES:
                for label in order:
                    took = once(roots[label], pythons[label], stores[label], case)
                    if run:  # the first run warms the caches
                        times[(case, label)].append(took)
        floor = []
        for _ in range(given.runs):
            start = time.perf_counter()
            subprocess.run([pythons["new"], "-c", "import typer"], check=True, env=without_path())
            floor.append(time.perf_counter() - start)
        print("| command | old | new |\n|---|---|---|")
        for case in CASES:
            old, new = (statistics.median(times[(case, label)]) * 1000 for label in ("old", "new"))
            print(f"| `{case}` | {old:.0f} ms | {new:.0f} ms |")
        print(f"| `python -c 'import typer'` | {statistics.median(floor) * 1000:.0f} ms | |")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
