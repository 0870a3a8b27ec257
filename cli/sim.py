"""`fudge sim`: Monte Carlo fights played by policies through the engine, with statistics."""

from __future__ import annotations

import os
import secrets
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import msgspec
import typer
from msgspec.structs import replace

from fudge_combat.events.records import json_form
from fudge_combat.cli.context import echo, echo_json, fail, guard, house_rules, read_file, service
from fudge_combat.cli.exits import INTERRUPTED
from fudge_combat.cli.terminal import safe
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.projections.speed import PLAIN
from fudge_combat.sim import DEFAULT_MAX_ROUNDS, JOBS_PER_CPU, MAX_FIGHTS, POLICY_NAMES

if TYPE_CHECKING:
    from fudge_combat.sim.parallel import Tls
    from fudge_combat.sim.runner import Entrant

app = typer.Typer()


def entrants(sheets: list[Path], sides: list[str], policies: list[str]) -> tuple[Entrant, ...]:
    """Sheets in order, `--side` (and several `--policy`) values matched to them in order; a sheet joining
    twice gets `NAME 2`."""
    from fudge_combat.engine.kernel.sheets import parse_sheet
    from fudge_combat.sim.runner import Entrant

    if len(sides) > len(sheets):
        raise InputError(f"{len(sides)} --side values for {len(sheets)} sheets: give at most one per sheet")
    if len(policies) > 1 and len(policies) != len(sheets):
        raise InputError(f"{len(policies)} --policy values for {len(sheets)} sheets: give one for all, "
                         f"or one per sheet")
    out = []
    seen: dict[str, int] = {}
    for index, path in enumerate(sheets):
        sheet = parse_sheet(read_file(path, "sheet"), str(path))
        count = seen[sheet.name.lower()] = seen.get(sheet.name.lower(), 0) + 1
        out.append(Entrant(json_form(sheet), path.name, sides[index] if index < len(sides) else None,
                           f"{sheet.name} {count}" if count > 1 else None,
                           policies[index] if len(policies) > 1 else None))
    return tuple(out)


@contextmanager
def progress_bar(total: int, enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on a terminal; nothing when stdout is a pipe or a file."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TimeRemainingColumn

    with Bar("fights", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=True) as bar:
        task = bar.add_task("fights", total=total)
        yield lambda done: bar.advance(task, done)


@app.command()
def sim(
    sheets: Annotated[list[Path], typer.Argument(help="Character sheets (TOML), one per combatant.")],
    rules: Annotated[str, typer.Option(
        "--rules", "-r", metavar="PRESET", help="Preset: see `fudge rules`.")] = "fudge",
    house: Annotated[Optional[Path], typer.Option("--house", help="House-rules TOML: extends a preset.")] = None,
    n: Annotated[int, typer.Option("-n", help=f"Number of fights (at most {MAX_FIGHTS:,}).")] = 100_000,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Master seed (default: a random one, printed).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help=f"Parallel processes, 0 for one per core, at most {JOBS_PER_CPU} per CPU (same results for any number; started only when the run pays for them, -v says).")] = 1,
    policy: Annotated[Optional[list[str]], typer.Option(
        "--policy", metavar="POLICY", help=f"What combatants do: {', '.join(POLICY_NAMES)} (plain); one for all, or one per sheet.")] = None,
    keep_k: Annotated[int, typer.Option("--keep", help="Store this many sample fights (median and extremes).")] = 0,
    side: Annotated[Optional[list[str]], typer.Option(
        "--side", metavar="SIDE", help="Side of each sheet, in order (as `join --side`).")] = None,
    max_rounds: Annotated[int, typer.Option("--max-rounds", help="A fight still on after this many rounds is a draw.")] = DEFAULT_MAX_ROUNDS,
    name: Annotated[str, typer.Option(
        "--name", metavar="NAME", help="Kept fights are named NAME-SEED-INDEX.")] = "sim",
    executor: Annotated[str, typer.Option("--executor", metavar="KIND", help="process (local) or dask (a cluster, with --scheduler).")] = "process",
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", metavar="ADDRESS", help=(
        "Dask scheduler address (--executor dask). A scheduler runs any code sent to it: reach it over "
        "tls:// with the --tls-* certificates, or over tcp:// only on a network where everyone is trusted."))] = None,
    tls_ca_file: Annotated[Optional[Path], typer.Option(
        "--tls-ca-file", metavar="PEM", help="The Dask cluster's CA certificate (a tls:// --scheduler).")] = None,
    tls_cert: Annotated[Optional[Path], typer.Option(
        "--tls-cert", metavar="PEM", help="This client's certificate, signed by that CA (a tls:// --scheduler).")] = None,
    tls_key: Annotated[Optional[Path], typer.Option(
        "--tls-key", metavar="PEM", help="This client's private key (omit if --tls-cert holds it).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    engine: Annotated[bool, typer.Option(
        "--engine", help="Play every fight through the engine, also the duels a faster path plays (the same results); "
                         "FUDGE_PLAIN=1 does the same.")] = False,
    vectorised: Annotated[bool, typer.Option(
        "--batch", help="Play the fights as numpy arrays, many at once (a fudge or fate duel a fast path takes; "
                        "needs numpy: fudge's batch extra): several times faster, with the batch's own keyed "
                        "dice (docs/sim.md), so the same distribution but not the same fights as without it; "
                        "--json says \"path\": \"batch\". One process, no --keep.")] = False,
) -> None:
    """Play N complete fights automatically and report win/draw rates (95% Wilson intervals), rounds and
    final wounds. Each fight's dice come from the master seed and its index: a seed gives the same result
    for any --jobs. --keep K stores K sample fights to replay, audit and branch.

    --executor dask runs the fights on a Dask cluster. Its scheduler runs whatever pickled code a client
    sends it: reach it over TLS (tls://HOST:PORT with --tls-ca-file, --tls-cert, --tls-key) or only on a
    trusted network."""
    from fudge_combat.sim.batch import run_batch
    from fudge_combat.sim.parallel import Interrupted, WorkerLost
    from fudge_combat.sim.runner import Setup
    from fudge_combat.sim.stats import render

    with guard():
        rules_name, options = house_rules(rules, house)
        policies = policy or ["plain"]
        setup = Setup(rules_name, json_form(options), entrants(sheets, side or [], policies),
                      policies[0] if len(policies) == 1 else "plain", max_rounds, fast=not (engine or PLAIN))
        shown = policies[0] if len(policies) == 1 else "/".join(policies)
        if vectorised:
            check_batch(engine, jobs, executor, keep_k)
        master = seed if seed is not None else secrets.randbelow(2**63)
        jobs = jobs or (os.cpu_count() or 1)
        tls = certificates(tls_ca_file, tls_cert, tls_key)
        try:
            with progress_bar(n, sys.stdout.isatty() and not as_json) as advance:
                batch = run_batch(setup, master, n, jobs=jobs, executor=executor, scheduler=scheduler,
                                  progress=advance, store=service, keep_k=keep_k, prefix=name, tls=tls,
                                  vectorised=vectorised)
        except KeyboardInterrupt as stopped:  # before or after the fights (the setup's first fight, keeping samples)
            stop = fail(f"{stopped_by(stopped)}: no statistics shown", code=INTERRUPTED)
            if jobs > 1 and executor == "process":
                leave_at_once(INTERRUPTED)
            raise stop from None
        except Interrupted as stopped:
            stop = fail(f"{stopped_by(stopped)} after {stopped.done} of {stopped.total} fights: no statistics, "
                        f"nothing kept (run again with a smaller -n; --seed {master} plays the same fights)",
                        code=INTERRUPTED)
            if jobs > 1 and executor == "process":
                leave_at_once(INTERRUPTED)
            raise stop from None
        except WorkerLost as lost:
            stop = fail(f"{lost}: no statistics, nothing kept (--seed {master} plays the same fights again)")
            if executor == "process":
                leave_at_once(stop.exit_code)
            raise stop from None
        if as_json:
            data = {"rules": rules_name, "policy": policies[0] if len(policies) == 1 else policies, "seed": master,
                    "max_rounds": max_rounds, "path": batch.path,
                    **batch.summary.as_json(), "kept": batch.kept}
            echo_json(data, indent=2)
            return
        summary = replace(batch.summary, sides=tuple(map(safe, batch.summary.sides)),
                          combatants=tuple(map(safe, batch.summary.combatants)))  # names from sheets: one line each
        echo(render(summary, safe(shown), safe(rules_name), master), lines=True)
        for k in batch.kept:
            echo(f"kept {k['fight']} ({k['rounds']} rounds): `fudge replay {k['fight']}`, "
                       f"`fudge verify {k['fight']}`")


def check_batch(engine: bool, jobs: int, executor: str, keep_k: int) -> None:
    """--batch with an option it cannot honour: refused in one line before any work."""
    if engine or PLAIN:
        raise InputError("--batch plays the fights without the engine: drop --batch, or --engine and FUDGE_PLAIN")
    if jobs != 1 or executor != "process":
        raise InputError("--batch plays every fight in this one process, many at once: drop --jobs and --executor")
    if keep_k:
        raise InputError("--keep replays fights with the engine's dice, not the batch's: drop --keep or --batch")


def stopped_by(stopped: BaseException) -> str:
    """What stopped the run, for its last line (both exit as interrupted): SIGTERM while workers ran
    (`sim.parallel.Stopped`), else Ctrl-C."""
    return "stopped by SIGTERM" if getattr(stopped, "signum", None) == signal.SIGTERM else "interrupted"


def certificates(ca: Path | None, cert: Path | None, key: Path | None) -> Tls | None:
    """The --tls-* files read as PEM text (the certificates a tls:// Dask scheduler checks), or None."""
    from fudge_combat.sim.parallel import Tls

    if ca is None and cert is None and key is None:
        return None
    if ca is None or cert is None:
        raise InputError("a tls:// scheduler needs both --tls-ca-file (the cluster's CA) and --tls-cert (this "
                         "client's certificate), and --tls-key unless the certificate's file holds the key")

    def pem(path: Path, what: str) -> str:
        text = read_file(path, what)
        if "-----BEGIN " not in text:
            raise InputError(f"{what} {path} is not PEM (no -----BEGIN line): give the PEM file")
        return text

    return Tls(pem(ca, "TLS CA file"), pem(cert, "TLS certificate"), pem(key, "TLS key") if key else None)


def leave_at_once(code: int) -> None:
    """End the process now, once what it printed is out. After Ctrl-C stopped the worker processes, the
    standard library's exit hook for process pools can race with the pool's own closing and print a
    traceback (Python 3.11); nothing is left to clean up: results are dropped and kept fights are
    written whole or not at all."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
