"""What the players' board shows of each fighter's wounds: the exact track, or words ("hurt", "badly hurt").

The GM chooses per fight (`fudge serve --wounds exact|words|npc-words`) and per fighter (`--words-for NAME`,
`--exact-for NAME`, repeated). The default, `npc-words`, shows the fighters of a sheet of kind "npc" in
words and everyone else (PCs, major NPCs) exactly, as Avrae's "Bloodied" hides a monster's hit points.

The choice is the GM's, not the fight's: it is kept in the GM's fudge folder (`board.json` beside the
snapshot key and the secrets file, readable by its owner only), one entry per fight id, never in the
log: a copied store carries no such choice, and changing it appends nothing. A `fudge serve` given any of
the options keeps them for the fight: `--wounds` replaces the mode (none given: the mode kept stands), and
the fighters named replace those named before (so `--wounds npc-words` alone clears them); a `fudge serve`
given none uses what is kept.

The file is read again at every rebuild of the page (the board follows the current fight, whose entry may
differ). A file that cannot be read as one fudge wrote is refused at `fudge serve`'s start in one line; if
it goes bad while the server runs, every fighter is shown in words until it is fixed (the board never
shows more than the GM chose).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.state import Combatant, FightState

FORMAT = "fudge-board-view"
FORMAT_VERSION = 1
MODES = ("exact", "words", "npc-words")
DEFAULT = "npc-words"
LARGEST = 1 << 20  # bytes: the file holds a few names per fight


class WoundView(Struct, frozen=True):
    """One fight's choice: the mode, and the fighters (keys: names in lower case) taken out of it."""

    mode: str = DEFAULT
    words_for: frozenset[str] = frozenset()
    exact_for: frozenset[str] = frozenset()

    def in_words(self, who: Combatant) -> bool:
        """Are `who`'s wounds shown to the players in words?"""
        if who.key in self.words_for:
            return True
        if who.key in self.exact_for:
            return False
        if self.mode == "npc-words":
            return who.fighter.sheet.kind == "npc"
        return self.mode == "words"

    def said(self, state: FightState) -> str:
        """For the GM, in one line: whose wounds the players read exactly, and whose in words."""
        exact = [who.name for who in state.combatants.values() if not self.in_words(who)]
        words = [who.name for who in state.combatants.values() if self.in_words(who)]
        rule = {"exact": "exact wounds", "words": "wounds in words",
                "npc-words": "NPCs' wounds in words, the others' exact"}[self.mode]
        if not state.combatants:
            return f"players see {rule} (--wounds {self.mode})"
        parts = [f"exact for {', '.join(exact)}" if exact else "", f"in words for {', '.join(words)}" if words else ""]
        return f"players see wounds {'; '.join(p for p in parts if p)} (--wounds {self.mode})"


ALL_WORDS = WoundView(mode="words")  # what a board shows when the GM's choice cannot be read: the least


def settings_file() -> Path:
    """`board.json` in the GM's fudge folder, beside the snapshot key (store.snapshots.key_file)."""
    from fudge_combat.store.snapshots import key_file

    return key_file().parent / "board.json"


def load(path: Path | None = None) -> dict[str, WoundView]:
    """Every fight's choice kept (none: an empty map); InputError in one line if the file is not one fudge wrote."""
    path = path or settings_file()
    try:
        with open(path, "rb") as file:
            raw = file.read(LARGEST + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InputError(f"cannot read the board's settings {path}: {exc.strerror}; fix its permissions "
                         "or delete it (the wounds shown go back to --wounds npc-words)") from None
    try:
        if len(raw) > LARGEST:
            raise ValueError("too large")
        data = json.loads(raw.decode("utf-8"))
        if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
            raise ValueError("not ours")
        return {str(fight): _view(entry) for fight, entry in data["fights"].items()}
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, UnicodeDecodeError):
        raise InputError(f"the board's settings {path} are not a file fudge wrote: delete it, then give "
                         "`fudge serve` the --wounds you want again") from None


def _view(entry: Mapping[str, Any]) -> WoundView:
    mode = entry["wounds"]
    if mode not in MODES:
        raise ValueError(mode)
    names = [entry.get("words_for", []), entry.get("exact_for", [])]
    if not all(isinstance(group, list) and all(isinstance(n, str) for n in group) for group in names):
        raise ValueError("names")
    return WoundView(mode, frozenset(names[0]), frozenset(names[1]))


def view_of(fight_id: str, path: Path | None = None) -> WoundView:
    """The choice kept for a fight (the default if none); every fighter in words if the file cannot be read."""
    try:
        return load(path).get(fight_id, WoundView())
    except InputError:
        return ALL_WORDS


def save(fight_id: str, view: WoundView, path: Path | None = None) -> None:
    """Keep `view` as the fight's choice, the other fights' left as they are (written whole, 0600)."""
    from fudge_combat.store.secrets import write_private

    path = path or settings_file()
    kept = load(path)
    kept[fight_id] = view
    data = {"format": FORMAT, "version": FORMAT_VERSION,
            "fights": {fight: {"wounds": v.mode, "words_for": sorted(v.words_for), "exact_for": sorted(v.exact_for)}
                       for fight, v in sorted(kept.items())}}
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_private(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise InputError(f"cannot keep the board's settings in {path}: {exc.strerror}; "
                         "set FUDGE_KEY_FILE to a file in a folder you can write") from None


def chosen(state: FightState, mode: str | None, words_for: Iterable[str], exact_for: Iterable[str],
           kept: WoundView) -> WoundView | None:
    """The fight's new choice from `fudge serve`'s options (None: none given, the kept one stands). Names are
    typed as at the table (any case, a unique beginning); one that names no fighter is refused, so a typo
    never shows a fighter the GM meant to hide."""
    words, exact = list(words_for), list(exact_for)
    if mode is None and not words and not exact:
        return None
    if mode is not None and mode not in MODES:
        raise InputError(f"--wounds {mode!r} is not a choice: exact, words or npc-words")
    keys = {option: {_fighter(state, name, option) for name in names}
            for option, names in (("--words-for", words), ("--exact-for", exact))}
    both = keys["--words-for"] & keys["--exact-for"]
    if both:
        name = state.combatants[sorted(both)[0]].name
        raise InputError(f"{name} is given to both --words-for and --exact-for: give one of them")
    return WoundView(mode or kept.mode, frozenset(keys["--words-for"]), frozenset(keys["--exact-for"]))


def _fighter(state: FightState, typed: str, option: str) -> str:
    from fudge_combat.cli.terminal import safe
    from fudge_combat.service.names import matching

    found = matching([who.name for who in state.combatants.values()], typed)
    names = ", ".join(safe(who.name) for who in state.combatants.values()) or "none has joined yet"
    if not found:
        raise InputError(f"{option} {safe(typed)!r}: no fighter of fight {safe(state.name)} is named so "
                         f"(its fighters: {names}); `fudge join` them first")
    if len(found) > 1:
        raise InputError(f"{option} {safe(typed)!r} may mean {' or '.join(safe(n) for n in found)}: "
                         "type more of the name")
    return found[0].lower()



def keep(fights: Any, fight: str, mode: str | None, words_for: Iterable[str], exact_for: Iterable[str]) -> str:
    """`fudge serve`'s options for the fight served: checked, kept when given, and the GM's line saying what
    the players will see. A settings file that cannot be read is refused here, before anything starts."""
    state = fights.state(fight)
    kept = load().get(state.fight_id, WoundView())
    given = chosen(state, mode, words_for, exact_for, kept)
    if given is not None:
        save(state.fight_id, given)
    return (given or kept).said(state)
