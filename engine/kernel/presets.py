"""Rulesets as named presets of options, tweakable by a house-rules TOML: what `fudge new --rules`, `fudge rules`
and a house-rules file are read with. The options are validated by their pydantic model (engine.kernel.models)
and held as the engine's struct (engine.kernel.options.RuleOptions)."""

from typing import Any

import msgspec
from pydantic import ValidationError

from fudge_combat.engine.kernel import models
from fudge_combat.engine.kernel.errors import InputError
from fudge_combat.engine.kernel.inputs import check_boxes, load_toml, validation_line
from fudge_combat.engine.kernel.models import Preset
from fudge_combat.engine.kernel.options import ATARI_ISEV, FATE, RuleOptions, check_combination
from fudge_combat.engine.kernel.registry import UnknownRuleset, is_built_in, ruleset_module

__all__ = ["Preset", "PRESETS", "preset_named", "presets", "option_rule", "house_ladder", "resolve", "given_options"]


def given_options(data: Any) -> RuleOptions:
    """Options a preset, a house-rules file or a caller gives, read by the options' model (its own validators
    included: a named wound table stands for its numbers); pydantic's ValidationError says what is wrong."""
    return msgspec.convert(models.RuleOptions.model_validate(data).model_dump(), RuleOptions)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(name="fudge", summary="Fudge 4.2.2: simultaneous opposed rounds, no initiative",
               overrides={}),
        Preset(name="fudge-phases",
               summary="Fudge with Crunch Time phase initiative (rolled table, crunch bartering) "
                       "and directed attacks in phase order",
               overrides={"pace": "alternating", "initiative": "phases-crunch", "bartering": "crunch"}),
        Preset(name="atari-isev",
               summary="Atari Isev campaign: 4dF + initiative trait every round, attack vs a free avoidance, "
                       "damage with a luck roll read on Health-based wound charts, 2 fudge points",
               overrides=ATARI_ISEV),
        Preset(name="fate",
               summary="Fate (Fudge version): fate11 ladder, exchanges compared by margin of success, "
                       "clipped/hurt/injured/taken-out boxes, dramatic arms, fate points and aspects",
               overrides=FATE),
    )
}




def preset_named(name: str) -> Preset | None:
    """The preset `name`: a built-in one, or the preset of the installed ruleset of that name (its package's
    `preset` module, `PRESET`), which runs that ruleset. None: no such preset. The entry points are read
    only for a name that is not a built-in preset."""
    preset = PRESETS.get(name)
    if preset is not None or is_built_in(name):
        return preset
    try:
        declared: Preset = ruleset_module(name, "preset").PRESET
    except UnknownRuleset:
        return None
    return declared.model_copy(update={"name": name, "overrides": {**declared.overrides, "ruleset": name}})


def presets() -> dict[str, Preset]:
    """Every preset: the built-in ones, then one for each installed ruleset (this reads the entry points)."""
    from fudge_combat.engine.kernel.registry import added

    out = dict(PRESETS)
    for name in added():
        preset = preset_named(name)
        if preset is not None:
            out[name] = preset
    return out


def option_rule(name: str) -> str:
    extra = models.RuleOptions.model_fields[name].json_schema_extra
    return str(extra["rule"]) if isinstance(extra, dict) else ""


def house_ladder(table: Any, house_name: str) -> tuple[tuple[str, int], ...]:
    """C-LAD-1: a [ladder] table of house rules, `Name = value`, one level per step."""
    if not isinstance(table, dict) or not table:
        raise InputError(f"{house_name}: [ladder] lists levels as `Name = number`, e.g. `Fair = 0`")
    levels = []
    for level_name, value in table.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{house_name}: [ladder] {level_name} = {value!r}: a level's value is a whole number")
        if not level_name.strip() or level_name.strip().lstrip("+-").isdigit() or "=" in level_name:
            raise InputError(f"{house_name}: [ladder] {level_name!r} cannot be a level's name")
        levels.append((level_name.strip(), value))
    levels.sort(key=lambda item: item[1])
    values = [v for _, v in levels]
    if len(levels) < 3:
        raise InputError(f"{house_name}: [ladder] needs at least three levels")
    if values != list(range(values[0], values[0] + len(values))):
        raise InputError(f"{house_name}: [ladder] values must run one step apart with no gap or repeat "
                         f"(got {', '.join(str(v) for v in values)})")
    lowered = [n.lower() for n, _ in levels]
    if len(set(lowered)) != len(lowered):
        raise InputError(f"{house_name}: [ladder] names a level twice")
    return tuple(levels)


def _meant(typed: str, known: Any) -> str:
    """`: did you mean damage_roll?` for a name close to a known one (difflib), else nothing: a
    misspelt key in a house file is refused, and the right spelling offered."""
    import difflib

    close = difflib.get_close_matches(typed.lower(), list(known), n=3, cutoff=0.7)
    if not close:
        return ""
    return f": did you mean {close[0] if len(close) == 1 else ', '.join(close[:-1]) + ' or ' + close[-1]}?"


def resolve(preset: str, house_toml: str | None = None, house_name: str = "house rules") -> tuple[str, RuleOptions]:
    """The rules name and resolved options for a preset and an optional house-rules text."""
    overrides: dict[str, Any] = {}
    name = preset
    if house_toml is not None:
        house = load_toml(house_toml, house_name)
        extends = house.pop("extends", preset)
        label = house.pop("name", None)
        if not isinstance(extends, str) or preset_named(extends) is None:
            known = presets()
            meant = _meant(extends, known) if isinstance(extends, str) else ""
            listed = ", ".join(known)
            raise InputError(f"{house_name}: extends = {extends!r} is not a preset{meant} (presets: {listed})"
                             if meant else f"{house_name}: extends = {extends!r} is not a preset; give one of: {listed}")
        if label is not None and (not isinstance(label, str) or not label.strip()):
            raise InputError(f"{house_name}: name = {label!r}: the house rules' name is a text, like name = \"our table\"")
        if isinstance(house.get("ladder"), dict):
            house["ladder_levels"] = house_ladder(house["ladder"], house_name)
            house["ladder"] = "house"
        preset = extends
        overrides = house
        name = label or f"{extends}+house"
    chosen = preset_named(preset)
    if chosen is None:
        known = presets()
        meant = _meant(preset, known)
        listed = ", ".join(known)
        raise InputError(f"unknown rules {preset!r}{meant} (presets: {listed}; see `fudge rules`)" if meant else
                         f"unknown rules {preset!r}; presets: {listed} (see `fudge rules`)")
    merged = {**chosen.overrides, **overrides}
    unknown = sorted(set(merged) - set(models.RuleOptions.model_fields))
    if unknown:
        meant = _meant(unknown[0], [*models.RuleOptions.model_fields, "extends", "name"])
        if meant:
            raise InputError(f"{house_name}: unknown option {unknown[0]!r}{meant}")
        raise InputError(
            f"{house_name}: unknown option {unknown[0]!r}; options: {', '.join(models.RuleOptions.model_fields)}")
    try:
        options = given_options(merged)
    except ValidationError as exc:
        raise InputError(validation_line(exc, house_name, "option")) from None
    except UnknownRuleset as exc:
        raise InputError(f"{house_name}: option 'ruleset': {exc}") from None
    check_boxes(options.wound_boxes, house_name, "wound_boxes")
    check_boxes(options.fate_boxes, house_name, "fate_boxes")
    check_combination(options, house_name)
    return name, options
