"""What the shell completes from the store: fights, the combatants of a fight and their traits; and sheets.

Read the cheap way `fudge status` is (cli.views): the fight's stored status view holds its combatants
and their traits, so a <TAB> needs neither the engine nor a fold. Only when no valid view is stored
(a store written by other code) is the fight's state computed. A completion never writes, never
fails: a store it cannot read completes nothing.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from fudge_combat.cli.context import store_at, store_path
from fudge_combat.store.base import StoreError


def complete(kind: str, ctx: Any, incomplete: str) -> list[Any]:
    """The completions of `kind` ("fights", "combatants", "traits" or "rules") that start with `incomplete`
    (any case)."""
    from typer._click.shell_completion import CompletionItem

    if kind == "sheets":  # files: no store
        return [CompletionItem(path) for path in descended(paths(incomplete, SHEETS))]
    if kind == "rules":  # the rule IDs of `fudge rules explain`: no store
        from fudge_combat.cli.rule_texts import rules

        wanted = incomplete.upper()
        return [CompletionItem(key) for key in rules() if key.startswith(wanted)]
    try:
        words = _words(kind, ctx)
    except (StoreError, sqlite3.Error, OSError, ValueError):  # a store it cannot read (ValueError: pydantic's)
        return []
    wanted = incomplete.lower()
    return [CompletionItem(word) for word in words if word.lower().startswith(wanted)]


SHEETS = (".toml",)  # a sheet's file (engine.kernel.sheets reads TOML)


def paths(typed: str, suffixes: tuple[str, ...]) -> list[str]:
    """The files ending in one of `suffixes` and the folders (with their `/`) whose path begins `typed`, as
    typed (relative or not, `~` kept); hidden ones only when `typed` names a dot. Sorted, folders first."""
    head = typed[:typed.rfind("/") + 1]
    stem = typed[len(head):]
    try:
        entries = list(os.scandir(os.path.expanduser(head) if head else "."))
    except OSError:  # no such folder, or not readable: nothing to offer
        return []
    folders, files = [], []
    for entry in sorted(entries, key=lambda e: e.name):
        if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem.startswith(".")):
            continue
        try:
            if entry.is_dir():
                folders.append(f"{head}{entry.name}/")
            elif entry.name.lower().endswith(suffixes):
                files.append(head + entry.name)
        except OSError:
            continue
    return folders + files


def descended(found: list[str]) -> list[str]:
    """A folder found alone is opened: the shell then writes the folder's path, `/` and all, and waits, as it
    does for its own files; offered alone, the folder would be written with a space after it."""
    seen = 0
    while len(found) == 1 and found[0].endswith("/") and seen < 8:
        inside = paths(found[0], SHEETS)
        if not inside:
            break
        found, seen = inside, seen + 1
    return found


def _words(kind: str, ctx: Any) -> list[str]:
    given = ctx.find_root().params.get("store")
    path = store_path(given or None)
    if isinstance(path, Path) and not path.is_file():
        return []  # no store yet: nothing to complete, and none is made
    store = store_at(path)
    try:
        if kind == "fights":
            return [fight.name for fight in store.fights()]
        fight = _fight(ctx) or store.setting("current")
        if not fight:
            return []
        if kind == "aspects":
            named = {value.lower() for value in _values(ctx)}
            aspects = _aspects(store, fight)
            chosen = [name for name in aspects if name.lower() in named] or list(aspects)
            return list(dict.fromkeys(aspect for name in chosen for aspect in aspects[name]))
        traits = _traits(store, fight)
        if kind == "combatants":
            return list(traits)
        named = {value.lower() for value in _values(ctx)}
        chosen = [name for name in traits if name.lower() in named] or list(traits)
        return list(dict.fromkeys(trait for name in chosen for trait in traits[name]))
    finally:
        store.close()


def _fight(ctx: Any) -> str | None:
    """The fight the command line names so far (`--fight NAME`, or `log NAME`)."""
    for key in ("fight", "fight_opt"):
        value = ctx.params.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _values(ctx: Any) -> list[str]:
    """Every value typed so far: the combatants among them choose whose traits are completed."""
    out: list[str] = []
    for value in ctx.params.values():
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            out.extend(v for v in value if isinstance(v, str))
    return out


def _traits(store: Any, fight: str) -> dict[str, list[str]]:
    """Each combatant of the fight, in join order, with the traits a roll may name."""
    from fudge_combat.cli import views

    data = views.stored_status(store, fight)
    if data is not None and isinstance(data.get("traits"), dict):
        return {str(name): [str(t) for t in traits] for name, traits in data["traits"].items()}
    from fudge_combat.projections.board_view import traits
    from fudge_combat.service.fights import Fights  # no valid view: the fight's state, as `fudge status` would compute it

    return traits(Fights(store).state(fight))


def _aspects(store: Any, fight: str) -> dict[str, list[str]]:
    """Each combatant of a Fate fight with his sheet's aspects (FT-PTS), read from the stored status view (its
    JSON holds them, checked or not) or, with no valid view, from the fight's state."""
    from fudge_combat.cli import views

    data = views.stored_status(store, fight)
    shown = data.get("json") if isinstance(data, dict) else None
    combatants = shown.get("combatants") if isinstance(shown, dict) else None
    if isinstance(combatants, list):
        out: dict[str, list[str]] = {}
        for who in combatants:
            fate = who.get("fate") if isinstance(who, dict) else None
            aspects = fate.get("aspects") if isinstance(fate, dict) else None
            if isinstance(who, dict) and isinstance(aspects, dict):
                out[str(who.get("name"))] = [str(name) for name in aspects]
        return out
    from fudge_combat.service.fights import Fights

    state = Fights(store).state(fight)
    return {who.name: list(who.fighter.sheet.aspects)
            for who in sorted(state.combatants.values(), key=lambda c: c.joined_seq)}
