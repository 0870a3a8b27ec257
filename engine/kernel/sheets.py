"""Character sheets: validated TOML text, resolved against a fight's ladder."""

import re
from typing import Annotated, Any, Literal

from msgspec import Struct
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.inputs import MAX_ENTRIES, check_boxes, load_toml, validation_line
from fudge_combat.events.bounds import Count, Number, Text
from fudge_combat.engine.kernel.ladder import Ladder
from fudge_combat.engine.kernel.options import RuleOptions

Level = Text | Number
MAX_LEVEL = 100  # a trait level on any ladder (C-LAD-5 numbers included); Scale carries what is bigger


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class CombatTraits(_Strict):
    attack: Text
    defend: Text | None = None
    ranged: Text | None = None  # F-RNG: the skill a shot rolls (default: attack)
    dodge: Text | None = None  # F-RNG-2: the trait that avoids a shot (default: Dodge, else Agility)


class Weapon(_Strict):
    name: Text = "weapon"
    damage: Number = Field(description="F-DMG-1 weapon value: size + sharp + magic")
    blunt_heavy: bool = False
    muscle_powered: bool = True
    ranged: Literal["thrown", "propelled"] | None = None  # F-RNG-2: how a shot with it is dodged
    tech: Number | None = None  # F-TECH: its tech level on the Scale track (GM-set)
    light: bool = False  # AI-MULTI-ATK: a small light weapon (dagger, fist) allows two attacks
    two_handed: bool = False


class Armor(_Strict):
    name: Text = "armor"
    protection: Number = 0
    tech: Number | None = None  # F-TECH: its tech level on the Scale track (GM-set)


class Shield(_Strict):
    size: Literal["small", "medium", "large"]


class FateWeapon(_Strict):
    """FT-SIMPLE, FT-ADV-2: a rating 0..4 (or read from the table by name) and advanced attributes."""

    name: Text = "weapon"
    rating: Number | None = None
    attributes: tuple[Literal["AP", "APx2", "Flex", "Vicious", "Vcsx2", "Locking"], ...] = ()


class FateArmor(_Strict):
    """FT-SIMPLE, FT-ADV-1: a rating 0..4 (or read from the table by name); `type` 0..8 for advanced armor."""

    name: Text = "armor"
    rating: Number | None = None
    type: Number | None = None


class WoundOverride(_Strict):
    boxes: tuple[Count, Count, Count, Count, Count]


class Sheet(_Strict):
    """What a sheet file holds. Level values stay as written until a ladder reads them."""

    name: Text = Field(min_length=1)
    kind: Literal["pc", "npc", "major"] = "pc"
    side: Text | None = None
    scale: Number = 0
    fudge_points: Number | None = Field(default=None, ge=0)
    attributes: Annotated[dict[Text, Level], Field(max_length=MAX_ENTRIES)] = Field(default_factory=dict)
    skills: Annotated[dict[Text, Level], Field(max_length=MAX_ENTRIES)] = Field(default_factory=dict)
    gifts: Annotated[tuple[Text, ...], Field(max_length=MAX_ENTRIES)] = ()
    combat: CombatTraits | None = None
    weapon: Weapon | None = None
    armor: Armor | None = None
    shield: Shield | None = None
    wounds: WoundOverride | None = None
    track: Literal["boxes", "pawn"] = Field(default="boxes", description="F-WND-7: `pawn` for an NPC pawn's track")
    off_hand: Weapon | None = None  # AI-MULTI-ATK: a weapon in the other hand
    # --- fate (FT-PTS, FT-SIMPLE, FT-ADV) ---
    aspects: Annotated[dict[Text, Count], Field(max_length=MAX_ENTRIES)] = Field(
        default_factory=dict, description="FT-PTS: aspect -> number of check boxes")
    fate_weapon: FateWeapon | None = None
    fate_armor: FateArmor | None = None

    @model_validator(mode="before")
    @classmethod
    def _fate_points(cls, data: object) -> object:
        """C-FP-4: `fate_points` is the fudge-point pool under its Fate name."""
        if isinstance(data, dict) and "fate_points" in data:
            data = dict(data)
            if "fudge_points" in data:
                raise ValueError("give fate_points or fudge_points, not both (they are one pool)")
            data["fudge_points"] = data.pop("fate_points")
        return data

    @field_validator("name")
    @classmethod
    def _no_equals(cls, value: str) -> str:
        if "=" in value:
            raise ValueError("a name cannot contain '='")
        if not value.strip():
            raise ValueError("a name needs a visible character, not only spaces")
        return value.strip()


def parse_sheet(text: str, source: str) -> Sheet:
    """Read a sheet's TOML; every error names the file, the key and what is allowed (or the bound passed)."""
    raw = load_toml(text, source)
    try:
        sheet = Sheet.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top)"
        if err["type"] == "extra_forbidden":
            parent: type[BaseModel] | None = Sheet
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


def _check_sheet_bounds(sheet: Sheet, source: str) -> None:
    """Boxes and levels a sheet may give: checked when a sheet is read, not when a stored one is replayed."""
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


class Fighter(Struct, frozen=True):
    """A sheet read on a ladder: every level a number."""

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
