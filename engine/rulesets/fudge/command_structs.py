"""Fudge's commands (and Atari Isev's, which are Fudge's) as msgspec structs, the values the engine holds:
written by `python -m fudge_combat.engine.derive` from the pydantic models
(engine.rulesets.fudge.commands_round, engine.rulesets.fudge.commands_blows,
engine.rulesets.fudge.commands_rolls, engine.rulesets.fudge.commands_aftermath,
engine.rulesets.fudge.commands_conditions), which are the schema and validate requests. Do not edit: change a
model, then write this again (tests/test_kernel_structs.py fails until it is)."""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field

from fudge_combat.engine.kernel.command_marks import NAMES_A_COMBATANT, STORED_FLAT
from fudge_combat.engine.kernel.command_structs import Reveal
from fudge_combat.events.structs import Declaration


class Declare(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['declare'] = 'declare'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    declaration: Declaration
    posture_roll: bool = False
    posture_die: int | None = None


class SealDeclaration(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['seal_declaration'] = 'seal_declaration'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    seal: str


class StartRound(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['start_round'] = 'start_round'
    surprised: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()
    reveals: tuple[Reveal, ...] = ()
    initiative_bonus: tuple[tuple[Annotated[str, NAMES_A_COMBATANT], int], ...] = ()
    automatic: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()


class Barter(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['barter'] = 'barter'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    trade: int
    alter: int
    direction: Literal[1, -1]
    second_trade: int | None = None


class NextTurn(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['next'] = 'next'


class OrderTies(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['order_ties'] = 'order_ties'
    order: tuple[Annotated[str, NAMES_A_COMBATANT], ...]


class DeclareIntent(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['declare_intent'] = 'declare_intent'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    what: str = ''
    target: Annotated[str, NAMES_A_COMBATANT] | None = None


class HoldAction(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['hold_action'] = 'hold_action'


class Targeting(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    aim: int | None = None
    aim_at: str | None = None
    called: str | None = None
    called_rd: int | None = None
    otherwise: str | None = None
    affects: str | None = None
    speed_contest: bool = False


NO_TARGETING = Targeting()


class Exchange(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    targeting: Annotated[Targeting, STORED_FLAT] = NO_TARGETING
    type: Literal['exchange'] = 'exchange'
    first: Annotated[str, NAMES_A_COMBATANT]
    second: Annotated[str, NAMES_A_COMBATANT]
    mods: tuple[int, int] = (0, 0)
    min_hit: int | None = None
    reveals: tuple[Reveal, ...] = ()
    stun: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()
    pull: tuple[tuple[Annotated[str, NAMES_A_COMBATANT], int], ...] = ()
    head: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()
    magic: tuple[tuple[Annotated[str, NAMES_A_COMBATANT], int], ...] = ()


class Attack(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    targeting: Annotated[Targeting, STORED_FLAT] = NO_TARGETING
    type: Literal['attack'] = 'attack'
    attacker: Annotated[str, NAMES_A_COMBATANT]
    target: Annotated[str, NAMES_A_COMBATANT]
    mod: int = 0
    defense_mod: int = 0
    min_hit: int | None = None
    unaware: bool = False
    difficulty: int | None = None
    reveals: tuple[Reveal, ...] = ()
    stun: bool = False
    pull: int | None = None
    head: bool = False
    magic: tuple[tuple[Annotated[str, NAMES_A_COMBATANT], int], ...] = ()
    avoid: Literal['dodge', 'parry', 'dodge-parry', 'none'] | None = None
    position: tuple[Literal['behind', 'back', 'above', 'below', 'prone'], ...] = ()
    target_back: bool = False
    ranged: Literal['thrown', 'propelled'] | None = None
    ranged_mod: int | None = None
    weapon: Literal['main', 'off-hand', 'unarmed'] | None = None
    targets: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()
    targets_avoid: tuple[Literal['dodge', 'parry', 'dodge-parry', 'none'], ...] = ()


class RollTrait(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['roll'] = 'roll'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    trait: str | None
    difficulty: int | None = None
    opponent: Annotated[str, NAMES_A_COMBATANT] | None = None
    opponent_trait: str | None = None
    mod: int = 0
    opponent_mod: int = 0
    advantage: bool = False
    free: bool = False
    median: bool = False


class SpendPoint(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['spend'] = 'spend'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    use: Literal['panache', 'skill', 'luck', 'scratch', 'ticking', 'spare']
    target: int | None = None
    shift: Literal[1, -1] | None = None


class Shoot(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['shoot'] = 'shoot'
    shooter: Annotated[str, NAMES_A_COMBATANT]
    target: Annotated[str, NAMES_A_COMBATANT]
    difficulty: int | None = None
    aware: bool = False
    weapon: Literal['thrown', 'propelled'] | None = None
    shoot_back: bool = False
    back_difficulty: int | None = None
    burst: int | None = None
    burst_bonus: int | None = None
    mod: int = 0
    defense_mod: int = 0
    skill: str | None = None
    dodge: str | None = None


class Melee(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['melee'] = 'melee'
    lone: Annotated[str, NAMES_A_COMBATANT]
    foes: tuple[Annotated[str, NAMES_A_COMBATANT], ...]
    target: Annotated[str, NAMES_A_COMBATANT] | None = None
    sweep: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()
    sweep_penalty: int = 1
    ignore: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()
    max_foes: int | None = None
    mod: int = 0
    magic: tuple[tuple[Annotated[str, NAMES_A_COMBATANT], int], ...] = ()
    min_hit: int | None = None
    reveals: tuple[Reveal, ...] = ()
    foe_mods: tuple[tuple[Annotated[str, NAMES_A_COMBATANT], int], ...] = ()


class StoryRoll(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['story'] = 'story'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    trait: str
    mod: int = 0
    median: bool = False
    element: str = ''


class Willpower(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['willpower'] = 'willpower'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    mod: int = 0


class ResistSpell(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['resist_spell'] = 'resist_spell'
    caster: Annotated[str, NAMES_A_COMBATANT]
    target: Annotated[str, NAMES_A_COMBATANT]


class HeroicAvoidance(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['heroic'] = 'heroic'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    target: int | None = None


class Kill(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['kill'] = 'kill'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    reason: str = ''


class GmWound(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['gm_wound'] = 'gm_wound'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    level: int
    reason: str = ''


class EndBattle(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['end_battle'] = 'end_battle'


class Rest(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['rest'] = 'rest'
    combatants: tuple[Annotated[str, NAMES_A_COMBATANT], ...] = ()
    weeks: Annotated[int, Meta(ge=0, le=52)] = 0


class Heal(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['heal'] = 'heal'
    patient: Annotated[str, NAMES_A_COMBATANT]
    healer: Annotated[str, NAMES_A_COMBATANT] | None = None
    skill_level: int | None = None
    skill: str | None = None
    mod: int = 0


class MarkCondition(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['mark_condition'] = 'mark_condition'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    condition: Annotated[str, Meta(min_length=1, max_length=40)]
    rounds: Annotated[int, Meta(ge=1, le=100)] | None = None
    note: Annotated[str, Meta(max_length=200)] = ''


class ClearCondition(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['clear_condition'] = 'clear_condition'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    condition: Annotated[str, Meta(min_length=1, max_length=40)]


class Leave(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['leave'] = 'leave'
    combatant: Annotated[str, NAMES_A_COMBATANT]
    how: Literal['fled', 'surrendered', 'left'] = 'left'


# each command by its `type`: how a log's `issued` dump is read back
BY_TYPE: dict[str, type[Struct]] = {
    'declare': Declare,
    'seal_declaration': SealDeclaration,
    'start_round': StartRound,
    'barter': Barter,
    'next': NextTurn,
    'order_ties': OrderTies,
    'declare_intent': DeclareIntent,
    'hold_action': HoldAction,
    'exchange': Exchange,
    'attack': Attack,
    'roll': RollTrait,
    'spend': SpendPoint,
    'shoot': Shoot,
    'melee': Melee,
    'story': StoryRoll,
    'willpower': Willpower,
    'resist_spell': ResistSpell,
    'heroic': HeroicAvoidance,
    'kill': Kill,
    'gm_wound': GmWound,
    'end_battle': EndBattle,
    'rest': Rest,
    'heal': Heal,
    'mark_condition': MarkCondition,
    'clear_condition': ClearCondition,
    'leave': Leave,
}

# the module of each struct's model: the words of a value a struct refuses
MODELS: dict[str, str] = {
    'Declare': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'SealDeclaration': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'StartRound': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'Barter': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'NextTurn': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'OrderTies': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'DeclareIntent': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'HoldAction': 'fudge_combat.engine.rulesets.fudge.commands_round',
    'Targeting': 'fudge_combat.engine.rulesets.fudge.commands_blows',
    'Exchange': 'fudge_combat.engine.rulesets.fudge.commands_blows',
    'Attack': 'fudge_combat.engine.rulesets.fudge.commands_blows',
    'RollTrait': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'SpendPoint': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'Shoot': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'Melee': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'StoryRoll': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'Willpower': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'ResistSpell': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'HeroicAvoidance': 'fudge_combat.engine.rulesets.fudge.commands_rolls',
    'Kill': 'fudge_combat.engine.rulesets.fudge.commands_aftermath',
    'GmWound': 'fudge_combat.engine.rulesets.fudge.commands_aftermath',
    'EndBattle': 'fudge_combat.engine.rulesets.fudge.commands_aftermath',
    'Rest': 'fudge_combat.engine.rulesets.fudge.commands_aftermath',
    'Heal': 'fudge_combat.engine.rulesets.fudge.commands_aftermath',
    'MarkCondition': 'fudge_combat.engine.rulesets.fudge.commands_conditions',
    'ClearCondition': 'fudge_combat.engine.rulesets.fudge.commands_conditions',
    'Leave': 'fudge_combat.engine.rulesets.fudge.commands_conditions',
}
