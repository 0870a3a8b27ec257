"""Fate's commands as msgspec structs, the values the engine holds: written by `python -m
fudge_combat.engine.derive` from the pydantic models (engine.rulesets.fate.commands), which are the schema and
validate requests. Do not edit: change a model, then write this again (tests/test_kernel_structs.py fails
until it is)."""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field

from fudge_combat.engine.kernel.command_marks import NAMES_A_COMBATANT


class FateAction(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    combatant: Annotated[str, NAMES_A_COMBATANT]
    target: Annotated[str, NAMES_A_COMBATANT] | None = None
    skill: str | None = None
    defensive: bool = False
    non_combat: bool = False
    unaware: bool = False
    maneuver: str | None = None
    maneuver_needs: Literal['clipped', 'hurt', 'injured', 'taken_out'] = 'clipped'
    maneuver_kind: Literal['plain', 'disarm', 'finesse'] = 'plain'
    non_lethal: bool = False
    mod: int = 0


class FateMod(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    combatant: Annotated[str, NAMES_A_COMBATANT]
    kind: Literal['superior weapon', 'superior armor', 'superior position', 'outnumbering', 'flanking', 'surrounding', 'GM']
    against: Annotated[str, NAMES_A_COMBATANT] | None = None
    value: int = 1


class FateExchange(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['fate_exchange'] = 'fate_exchange'
    actions: tuple[FateAction, ...]
    mods: tuple[FateMod, ...] = ()
    mobile: bool = False


class FateScene(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['fate_scene'] = 'fate_scene'
    actions: tuple[FateAction, ...]
    mods: tuple[FateMod, ...] = ()
    mode: Literal['total', 'paired'] = 'paired'


class FateRound(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['fate_round'] = 'fate_round'


class FateAttack(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['fate_attack'] = 'fate_attack'
    attack: FateAction
    defense: FateAction
    mods: tuple[FateMod, ...] = ()
    mobile: bool = False


class FatePass(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['fate_pass'] = 'fate_pass'
    combatant: Annotated[str, NAMES_A_COMBATANT] | None = None
    hold: bool = False


class CheckAspect(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['check_aspect'] = 'check_aspect'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    aspect: str
    box: int | None = None
    target: int | None = None


class EndScene(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['end_scene'] = 'end_scene'


class RecoverInjury(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['recover_injury'] = 'recover_injury'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    healer: Annotated[str, NAMES_A_COMBATANT] | None = None
    skill_level: int | None = None
    activity: Literal['rest', 'light'] = 'rest'
    mod: int = 0


# each command by its `type`: how a log's `issued` dump is read back
BY_TYPE: dict[str, type[Struct]] = {
    'fate_exchange': FateExchange,
    'fate_scene': FateScene,
    'fate_round': FateRound,
    'fate_attack': FateAttack,
    'fate_pass': FatePass,
    'check_aspect': CheckAspect,
    'end_scene': EndScene,
    'recover_injury': RecoverInjury,
}

# the module of each struct's model: the words of a value a struct refuses
MODELS: dict[str, str] = {
    'FateAction': 'fudge_combat.engine.rulesets.fate.commands',
    'FateMod': 'fudge_combat.engine.rulesets.fate.commands',
    'FateExchange': 'fudge_combat.engine.rulesets.fate.commands',
    'FateScene': 'fudge_combat.engine.rulesets.fate.commands',
    'FateRound': 'fudge_combat.engine.rulesets.fate.commands',
    'FateAttack': 'fudge_combat.engine.rulesets.fate.commands',
    'FatePass': 'fudge_combat.engine.rulesets.fate.commands',
    'CheckAspect': 'fudge_combat.engine.rulesets.fate.commands',
    'EndScene': 'fudge_combat.engine.rulesets.fate.commands',
    'RecoverInjury': 'fudge_combat.engine.rulesets.fate.commands',
}
