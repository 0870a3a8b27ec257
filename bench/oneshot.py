"""`fudge attack` on a 1,000-event fight as a fresh process: its CPU time beside the imports, and where it goes.

    python bench/oneshot.py [--old ../before] [--old-python PATH] [--new-python PATH] [--runs 21] [--events 1000]
    python bench/oneshot.py --profile [--samples 30]     # where the milliseconds go (this checkout)

Each checkout (`--old`, and this one) runs under its own interpreter (`--old-python`, `--new-python`; by
default `<root>/.venv/bin/python`: the project installs as one package, `fudge_combat`, so the
interpreter, not PYTHONPATH, chooses the code; `bench/checkouts.py` refuses one that imports another
checkout's) and builds its own fight with its own `bench/replay.py` (`build`: a
`fudge` fight of about `--events` events, three fighters at a time), runs one `fudge attack A B`
(dice that always miss, so the fight goes on) and keeps the store as it is then. Every measured run
starts from that copy, so each one does the same work on the same fight. The figure is the CPU time
of the child (user + system, `os.wait4`), not the wall clock: the machine is shared. Old, new and the
floors run in turns, the order reversed every run, after one warm-up run of each; the table gives the
median and the minimum. The floors: `python -c pass`, `python -c "import pydantic, typer"` (the
target's yardstick) and a Typer program of one command with one option, run (Typer coerces every
option through a pydantic `TypeAdapter`, so it loads pydantic's model machinery). `--ladder` adds what
`fudge attack` builds on, layer by layer, ending with its modules imported twice: as they are, and with
every pydantic model standing for a plain class (the floor the design's first step would reach).

`--profile` runs `fudge attack` under a CPU-time sampler (`signal.setitimer(ITIMER_PROF)`: a sample
every tick of CPU the process uses; this kernel ticks every 4 ms, hence many runs) and sorts each
sample into one bucket by its stack (the table printed), then `python -X importtime` (the least of
five runs for each of the project's modules) and cProfile's top functions of one run.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from checkouts import CHECK, add_options, environment, python_for

HERE = Path(__file__).resolve().parent.parent
PROJECT = ("cli", "engine", "events", "projections", "store", "service", "sim")

BUILD = CHECK + """import importlib.util, json, logging, sys
from pathlib import Path
import structlog
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
spec = importlib.util.spec_from_file_location("bench_replay", Path("bench") / "replay.py")
r = importlib.util.module_from_spec(spec)
spec.loader.exec_module(r)
count, _, _ = r.build(Path(sys.argv[1]), "short", int(sys.argv[2]))
print(json.dumps({"events": count, "pair": r.able_pair(Path(sys.argv[1]), "short")}))
"""

TYPER_PROGRAM = """import sys, typer
app = typer.Typer(add_completion=False)
@app.command()
def status(fight: str = typer.Option("", "--fight")) -> None:
    pass
sys.argv = ["fudge", "--fight", "short"]
app()
"""

# Run `python -m fudge_combat.cli.main ARGS` under a CPU-time sampler; append {"cpu": seconds, "s": [stacks]} to OUT.
SAMPLER = """import atexit, json, os, resource, runpy, signal, sys
samples = []
def take(signum, frame):
    stack = []
    while frame is not None:
        stack.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}")
        frame = frame.f_back
    samples.append(stack)
signal.signal(signal.SIGPROF, take)
signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
@atexit.register
def done():
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    used = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["SAMPLES_OUT"], "a") as out:
        out.write(json.dumps({"cpu": used.ru_utime + used.ru_stime, "s": samples}) + "\\n")
sys.argv = ["fudge", *sys.argv[1:]]
try:
    runpy.run_module("fudge_combat.cli.main", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
"""


# Which classes a command defines and which it uses: counted at exit, by the garbage collector's objects.
CENSUS = """import atexit, dataclasses, gc, json, sys
@atexit.register
def count():
    import pydantic
    gc.unfreeze()  # what a command froze (cli.main.start_up) is out of gc.get_objects' sight until then
    def project(module):
        return module.startswith("fudge_combat.")
    objects = gc.get_objects()
    used = {type(o) for o in objects}
    models = [c for c in objects if isinstance(c, type) and issubclass(c, pydantic.BaseModel)
              and project(c.__module__)]
    classes = [c for c in objects if isinstance(c, type) and dataclasses.is_dataclass(c)
               and project(c.__module__)]
    try:
        import msgspec
        structs = [c for c in objects if isinstance(c, type) and issubclass(c, msgspec.Struct)
                   and project(c.__module__)]
    except ImportError:  # a checkout before msgspec
        structs = []
    print(json.dumps({"models": len(models), "models_used": sum(c in used for c in models),
                      "schemas_built": sum(bool(c.__pydantic_complete__) for c in models),
                      "dataclasses": len(classes), "dataclasses_used": sum(c in used for c in classes),
                      "structs": len(structs), "structs_used": sum(c in used for c in structs),
                      "modules": sum(map(project, sys.modules))}), file=sys.stderr)
sys.argv = ["fudge", *sys.argv[1:]]
from fudge_combat.cli.main import app
app()
"""


def env_for(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in environment().items() if not k.startswith("FUDGE_")}
    env.update(FUDGE_KEY_FILE=str(folder / "key"), XDG_STATE_HOME=str(folder / "state"),
               NO_COLOR="1", COLUMNS="100", FUDGE_STORE=str(folder / "fudge.db"))
    return env


def copy_store(source: Path, target: Path) -> None:
    """The whole database, WAL included, through SQLite's own backup."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def cpu_of(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU seconds of one child process; stop if it fails."""
    pid = os.fork()
    if pid == 0:  # the child: output to /dev/null, then the command
        try:
            os.chdir(cwd)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if status:
        sys.exit(f"error: `{' '.join(argv)}` failed (status {status}); run it by hand to see why")
    return usage.ru_utime + usage.ru_stime


class Checkout:
    """One checkout's fight, ready for `fudge attack` runs that each start from the same store."""

    def __init__(self, label: str, root: Path, python: str, folder: Path, events: int) -> None:
        self.label, self.root, self.python, self.folder = label, root, python, folder / label
        self.folder.mkdir()
        self.env = env_for(self.folder)
        self.db, self.template = self.folder / "fudge.db", self.folder / "template.db"
        subprocess.run([python, "-m", "compileall", "-q", *(p for p in PROJECT if (root / p).is_dir())],
                       cwd=root, check=True, capture_output=True)  # this machine sets PYTHONDONTWRITEBYTECODE=1
        built = subprocess.run([python, "-c", BUILD, str(self.db), str(events)], cwd=root, env=self.env,
                               capture_output=True, text=True, check=True)
        answer = json.loads(built.stdout.strip().splitlines()[-1])
        self.events, (a, b) = answer["events"], answer["pair"]
        self.argv = [python, "-m", "fudge_combat.cli.main", "--store", str(self.db), "attack", a, b,
                     "--fight", "short", "--dice", f"{a}=----", "--dice", f"{b}=++++"]
        self.attack()  # the state a command leaves (snapshot, read model): what the next one finds
        copy_store(self.db, self.template)

    def attack(self) -> float:
        if self.template.exists():
            copy_store(self.template, self.db)
        return cpu_of(self.argv, self.env, self.root)


# What `fudge attack` builds on, one layer at a time (run from the newer checkout's root). `cli.main` takes the
# place of pydantic's plugin loader (it imports importlib.metadata and reads every package's entry points);
# the rows marked so do the same.
NO_PLUGINS = ("import sys, types\nloader = types.ModuleType('pydantic.plugin._loader')\n"
              "loader.get_plugins = lambda: ()\nsys.modules['pydantic.plugin._loader'] = loader\n")
# As `fudge attack` imports them: `cli.main`, then the command's module with the collector paused and frozen after.
ATTACK_MODULES = ("import gc, fudge_combat.cli.main\ngc.disable()\n"
                  "import fudge_combat.cli.table, fudge_combat.engine.decide, fudge_combat.engine.rulesets.fudge.decider, fudge_combat.service.fights, fudge_combat.store.sqlite\n"
                  "from fudge_combat.engine import commands as cmd\ncmd.Attack, cmd.Undo\ngc.freeze()\ngc.enable()\n")
# The design's step 1 measured from below: the project's modules imported with pydantic's names standing for
# plain classes and no-op decorators, so no model class is built by pydantic (a msgspec Struct class, the
# design's derived type, is created in about 20 us; this stand-in in less). Enough to import, not to run.
PLAIN_MODELS = """import types
class Plain:
    model_fields = {}
    def __init_subclass__(cls, **config):
        names = cls.__dict__.get("__annotations__", {})
        cls.model_fields = {name: types.SimpleNamespace(default=cls.__dict__.get(name)) for name in names}
    def __init__(self, **fields):
        self.__dict__.update(fields)
def decorator(*args, **options):
    return args[0] if args and callable(args[0]) and not options else (lambda function: function)
class Adapter:
    def __init__(self, *args, **options):
        pass
for name, value in dict(BaseModel=Plain, ConfigDict=dict, Field=lambda *a, **k: k.get("default", a[0] if a else None),
                        TypeAdapter=Adapter, field_validator=decorator, model_validator=decorator,
                        model_serializer=decorator, SerializerFunctionWrapHandler=object,
                        ValidationError=ValueError).items():
    setattr(pydantic, name, value)
"""
ONE_MODEL = "import pydantic\nclass One(pydantic.BaseModel):\n    x: int\nOne(x=1)\n"
LADDER = {
    "`python -c pass`": "pass",
    '`python -c "import pydantic, typer"`': "import pydantic, typer",
    "`import pydantic, typer` + the standard library the command uses (sqlite3, pickle, hmac, json, random...)":
        "import pydantic, typer, sqlite3, pickle, hmac, hashlib, json, random, secrets, logging, tempfile",
    "`import pydantic, typer` + one pydantic model class, its schema deferred (never validated)":
        "import pydantic, typer\nclass One(pydantic.BaseModel, defer_build=True):\n    x: int",
    "`import pydantic, typer` + one pydantic model class, validated once (no Typer run)":
        "import typer\n" + ONE_MODEL,
    "the same, without pydantic's plugin loader (as `fudge` runs)": NO_PLUGINS + "import typer\n" + ONE_MODEL,
    "a Typer program of one command with one option, run": TYPER_PROGRAM,
    "the same, without pydantic's plugin loader": NO_PLUGINS + TYPER_PROGRAM,
    "the same + one pydantic model class, validated once": NO_PLUGINS + ONE_MODEL + TYPER_PROGRAM,
    "the same + `import fudge_combat.events.models` (the event models, schemas deferred)":
        NO_PLUGINS + "import fudge_combat.events.models\n" + TYPER_PROGRAM,
    "the same + every command class (`engine.commands.Command`)":
        NO_PLUGINS + "import fudge_combat.events.models\nfrom fudge_combat.engine.commands import Command\n" + TYPER_PROGRAM,
    "the same + every module `fudge attack` imports, without the command classes it does not name (none run)":
        NO_PLUGINS + "import fudge_combat.cli.table, fudge_combat.engine.decide, fudge_combat.engine.rulesets.fudge.decider, fudge_combat.service.fights, fudge_combat.store.sqlite\n"
        + TYPER_PROGRAM,
    "`import pydantic, typer` + every module `fudge attack` imports and the command classes it names (Typer not run)":
        NO_PLUGINS + "import pydantic, typer\n" + ATTACK_MODULES,
    "the same, every pydantic model a plain class (a stand-in: pydantic's model machinery never loaded)":
        "import pydantic, typer\n" + PLAIN_MODELS + ATTACK_MODULES,
}


def side_by_side(checkouts: list[Checkout], runs: int, ladder: bool) -> None:
    cases = {f"`fudge attack`, {c.label} ({c.events:,}-event fight)": c.attack for c in checkouts}
    newest = checkouts[-1]
    env = environment()
    for name, code in LADDER.items() if ladder else list(LADDER.items())[1:2]:
        cases[name] = lambda code=code: cpu_of([newest.python, "-c", code], env, newest.root)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for run in range(runs + 1):
        for name in (list(cases) if run % 2 else reversed(list(cases))):
            took = cases[name]()
            if run:  # the first run of each warms the caches
                times[name].append(took)
    yardstick = statistics.median(times['`python -c "import pydantic, typer"`'])
    print(f"\nCPU time (user + system) of each child, {runs} runs in turns; load average now "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    print("| command | median | min | / imports |\n|---|---:|---:|---:|")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median * 1000:.0f} ms | {min(values) * 1000:.0f} ms | {median / yardstick:.2f}x |")


PACKAGE = re.compile(r"/(cli|engine|events|projections|store|service)/")


def bucket(stack: list[str]) -> str:
    """Where one sample's CPU went, by its stack (innermost frame first)."""
    stack = [f for f in stack if "<frozen runpy>" not in f and not f.startswith("<string>")
             and not f.endswith("cli/main.py:<module>")]  # the script itself: app() runs inside it
    text = " ".join(stack)
    modules = [f for f in stack if f.endswith(":<module>")]
    if "_model_construction.py:__new__" in text and "complete_model_class" not in text:
        return "pydantic classes created at import (`defer_build`: fields collected, no schema)"
    if any(k in text for k in ("complete_model_class", "_mock_val_ser", "model_rebuild", "type_adapter.py")):
        if "typer/_adapters" in text or "typer/_coercion" in text:
            return "Typer: a pydantic TypeAdapter for each option"
        return "pydantic schemas built on first use (the first one loads pydantic's schema machinery)"
    if modules:
        if PACKAGE.search(modules[0]):
            if "dataclasses.py:" in text:
                return "dataclasses created at import (project modules)"
            return "project modules: loading and running their bodies"
        if any(PACKAGE.search(m) for m in modules):
            return "libraries the project's modules import (pydantic and its model machinery, sqlite3, hmac...)"
        if "cli/main.py:__call__" in text:
            return "libraries imported while Typer runs"
        return "start: Typer and the standard library imported by cli.main"
    if "cli/table.py:run" in text:
        for key, name in (("fights.py:state", "work: the fight's state (snapshot, events after it)"),
                          ("fights.py:execute", "work: decide, append, snapshot and read model"),
                          ("cli/table.py:show", "work: printing")):
            if key in text:
                return name
        return "work: names, checks"
    if "typer/" in text or "/_click/" in text or "cli/main.py" in text:
        return "Typer: building the command, parsing, coercing"
    return "other (exit, garbage collection)"


def profile(checkout: Checkout, samples: int) -> None:
    out = checkout.folder / "samples.jsonl"
    env = {**checkout.env, "SAMPLES_OUT": str(out)}
    for _ in range(samples):
        copy_store(checkout.template, checkout.db)
        subprocess.run([checkout.python, "-c", SAMPLER, *checkout.argv[3:]], cwd=checkout.root, env=env,
                       capture_output=True, check=True)
    runs = [json.loads(line) for line in out.read_text().splitlines()]
    cpu = statistics.median(r["cpu"] for r in runs) * 1000
    counts = collections.Counter(bucket(stack) for r in runs for stack in r["s"])
    total = sum(counts.values())
    print(f"\nWhere the CPU goes: {samples} sampled runs, {total:,} samples; median CPU {cpu:.0f} ms a run "
          "(the sampler's own cost included; interpreter start before it runs, about 11 ms, is not)\n")
    print("| where | ms | share |\n|---|---:|---:|")
    for name, count in counts.most_common():
        print(f"| {name} | {count / total * cpu:.0f} | {count / total:.0%} |")

    copy_store(checkout.template, checkout.db)
    census = subprocess.run([checkout.python, "-c", CENSUS, *checkout.argv[3:]], cwd=checkout.root,
                            env=checkout.env, capture_output=True, text=True)
    found = json.loads(census.stderr.strip().splitlines()[-1])
    print(f"\nDefined and used: {found['modules']} of the project's modules imported; {found['models']} pydantic "
          f"classes defined, {found['models_used']} with an instance at exit, {found['schemas_built']} schemas "
          f"built; {found['dataclasses']} dataclasses defined, {found['dataclasses_used']} with an instance at exit; "
          f"{found.get('structs', 0)} msgspec structs defined, {found.get('structs_used', 0)} with an instance at exit")

    least: dict[str, int] = {}
    for _ in range(5):
        copy_store(checkout.template, checkout.db)
        done = subprocess.run([checkout.python, "-X", "importtime", *checkout.argv[1:]], cwd=checkout.root,
                              env=checkout.env, capture_output=True, text=True, check=True)
        for line in done.stderr.splitlines():
            found = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
            if found:
                least[found[2]] = min(least.get(found[2], 10**9), int(found[1]))
    own = {name: us for name, us in least.items() if name.startswith("fudge_combat.")}
    print(f"\n`python -X importtime`, the least of 5 runs (wall time, self): {len(least)} modules, "
          f"{sum(least.values()) / 1000:.0f} ms; the project's {len(own)} modules {sum(own.values()) / 1000:.0f} ms; "
          "the largest:\n")
    for name, us in sorted(own.items(), key=lambda item: -item[1])[:12]:
        print(f"    {us / 1000:5.1f} ms  {name}")

    stats = checkout.folder / "attack.prof"
    copy_store(checkout.template, checkout.db)
    subprocess.run([checkout.python, "-m", "cProfile", "-o", str(stats), *checkout.argv[1:]], cwd=checkout.root,
                   env=checkout.env, capture_output=True, check=True)
    import pstats

    print("\ncProfile of one run (its own overhead inflates Python-level calls), by cumulative time:\n")
    pstats.Stats(str(stats), stream=sys.stdout).sort_stats("cumulative").print_stats(
        r"(cli|engine|events|service|store)/.*\.py|_model_construction|model_rebuild|_coercion", 25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="root of a checkout to measure beside this one")
    parser.add_argument("--new", type=Path, default=HERE)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--ladder", action="store_true", help="also time what the command builds on, layer by layer")
    parser.add_argument("--profile", action="store_true", help="where the CPU of `fudge attack` goes (--new only)")
    parser.add_argument("--samples", type=int, default=30, help="sampled runs for --profile")
    add_options(parser)
    given = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fudge-oneshot-"))
    try:
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        if given.profile:
            new = given.new.resolve()
            profile(Checkout("new", new, python_for(new, given.new_python), folder, given.events), given.samples)
            return
        roots = {"old": given.old, "new": given.new} if given.old else {"new": given.new}
        pythons = {"old": given.old_python, "new": given.new_python}
        side_by_side([Checkout(label, root.resolve(), python_for(root.resolve(), pythons[label]), folder, given.events)
                      for label, root in roots.items()], given.runs, given.ladder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
