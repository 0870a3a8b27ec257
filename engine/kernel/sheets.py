"""Character sheets: validated TOML text, resolved against a fight's ladder."""

import re
from typing import Any

import msgspec
from msgspec import Struct

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.ladder import Ladder
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.structs import (Armor, CombatTraits, FateArmor, FateWeapon, Shield, Sheet, Weapon,
                                                WoundOverride)

__all__ = ["Sheet", "CombatTraits", "Weapon", "Armor", "Shield", "FateWeapon", "FateArmor", "WoundOverride",
           "Fighter", "parse_sheet", "given_sheet", "stored_sheet", "read_levels", "likely_typo", "unlisted_combat_traits"]

Level = str | int  # a level as a sheet writes it: a ladder's word (`Good`, `Good+`) or a number
MAX_LEVEL = 100  # a trait level on any ladder (C-LAD-5 numbers included); Scale carries what is bigger


def parse_sheet(text: str, source: str) -> Sheet:
    """Read a sheet's TOML; every error names the file, the key and what is allowed (or the bound passed)."""
    from pydantic import BaseModel, ValidationError

    from fudge_combat.engine.kernel import models
    from fudge_combat.engine.kernel.inputs import load_toml, validation_line

    raw = load_toml(text, source)
    try:
        sheet = given_sheet(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top)"
        if err["type"] == "extra_forbidden":
            parent: type[BaseModel] | None = models.Sheet
            for part in err["loc"][:-1]:
                if parent is None:
                    break
                field = parent.model_fields.get(str(part))
                annotation = getattr(field, "annotation", None) if field else None
                parent = next((a for a in getattr(annotation, "__args__", (annotation,)) if isinstance(a, type) and issubclass(a, BaseModel)), None)
            allowed = ", ".join(parent.model_fields) if parent else "see `fudge sheet new` for a commented template"
            raise InputError(f"{source}: unknown key {where!r}; allowed here: {allowed}") from None
        raise InputError(validation_line(exc, source)) from None
    _check_sheet_bounds(sheet, source)
    return sheet


def given_sheet(data: Any) -> Sheet:
    """A sheet a command gives (a `join`'s fields), read by the sheet's model, its own validators included: a
    wrong value raises pydantic's ValidationError, in the model's words."""
    from fudge_combat.engine.kernel import models

    return msgspec.convert(models.Sheet.model_validate(data).model_dump(), Sheet)


def stored_sheet(data: Any) -> Sheet:
    """A sheet as a `combatant_joined` event or a `join` command holds it (its fields as JSON gives them).

    A stored sheet was validated by the sheet's model when it joined, so its struct checks the types and bounds
    (the log's own check of a body); a value of the wrong type, or past a bound, raises msgspec's
    ValidationError. A join's sheet is read by the model again where a GM or a player gives it (the join's
    decider), since a request is not a stored value."""
    return msgspec.convert(data, Sheet)


def _check_sheet_bounds(sheet: Sheet, source: str) -> None:
    """Boxes and levels a sheet may give: checked when a sheet is read, not when a stored one is replayed."""
    from fudge_combat.engine.kernel.inputs import check_boxes

    if sheet.wounds is not None:
        check_boxes(sheet.wounds.boxes, source, "wounds.boxes")
    for aspect, boxes in sheet.aspects.items():
        check_boxes((boxes,), source, f"aspects.{aspect!r}")
    for section, table in (("attributes", sheet.attributes), ("skills", sheet.skills)):
        for key, value in table.items():
            numbers = [abs(value)] if isinstance(value, int) else [int(n) for n in re.findall(r"\d+", value)]
            if any(n > MAX_LEVEL for n in numbers):
                raise InputError(f"{source}: [{section}] {key!r} = {value!r}: levels run from "
                                 f"-{MAX_LEVEL} to +{MAX_LEVEL}")


_TRAITS: dict[tuple[int, str, int], tuple[Any, Any, tuple[str, int, str]]] = {}  # see Fighter.trait


class Fighter(Struct, frozen=True, gc=False):
    """A sheet read on a ladder: every level a number. Not tracked by the cyclic collector: a frozen tree with no
    cycle (state.Combatant)."""

    sheet: Sheet
    attributes: dict[str, int]
    skills: dict[str, int]
    plus: frozenset[str] = frozenset()  # F-FANCY-2: combat skills written with a plus level, like `Good+`

    def trait(self, name: str, options: RuleOptions) -> tuple[str, int, str]:
        """(canonical name, level, where it came from) for a trait (C-ACT-1).

        Every blow reads the same few traits of the same fighters (the combat skill, Strength,
        Damage Capacity): an answer is kept with the fighter and options it was read from, so it is
        reused only for those very objects (a fighter's tables are never changed once read).
        """
        key = (id(self), name, id(options))
        kept = _TRAITS.get(key)
        if kept is not None and kept[0] is self and kept[1] is options:
            return kept[2]
        found = self._trait(name, options)
        if len(_TRAITS) >= 256:  # a simulation reads its fighters once per run; each fold of a fight reads them anew
            _TRAITS.clear()
        _TRAITS[key] = (self, options, found)  # holding both: their ids cannot be reused while kept
        return found

    def _trait(self, name: str, options: RuleOptions) -> tuple[str, int, str]:
        wanted = name.lower()
        for table, label in ((self.skills, "sheet"), (self.attributes, "sheet")):
            for key, value in table.items():
                if key.lower() == wanted:
                    return key, value, label
        for attribute in options.attributes:
            if attribute.lower() == wanted:
                return attribute, options.missing_attribute, "missing attribute"
        return name, options.unlisted_skill, "unlisted skill"


def likely_typo(sheet: Sheet, name: str, options: RuleOptions) -> list[str]:
    """The traits a name typed by the GM was probably meant to be, or [] when it names one exactly or
    none closely (C-ACT-1).

    A name that is not on the sheet is rolled at the rules' default (an attribute of the ruleset at
    `missing_attribute`, anything else as a skill not on the sheet at `unlisted_skill`), so a typo
    would be rolled at the default without a word. A name close to one of the sheet's traits or the
    ruleset's attributes (difflib ratio 0.8 or more, same first letter: `Rapeir` for `Rapier`) is taken
    for a typo; a name unlike any (`Riding` on a sheet with `Hiding` has another first letter) is a
    skill the fighter lacks.
    """
    import difflib

    known = [*sheet.skills, *sheet.attributes, *options.attributes]
    wanted = name.strip().lower()
    if any(trait.lower() == wanted for trait in known):
        return []
    by_lower = {trait.lower(): trait for trait in reversed(known)}  # the sheet's spelling first
    close = difflib.get_close_matches(wanted, list(by_lower), n=3, cutoff=0.8)
    return [by_lower[match] for match in close if match[:1] == wanted[:1]]


def unlisted_combat_traits(sheet: Sheet, options: RuleOptions, ladder: Ladder, source: str,
                           name: str | None = None) -> list[str]:
    """A warning for each trait the sheet's [combat] names but lacks: it will roll at the rules' default
    (C-ACT-1). A name that is probably a typo of a trait the sheet has is refused instead."""
    fighter = read_levels(sheet, ladder, source, options.plus_levels)
    out = []
    for role in ("attack", "defend", "ranged", "dodge"):
        trait = getattr(sheet.combat, role, None) if sheet.combat else None
        if not trait:
            continue
        meant = likely_typo(sheet, trait, options)
        if meant:
            raise InputError(f"{source}: [combat] {role} = {trait!r} is not on the sheet: did you mean "
                             f"{' or '.join(meant)}?")
        _, level, found = fighter.trait(trait, options)
        if found != "sheet":
            out.append(f"{name or sheet.name}'s [combat] {role} {trait} is not on the sheet: "
                       f"it rolls at the default {ladder.name(level)} (C-ACT-1)")
    return out


def read_levels(sheet: Sheet, ladder: Ladder, source: str, plus_levels: bool = False) -> Fighter:
    """Every level a number. F-FANCY-2: `Good+` is read only for a combat skill, with option plus_levels."""
    combat = {t.lower() for t in ((sheet.combat.attack, sheet.combat.defend) if sheet.combat else ()) if t}
    plus: set[str] = set()

    def levels(table: dict[str, Level], section: str) -> dict[str, int]:
        out = {}
        for key, value in table.items():
            if isinstance(value, str) and value.strip().endswith("+") and not value.strip()[:-1].endswith(("+", "-")):
                if not plus_levels:
                    raise InputError(f"{source}: [{section}] {key} = {value!r} is a plus level (F-FANCY-2): "
                                     "set plus_levels = true in the house rules, or write a ladder level")
                if section != "skills" or key.lower() not in combat:
                    raise InputError(f"{source}: [{section}] {key} = {value!r}: plus levels are for the combat "
                                     "skills named under [combat] only (F-FANCY-2)")
                plus.add(key)
                value = value.strip()[:-1]
            try:
                out[key] = ladder.parse(value)
            except InputError as exc:
                raise InputError(f"{source}: [{section}] {key}: {exc}") from None
        return out

    attributes, skills = levels(sheet.attributes, "attributes"), levels(sheet.skills, "skills")
    return Fighter(sheet, attributes, skills, frozenset(plus))
